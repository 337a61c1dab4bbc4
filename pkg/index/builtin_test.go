package index

import (
	"reflect"
	"slices"
	"sort"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"
)

// indexedValues adds obj to a fresh indexer that has def under its index name, checks that the
// bucket of every indexed value holds obj's storage key, and returns the indexed values, sorted.
func indexedValues(t *testing.T, def Definition, obj interface{}) []string {
	t.Helper()
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{def.Name: def.Func})
	if err := indexer.Add(obj); err != nil {
		t.Fatalf("indexer.Add(%T) = %v, want nil", obj, err)
	}
	key, err := cache.MetaNamespaceKeyFunc(obj)
	if err != nil {
		t.Fatalf("MetaNamespaceKeyFunc(%T) = %v, want nil", obj, err)
	}
	values := indexer.ListIndexFuncValues(def.Name)
	sort.Strings(values)
	for _, v := range values {
		keys, err := indexer.IndexKeys(def.Name, v)
		if err != nil || !reflect.DeepEqual(keys, []string{key}) {
			t.Errorf("IndexKeys(%q, %q) = %q, %v, want [%q], nil", def.Name, v, keys, err, key)
		}
	}
	if len(values) == 0 {
		return nil
	}
	return values
}

func sorted(values []string) []string {
	if len(values) == 0 {
		return nil
	}
	out := slices.Clone(values)
	sort.Strings(out)
	return out
}

// objectForms returns obj in the forms the informers hand out: typed (unless obj is a custom
// resource, which only has the unstructured form), unstructured, and metadata-only.
func objectForms(t *testing.T, obj runtime.Object) []struct {
	name string
	obj  runtime.Object
} {
	t.Helper()
	type form = struct {
		name string
		obj  runtime.Object
	}
	var forms []form
	if _, ok := obj.(*unstructured.Unstructured); !ok {
		forms = append(forms, form{"typed", obj})
	}
	return append(forms,
		form{"unstructured", toUnstructured(t, obj)},
		form{"metadata", toMetadata(t, obj)},
	)
}

