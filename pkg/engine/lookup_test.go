package engine

import (
	"reflect"
	"sort"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestSortObjects checks that Lookup's order is the API server's list order:
// its storage keys (resource prefix + "ns/name", or + "name" for a
// cluster-scoped type) in byte order, which kubectl get prints as is.
func TestSortObjects(t *testing.T) {
	tests := []struct {
		name string
		objs []string // "ns/name" or "name", in the order the cache returns them
		want []string
	}{
		{"namespace, then name", []string{"b/x", "a/z", "a/y"}, []string{"a/y", "a/z", "b/x"}},
		// '-' (0x2d) sorts below '/' (0x2f): etcd lists
		// /registry/pods/team-a/... before /registry/pods/team/...
		{"a namespace that prefixes another", []string{"team/web-0", "team-a/web-0", "team/api", "team-a/api", "team2/web"},
			[]string{"team-a/api", "team-a/web-0", "team/api", "team/web-0", "team2/web"}},
		{"names in one namespace, by bytes", []string{"default/web.1", "default/web-1", "default/web", "default/Web"},
			[]string{"default/Web", "default/web", "default/web-1", "default/web.1"}},
		{"cluster-scoped, by name", []string{"worker-10", "worker-1", "master", "worker-1a", "worker"},
			[]string{"master", "worker", "worker-1", "worker-10", "worker-1a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs := make([]interface{}, len(tt.objs))
			for i, key := range tt.objs {
				objs[i] = objectWithKey(key)
			}
			sortObjects(objs)
			got := make([]string, len(objs))
			for i, obj := range objs {
				got[i] = storageKey(obj)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("sortObjects(%v) = %v, want %v", tt.objs, got, tt.want)
			}
			// The order of the API server's keys, prefix included.
			etcd := make([]string, len(tt.objs))
			for i, key := range tt.objs {
				etcd[i] = "/registry/pods/" + key
			}
			sort.Strings(etcd)
			for i := range etcd {
				if want := "/registry/pods/" + got[i]; etcd[i] != want {
					t.Errorf("sortObjects(%v)[%d] = %s, but the API server lists %s there", tt.objs, i, want, etcd[i])
				}
			}
		})
	}
}

// sortedKeys returns the storage keys of objs in byte order.
func sortedKeys(objs []interface{}) []string {
	keys := make([]string, len(objs))
	for i, obj := range objs {
		keys[i] = storageKey(obj)
	}
	sort.Strings(keys)
	return keys
}

// objectWithKey returns a metadata-only object whose storage key is key.
func objectWithKey(key string) *metav1.PartialObjectMetadata {
	obj := &metav1.PartialObjectMetadata{}
	for i := range key {
		if key[i] == '/' {
			obj.Namespace, obj.Name = key[:i], key[i+1:]
			return obj
		}
	}
	obj.Name = key
	return obj
}
