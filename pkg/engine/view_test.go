package engine

import (
	"reflect"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// TestViewAnswersAsANarrowerInformer checks that a view of an informer of
// all namespaces answers every read as an informer listing only the view's
// namespaces with its label selector does.
func TestViewAnswersAsANarrowerInformer(t *testing.T) {
	s := newFakeAPIServer(t)
	seedShop(s)
	s.apply("pods", fakePod("third", "web-4", "node-2", map[string]string{"app": "web", "tier": "back"}))
	s.apply("pods", fakePod("third", "cache-1", "node-2", nil))
	indexes := []index.Definition{labelIndex("app", "app"), labelIndex("tier", "tier")}
	all := startEngine(t, s.clients(t), []*meta.RESTMapping{podsMapping, nodesMapping}, Config{Indexes: indexes})
	selectors := map[string][]index.Selector{
		"every object":  nil,
		"app=web":       {{Name: "app", Operator: index.Equals, Values: []string{"web"}}},
		"tier!=front":   {{Name: "tier", Operator: index.NotEquals, Values: []string{"front"}}},
		"no tier label": {{Name: "tier", Operator: index.DoesNotExist}},
	}
	tests := []struct {
		name       string
		namespaces []string
		selector   string
	}{
		{"everything", nil, ""},
		{"one namespace", []string{"shop"}, ""},
		{"two namespaces", []string{"third", "shop"}, ""},
		{"a namespace without objects", []string{"empty"}, ""},
		{"a label selector", nil, "app=web"},
		{"a namespace and a label selector", []string{"shop"}, "tier in (front,back)"},
		{"a negative label selector", []string{"shop", "third"}, "app!=web"},
		{"a label that must be absent", nil, "!tier"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sel, err := labels.Parse(tt.selector)
			if err != nil {
				t.Fatal(err)
			}
			direct := startEngine(t, s.clients(t), []*meta.RESTMapping{podsMapping, nodesMapping},
				Config{Namespaces: tt.namespaces, LabelSelector: tt.selector, Indexes: indexes})
			for i, want := range direct.Types() {
				view := all.Types()[i].Restrict(tt.namespaces, sel)
				if view.Name() != want.Name() || view.Namespaced() != want.Namespaced() {
					t.Errorf("view of %s is named %s, namespaced %v", want.Name(), view.Name(), view.Namespaced())
				}
				for name, selectors := range selectors {
					got, err := view.Lookup(selectors)
					if err != nil {
						t.Fatalf("view %s Lookup(%s) = %v", view.Name(), name, err)
					}
					wantObjs, err := want.Lookup(selectors)
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(names(got), names(wantObjs)) {
						t.Errorf("view %s Lookup(%s) = %v, want %v", view.Name(), name, names(got), names(wantObjs))
					}
					for _, typ := range []*Type{view, want} {
						unordered, err := typ.LookupUnordered(selectors)
						if err != nil {
							t.Fatal(err)
						}
						if keys := sortedKeys(unordered); !slices.Equal(keys, sortedKeys(wantObjs)) {
							t.Errorf("%s LookupUnordered(%s) holds %v, want %v", typ.Name(), name, keys, sortedKeys(wantObjs))
						}
					}
				}
				for _, indexName := range []string{"app", "tier"} {
					got, err := view.Count(indexName)
					if err != nil {
						t.Fatal(err)
					}
					wantCounts, _ := want.Count(indexName)
					if !reflect.DeepEqual(got, wantCounts) {
						t.Errorf("view %s Count(%s) = %v, want %v", view.Name(), indexName, got, wantCounts)
					}
				}
				if got, want := view.Len(), want.Len(); got != want {
					t.Errorf("view %s Len() = %d, want %d", view.Name(), got, want)
				}
				everything, _ := all.Types()[i].Lookup(nil)
				for _, obj := range everything {
					key := storageKey(obj)
					_, got, _ := view.GetByKey(key)
					_, wantExists, _ := want.GetByKey(key)
					if got != wantExists {
						t.Errorf("view %s GetByKey(%s) exists = %v, want %v", view.Name(), key, got, wantExists)
					}
				}
			}
		})
	}
}