func TestBuiltinIndexFuncs(t *testing.T) {
	tests := []struct {
		name  string
		index string
		obj   runtime.Object
		// want are the values, in order, for the typed and unstructured forms.
		want []string
		// wantMetadata are the values for the metadata-only form.
		wantMetadata []string
	}{
		{name: "namespace of a pod", index: "namespace", obj: runningPod(),
			want: []string{"shop"}, wantMetadata: []string{"shop"}},
		{name: "namespace of a cluster-scoped namespace", index: "namespace", obj: namespace()},
		{name: "namespace of a persistent volume", index: "namespace", obj: persistentVolume()},
		{name: "namespace of a custom resource", index: "namespace", obj: widget(),
			want: []string{"shop"}, wantMetadata: []string{"shop"}},

		{name: "label present", index: "label:app", obj: runningPod(),
			want: []string{"web"}, wantMetadata: []string{"web"}},
		{name: "label present with empty value", index: "label:empty", obj: runningPod(),
			want: []string{""}, wantMetadata: []string{""}},
		{name: "label absent", index: "label:tier", obj: runningPod()},
		{name: "label of an object without labels", index: "label:app", obj: configMap()},
		{name: "label of a cluster-scoped object", index: "label:team", obj: namespace(),
			want: []string{"payments"}, wantMetadata: []string{"payments"}},
		{name: "label of a custom resource", index: "label:app", obj: widget(),
			want: []string{"web"}, wantMetadata: []string{"web"}},

		{name: "annotation present", index: "annotation:example.com/team", obj: runningPod(),
			want: []string{"payments"}, wantMetadata: []string{"payments"}},
		{name: "annotation absent", index: "annotation:example.com/team", obj: deployment()},

		{name: "owners deduplicated", index: "owner", obj: runningPod(),
			want:         []string{"ReplicaSet/web-5d9c7", "ConfigMap/holder"},
			wantMetadata: []string{"ReplicaSet/web-5d9c7", "ConfigMap/holder"}},
		{name: "owner of an unowned object", index: "owner", obj: deployment()},
		{name: "owner of a custom resource", index: "owner", obj: widget(),
			want: []string{"Deployment/web"}, wantMetadata: []string{"Deployment/web"}},
		{name: "owner UIDs deduplicated", index: "owner-uid", obj: runningPod(),
			want: []string{"uid-rs", "uid-cm"}, wantMetadata: []string{"uid-rs", "uid-cm"}},
		{name: "owner UID of an unowned object", index: "owner-uid", obj: namespace()},

		{name: "node of a scheduled pod", index: "node", obj: runningPod(), want: []string{"worker-1"}},
		{name: "node of a pending pod is empty", index: "node", obj: pendingPod(), want: []string{""}},
		{name: "node of a deployment", index: "node", obj: deployment()},
		{name: "node of a namespace", index: "node", obj: namespace()},
		{name: "node of a persistent volume claim", index: "node", obj: persistentVolumeClaim()},
		{name: "node of a custom resource", index: "node", obj: widget(), want: []string{"worker-2"}},

		{name: "phase of a running pod", index: "phase", obj: runningPod(), want: []string{"Running"}},
		{name: "phase of a pending pod", index: "phase", obj: pendingPod(), want: []string{"Pending"}},
		{name: "phase of a namespace", index: "phase", obj: namespace(), want: []string{"Active"}},
		{name: "phase of a persistent volume", index: "phase", obj: persistentVolume(), want: []string{"Available"}},
		{name: "phase of a persistent volume claim", index: "phase", obj: persistentVolumeClaim(),
			want: []string{"Bound"}},
		{name: "phase of a node, converted", index: "phase", obj: node(), want: []string{"Running"}},
		{name: "phase of a deployment", index: "phase", obj: deployment()},
		{name: "phase of a config map", index: "phase", obj: configMap()},
		{name: "phase of a custom resource", index: "phase", obj: widget(), want: []string{"Ready"}},

		{name: "images of a pod, deduplicated, init and ephemeral", index: "image", obj: runningPod(),
			want: []string{"nginx:1.27", "envoy:1.30", "busybox:1.36", "debug:1"}},
		{name: "images of a deployment", index: "image", obj: deployment(),
			want: []string{"nginx:1.27", "envoy:1.30"}},
		{name: "images of a replica set", index: "image", obj: replicaSet(), want: []string{"nginx:1.27"}},
		{name: "images of a stateful set", index: "image", obj: statefulSet(), want: []string{"postgres:17"}},
		{name: "images of a daemon set", index: "image", obj: daemonSet(), want: []string{"agent:2"}},
		{name: "images of a job", index: "image", obj: job(), want: []string{"report:1"}},
		{name: "images of a cron job", index: "image", obj: cronJob(), want: []string{"nightly:1"}},
		{name: "images of a replication controller", index: "image", obj: replicationController(true),
			want: []string{"legacy:0.9"}},
		{name: "images of a replication controller without template", index: "image",
			obj: replicationController(false)},
		{name: "images of a pod template", index: "image", obj: podTemplate(), want: []string{"tpl:1"}},
		{name: "images of an apps/v1beta2 deployment, converted", index: "image", obj: betaDeployment(),
			want: []string{"old:1"}},
		{name: "images of a custom resource with a pod template", index: "image", obj: widget(),
			want: []string{"widget:1"}},
		{name: "images of a config map", index: "image", obj: configMap()},
		{name: "images of a namespace", index: "image", obj: namespace()},
	}
	set, err := NewSet()
	if err != nil {
		t.Fatalf("NewSet() = %v, want nil", err)
	}
	for _, tt := range tests {
		def, err := set.Lookup(tt.index)
		if err != nil {
			t.Fatalf("Lookup(%q) = %v, want nil", tt.index, err)
		}
		for _, form := range objectForms(t, tt.obj) {
			t.Run(tt.name+"/"+form.name, func(t *testing.T) {
				want := tt.want
				if form.name == "metadata" {
					want = tt.wantMetadata
				}
				got, err := def.Func(form.obj)
				if err != nil {
					t.Fatalf("%s(%T) error = %v, want nil", tt.index, form.obj, err)
				}
				if !reflect.DeepEqual(got, want) && !(len(got) == 0 && len(want) == 0) {
					t.Errorf("%s(%T) = %q, want %q", tt.index, form.obj, got, want)
				}
				if got := indexedValues(t, def, form.obj); !reflect.DeepEqual(got, sorted(want)) {
					t.Errorf("indexed values of %s(%T) = %q, want %q", tt.index, form.obj, got, sorted(want))
				}
				if got := Values(def, form.obj); !reflect.DeepEqual(sorted(got), sorted(want)) {
					t.Errorf("Values(%s, %T) = %q, want %q", tt.index, form.obj, got, want)
				}
			})
		}
	}
}

