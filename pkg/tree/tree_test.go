package tree

import (
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
)

// indexDependents finds dependents through an owner-uid index on one indexer per kind, as the
// plugin does over its caches.
type indexDependents map[string]cache.Indexer

func (d indexDependents) Dependents(owner Object) ([]Object, error) {
	uid := owner.UID()
	var out []Object
	for kind, indexer := range d {
		objs, err := indexer.ByIndex("owner-uid", string(uid))
		if err != nil {
			return nil, err
		}
		for _, obj := range objs {
			out = append(out, NewObject(schema.GroupResource{Resource: strings.ToLower(kind) + "s"}, kind, obj))
		}
	}
	return out, nil
}

func ownerUID(obj interface{}) ([]string, error) {
	m := obj.(metav1.Object)
	var uids []string
	for _, r := range m.GetOwnerReferences() {
		uids = append(uids, string(r.UID))
	}
	return uids, nil
}

func object(name string, owners ...string) *metav1.PartialObjectMetadata {
	o := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name, UID: types.UID(name)}}
	for _, owner := range owners {
		o.OwnerReferences = append(o.OwnerReferences, metav1.OwnerReference{Name: owner, UID: types.UID(owner)})
	}
	return o
}

func newDependents(t *testing.T, byKind map[string][]*metav1.PartialObjectMetadata) indexDependents {
	t.Helper()
	d := indexDependents{}
	for kind, objs := range byKind {
		indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{"owner-uid": ownerUID})
		for _, o := range objs {
			if err := indexer.Add(o); err != nil {
				t.Fatal(err)
			}
		}
		d[kind] = indexer
	}
	return d
}

func drawn(lines []Line) []string {
	var out []string
	for _, l := range lines {
		out = append(out, l.Prefix+l.Kind+"/"+l.Name)
	}
	return out
}

func TestDownAndLines(t *testing.T) {
	deps := newDependents(t, map[string][]*metav1.PartialObjectMetadata{
		"ReplicaSet": {object("web-1", "web"), object("web-2", "web"), object("api-1", "api")},
		"Pod":        {object("web-1-b", "web-1"), object("web-1-a", "web-1"), object("web-2-a", "web-2"), object("api-1-a", "api-1")},
		// A cycle written by hand: loop-a owns loop-b owns loop-a.
		"Widget": {object("loop-a", "loop-b", "web"), object("loop-b", "loop-a")},
	})
	web, err := Down(NewObject(schema.GroupResource{Group: "apps", Resource: "deployments"}, "Deployment", object("web")), deps)
	if err != nil {
		t.Fatal(err)
	}
	api, err := Down(NewObject(schema.GroupResource{Group: "apps", Resource: "deployments"}, "Deployment", object("api")), deps)
	if err != nil {
		t.Fatal(err)
	}
	got := drawn(Lines([]*Node{web, api}))
	want := []string{
		"Deployment/web",
		"├─ReplicaSet/web-1",
		"│ ├─Pod/web-1-a",
		"│ └─Pod/web-1-b",
		"├─ReplicaSet/web-2",
		"│ └─Pod/web-2-a",
		"└─Widget/loop-a",
		"  └─Widget/loop-b",
		"Deployment/api",
		"└─ReplicaSet/api-1",
		"  └─Pod/api-1-a",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Lines(Down(web), Down(api)) =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestUp(t *testing.T) {
	chain := []Object{
		NewObject(schema.GroupResource{Resource: "pods"}, "Pod", object("web-1-a", "web-1")),
		NewObject(schema.GroupResource{Group: "apps", Resource: "replicasets"}, "ReplicaSet", object("web-1", "web")),
		{Kind: "Deployment", Namespace: "shop", Name: "web"}, // not readable
	}
	got := drawn(Lines([]*Node{Up(chain)}))
	want := []string{"Deployment/web", "└─ReplicaSet/web-1", "  └─Pod/web-1-a"}
	if !slices.Equal(got, want) {
		t.Errorf("Lines(Up(chain)) = %q, want %q", got, want)
	}
	if Up(nil) != nil {
		t.Error("Up(nil) != nil")
	}
}