// TestViewEvents checks that a view sends the events a watch of its
// namespaces with its label selector gets from the API server: an object
// relabelled into the selector is added, one relabelled out of it deleted
// (its old state with the new resourceVersion), and nothing of the objects
// outside the view.
func TestViewEvents(t *testing.T) {
	s := newFakeAPIServer(t)
	web1 := fakePod("shop", "web-1", "node-1", map[string]string{"app": "web"})
	web2 := fakePod("shop", "web-2", "node-1", map[string]string{"app": "web"})
	db := fakePod("shop", "db-1", "node-1", map[string]string{"app": "db"})
	other := fakePod("other", "web-3", "node-1", map[string]string{"app": "web"})
	s.apply("pods", web2)
	s.apply("pods", web1)
	s.apply("pods", db)
	s.apply("pods", other)
	all := startEngine(t, s.clients(t), []*meta.RESTMapping{podsMapping}, Config{})
	view := all.Types()[0].Restrict([]string{"shop"}, labels.SelectorFromSet(labels.Set{"app": "web"}))
	q := NewQueue(100)
	remove, err := view.SendEvents(q)
	if err != nil {
		t.Fatal(err)
	}
	defer remove()
	events := popEvents(t, q)
	next := func() *Event {
		t.Helper()
		ev := receive(t, events, "event")
		if ev.Resource != view {
			t.Errorf("event %s %s names type %p, want the view %p", ev.Type, ev.Key, ev.Resource, view)
		}
		return ev
	}
	describe := func(ev *Event) string {
		got := string(ev.Type) + " " + ev.Key
		if ev.Initial {
			got += " initial"
		}
		return got
	}
	for _, want := range []string{"ADDED shop/web-1 initial", "ADDED shop/web-2 initial"} {
		if got := describe(next()); got != want {
			t.Errorf("event = %q, want %q", got, want)
		}
	}

	before, _, _ := all.Types()[0].GetByKey("shop/web-2")
	if before == nil {
		t.Fatal("shop/web-2 is not cached")
	}
	other.SetLabels(map[string]string{"app": "web", "changed": "yes"})
	s.apply("pods", other) // another namespace: nothing
	db.SetLabels(map[string]string{"app": "web"})
	s.apply("pods", db) // into the selector
	web1.SetLabels(map[string]string{"app": "web", "v": "2"})
	s.apply("pods", web1) // stays in it
	web2.SetLabels(map[string]string{"app": "gone"})
	s.apply("pods", web2) // out of it, at resourceVersion 108
	s.remove("pods", web2, false)
	s.remove("pods", db, false)
	for _, want := range []string{"ADDED shop/db-1", "MODIFIED shop/web-1", "DELETED shop/web-2", "DELETED shop/db-1"} {
		ev := next()
		if got := describe(ev); got != want {
			t.Fatalf("event = %q, want %q", got, want)
		}
		if ev.Key != "shop/web-2" {
			continue
		}
		// kube-apiserver's watch cache sends the old state with the
		// resourceVersion of the update that took the object out.
		old := ev.Old.(metav1.Object)
		if got := old.GetLabels()["app"]; got != "web" {
			t.Errorf("the deleted object's app label = %q, want its old value web", got)
		}
		if got := old.GetResourceVersion(); got != "108" {
			t.Errorf("the deleted object's resourceVersion = %s, want the update's, 108", got)
		}
		if got := before.(metav1.Object).GetResourceVersion(); got != "101" {
			t.Errorf("the cache's object was changed: resourceVersion %s, want 101", got)
		}
	}
	if n := view.Len(); n != 1 {
		t.Errorf("view.Len() = %d after the changes, want 1 (shop/web-1)", n)
	}
}