func TestBuiltinMetadataOnly(t *testing.T) {
	tests := []struct {
		name  string
		index string
		want  bool
	}{
		{name: "namespace", index: "namespace", want: true},
		{name: "label", index: "label:app", want: true},
		{name: "annotation", index: "annotation:example.com/team", want: true},
		{name: "owner", index: "owner", want: true},
		{name: "owner-uid", index: "owner-uid", want: true},
		{name: "node", index: "node", want: false},
		{name: "phase", index: "phase", want: false},
		{name: "image", index: "image", want: false},
	}
	set, err := NewSet()
	if err != nil {
		t.Fatalf("NewSet() = %v, want nil", err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			def, err := set.Lookup(tt.index)
			if err != nil {
				t.Fatalf("Lookup(%q) = %v, want nil", tt.index, err)
			}
			if def.MetadataOnly != tt.want {
				t.Errorf("Lookup(%q).MetadataOnly = %v, want %v", tt.index, def.MetadataOnly, tt.want)
			}
		})
	}
}

// TestBuiltinBuckets indexes several objects together and follows one through an update, as an
// informer does.
func TestBuiltinBuckets(t *testing.T) {
	set, err := NewSet()
	if err != nil {
		t.Fatalf("NewSet() = %v, want nil", err)
	}
	indexers := cache.Indexers{}
	for _, name := range []string{"node", "image", "phase", "owner", "namespace"} {
		def, err := set.Lookup(name)
		if err != nil {
			t.Fatalf("Lookup(%q) = %v, want nil", name, err)
		}
		indexers[name] = def.Func
	}
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, indexers)
	onWorker2 := runningPod()
	onWorker2.Name = "web-3"
	onWorker2.Spec.NodeName = "worker-2"
	objects := []interface{}{
		runningPod(),                           // shop/web-1 on worker-1
		pendingPod(),                           // shop/web-2, pending
		toUnstructured(t, onWorker2),           // shop/web-3 on worker-2, from a dynamic informer
		deployment(),                           // shop/web
		toMetadata(t, persistentVolumeClaim()), // db/data-pg-0, metadata only
		namespace(),                            // shop, cluster-scoped
	}
	for _, obj := range objects {
		if err := indexer.Add(obj); err != nil {
			t.Fatalf("indexer.Add(%T) = %v, want nil", obj, err)
		}
	}

	tests := []struct {
		name  string
		index string
		value string
		want  []string
	}{
		{name: "pods on worker-1", index: "node", value: "worker-1", want: []string{"shop/web-1"}},
		{name: "pods on worker-2", index: "node", value: "worker-2", want: []string{"shop/web-3"}},
		{name: "pending pods", index: "node", value: "", want: []string{"shop/web-2"}},
		{name: "nginx users", index: "image", value: "nginx:1.27",
			want: []string{"shop/web", "shop/web-1", "shop/web-2", "shop/web-3"}},
		{name: "envoy users", index: "image", value: "envoy:1.30",
			want: []string{"shop/web", "shop/web-1", "shop/web-3"}},
		{name: "running", index: "phase", value: "Running", want: []string{"shop/web-1", "shop/web-3"}},
		{name: "owned by the replica set", index: "owner", value: "ReplicaSet/web-5d9c7",
			want: []string{"shop/web-1", "shop/web-3"}},
		{name: "in namespace db", index: "namespace", value: "db", want: []string{"db/data-pg-0"}},
		{name: "no such node", index: "node", value: "worker-9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := indexer.IndexKeys(tt.index, tt.value)
			if err != nil {
				t.Fatalf("IndexKeys(%q, %q) = %v, want nil", tt.index, tt.value, err)
			}
			if !reflect.DeepEqual(sorted(got), tt.want) {
				t.Errorf("IndexKeys(%q, %q) = %q, want %q", tt.index, tt.value, sorted(got), tt.want)
			}
		})
	}

	t.Run("pending pod gets scheduled", func(t *testing.T) {
		scheduled := pendingPod()
		scheduled.Spec.NodeName = "worker-1"
		if err := indexer.Update(scheduled); err != nil {
			t.Fatalf("indexer.Update(%T) = %v, want nil", scheduled, err)
		}
		if got, _ := indexer.IndexKeys("node", ""); len(got) != 0 {
			t.Errorf(`IndexKeys("node", "") = %q, want []`, got)
		}
		got, _ := indexer.IndexKeys("node", "worker-1")
		if want := []string{"shop/web-1", "shop/web-2"}; !reflect.DeepEqual(sorted(got), want) {
			t.Errorf(`IndexKeys("node", "worker-1") = %q, want %q`, sorted(got), want)
		}
	})
}

