package engine

import (
	"slices"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// TestWithRelationsOnAView checks that the relation indexes of a view of
// some namespaces are computed for the view's objects only, and answer as
// those of an engine of the view's namespaces do.
func TestWithRelationsOnAView(t *testing.T) {
	s := newFakeAPIServer(t)
	seedShop(s)
	s.apply("pods", fakePod("third", "web-4", "node-2", map[string]string{"app": "web"}))
	all := startEngine(t, s.clients(t), []*meta.RESTMapping{podsMapping}, Config{})
	var mu sync.Mutex
	var evaluated []string
	// A relation index whose value is the pod's app label, recording the
	// objects it was evaluated on.
	rel := index.Definition{Name: "rel", Relation: index.UsesRelation, Func: func(obj interface{}) ([]string, error) {
		mu.Lock()
		evaluated = append(evaluated, storageKey(obj))
		mu.Unlock()
		a, err := meta.Accessor(obj)
		if err != nil || a.GetLabels()["app"] == "" {
			return nil, err
		}
		return []string{"app/" + a.GetLabels()["app"]}, nil
	}}
	tests := []struct {
		name          string
		namespaces    []string
		selector      string
		wantEvaluated []string
	}{
		{"all namespaces", nil, "", []string{"other/web-3", "shop/db-1", "shop/web-1", "shop/web-2", "third/web-4"}},
		{"one namespace", []string{"shop"}, "", []string{"shop/db-1", "shop/web-1", "shop/web-2"}},
		{"two namespaces and a label selector", []string{"other", "third"}, "app=web", []string{"other/web-3", "third/web-4"}},
		{"a namespace without pods", []string{"empty"}, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sel, err := labels.Parse(tt.selector)
			if err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			evaluated = nil
			mu.Unlock()
			view := all.Types()[0].Restrict(tt.namespaces, sel)
			withRel, _, err := view.withRelations(t.Context(), false, rel)
			if err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			got := slices.Sorted(slices.Values(evaluated))
			mu.Unlock()
			if !slices.Equal(got, tt.wantEvaluated) {
				t.Errorf("evaluated on %v, want %v", got, tt.wantEvaluated)
			}
			direct := startEngine(t, s.clients(t), []*meta.RESTMapping{podsMapping}, Config{Namespaces: tt.namespaces, LabelSelector: tt.selector})
			directRel, _, err := direct.Types()[0].withRelations(t.Context(), false, rel)
			if err != nil {
				t.Fatal(err)
			}
			for _, selectors := range [][]index.Selector{
				{{Name: "rel", Operator: index.Equals, Values: []string{"app/web"}}},
				{{Name: "rel", Operator: index.NotIn, Values: []string{"app/db"}}},
				{{Name: "rel", Operator: index.Exists}},
			} {
				gotObjs, err := withRel.Lookup(selectors)
				if err != nil {
					t.Fatal(err)
				}
				wantObjs, err := directRel.Lookup(selectors)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(names(gotObjs), names(wantObjs)) {
					t.Errorf("Lookup(%v) = %v, want %v", selectors, names(gotObjs), names(wantObjs))
				}
			}
		})
	}
}
