package tree

import (
	"slices"
	"testing"
)

// fakeRefs is a Refs over a list of references "FROM -FIELD-> TO", objects by "Kind/name".
type fakeRefs []struct{ from, field, to string }

func obj(kindName string) Object {
	for i := range kindName {
		if kindName[i] == '/' {
			return Object{Kind: kindName[:i], Namespace: "shop", Name: kindName[i+1:]}
		}
	}
	return Object{Name: kindName}
}

func (f fakeRefs) Uses(o Object) ([]Edge, error) {
	var out []Edge
	for _, r := range f {
		if obj(r.from) == o {
			out = append(out, Edge{Object: obj(r.to), Field: r.field})
		}
	}
	return out, nil
}

func (f fakeRefs) UsedBy(o Object) ([]Edge, error) {
	var out []Edge
	for _, r := range f {
		if obj(r.to) == o {
			out = append(out, Edge{Object: obj(r.from), Field: r.field})
		}
	}
	return out, nil
}

func TestRefsTree(t *testing.T) {
	refs := fakeRefs{
		{"Pod/web-1", "envFrom", "ConfigMap/app"},
		{"Pod/web-1", "volume", "ConfigMap/app"},
		{"Deployment/web", "volume", "ConfigMap/app"},
		{"Pod/web-1", "persistentVolumeClaim", "PersistentVolumeClaim/data"},
		{"PersistentVolumeClaim/data", "volumeName", "PersistentVolume/pv-1"},
		{"PersistentVolume/pv-1", "storageClassName", "StorageClass/fast"},
		{"Pod/web-1", "serviceAccountName", "ServiceAccount/web"},
		{"RoleBinding/web", "subject", "ServiceAccount/web"},
		{"ServiceAccount/web", "secrets", "Secret/token"},
		{"Secret/token", "loop", "ServiceAccount/web"}, // a cycle is broken
	}
	tests := []struct {
		root string
		want []string
	}{
		{"ConfigMap/app", []string{"ConfigMap/app ", "├─Deployment/web used by (volume)", "└─Pod/web-1 used by (envFrom, volume)"}},
		{"PersistentVolume/pv-1", []string{
			"PersistentVolume/pv-1 ",
			"├─StorageClass/fast uses (storageClassName)",
			"└─PersistentVolumeClaim/data used by (volumeName)",
			"  └─Pod/web-1 used by (persistentVolumeClaim)",
		}},
		{"ServiceAccount/web", []string{
			"ServiceAccount/web ",
			"├─Secret/token uses (secrets)",
			"├─Pod/web-1 used by (serviceAccountName)",
			"├─RoleBinding/web used by (subject)",
			"└─Secret/token used by (loop)",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.root, func(t *testing.T) {
			n, err := RefsTree(obj(tt.root), refs)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, l := range Lines([]*Node{n}) {
				got = append(got, l.Prefix+l.Kind+"/"+l.Name+" "+l.Relation)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("RefsTree(%s) =\n%q\nwant\n%q", tt.root, got, tt.want)
			}
		})
	}
}