func TestBuiltinTombstone(t *testing.T) {
	set, err := NewSet()
	if err != nil {
		t.Fatalf("NewSet() = %v, want nil", err)
	}
	pod := runningPod()
	tests := []struct {
		name string
		obj  interface{}
	}{
		{name: "typed", obj: pod},
		{name: "unstructured", obj: toUnstructured(t, pod)},
		{name: "metadata", obj: toMetadata(t, pod)},
	}
	for _, tt := range tests {
		for _, index := range []string{"namespace", "label:app", "owner", "owner-uid", "node", "phase", "image"} {
			t.Run(tt.name+"/"+index, func(t *testing.T) {
				def, err := set.Lookup(index)
				if err != nil {
					t.Fatalf("Lookup(%q) = %v, want nil", index, err)
				}
				want, _ := def.Func(tt.obj)
				tombstone := cache.DeletedFinalStateUnknown{Key: "shop/web-1", Obj: tt.obj}
				if got, err := def.Func(tombstone); err != nil || !reflect.DeepEqual(got, want) {
					t.Errorf("%s(DeletedFinalStateUnknown{%T}) = %q, %v, want %q, nil", index, tt.obj, got, err, want)
				}
				if got, err := def.Func(&tombstone); err != nil || !reflect.DeepEqual(got, want) {
					t.Errorf("%s(&DeletedFinalStateUnknown{%T}) = %q, %v, want %q, nil", index, tt.obj, got, err, want)
				}
			})
		}
	}
}

// TestBuiltinNotAnObject checks that functions reading metadata report an object without metadata,
// as client-go's MetaNamespaceIndexFunc does, and that the others give no value.
func TestBuiltinNotAnObject(t *testing.T) {
	tests := []struct {
		name    string
		index   string
		wantErr bool
	}{
		{name: "namespace", index: "namespace", wantErr: true},
		{name: "label", index: "label:app", wantErr: true},
		{name: "annotation", index: "annotation:app", wantErr: true},
		{name: "owner", index: "owner", wantErr: true},
		{name: "owner-uid", index: "owner-uid", wantErr: true},
		{name: "node", index: "node"},
		{name: "phase", index: "phase"},
		{name: "image", index: "image"},
	}
	set, err := NewSet()
	if err != nil {
		t.Fatalf("NewSet() = %v, want nil", err)
	}
	for _, tt := range tests {
		for _, obj := range []interface{}{"a string", nil, cache.DeletedFinalStateUnknown{}} {
			t.Run(tt.name, func(t *testing.T) {
				def, err := set.Lookup(tt.index)
				if err != nil {
					t.Fatalf("Lookup(%q) = %v, want nil", tt.index, err)
				}
				got, err := def.Func(obj)
				if (err != nil) != tt.wantErr || len(got) != 0 {
					t.Errorf("%s(%#v) = %q, %v, want [], error %v", tt.index, obj, got, err, tt.wantErr)
				}
				if got := Values(def, obj); got != nil {
					t.Errorf("Values(%s, %#v) = %q, want nil", tt.index, obj, got)
				}
			})
		}
	}
}
