package engine

import (
	"context"
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// TestRelationIndexesFollowNodesAndPods holds node.label:tier of pods in relation indexes that follow the pods, and
// refreshes the pods of a node after the node is relabelled: lookups by the index see the new
// label, a deleted pod leaves its value, and only the relabelled node's pods report a change.
func TestRelationIndexesFollowNodesAndPods(t *testing.T) {
	s := newFakeAPIServer(t)
	seedShop(s)
	clients := s.clients(t)
	e := startEngine(t, clients, []*meta.RESTMapping{podsMapping, nodesMapping}, Config{SyncTimeout: waitLimit, FullObjects: true})
	pods, nodes := e.Types()[0], e.Types()[1]
	def, err := (*index.Set)(nil).Lookup("node.label:tier")
	if err != nil {
		t.Fatal(err)
	}
	nodeIndex, err := (*index.Set)(nil).Lookup("node")
	if err != nil {
		t.Fatal(err)
	}
	def = index.Bind(def, index.Relations{Nodes: index.NodeIndexer{Indexer: nodes.Informers[0].GetIndexer()}})
	if err := pods.AddIndexes(nodeIndex); err != nil {
		t.Fatal(err)
	}
	engineType := pods
	pods, handlers, err := pods.withRelations(t.Context(), true, def)
	t.Cleanup(func() {
		for _, h := range handlers {
			h.remove()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := engineType.Lookup([]index.Selector{{Name: def.Name, Operator: index.Equals, Values: []string{"front"}}}); err == nil {
		t.Errorf("the engine's own type answers %s, want it left without relation indexes", def.Name)
	}
	lookup := func(value string) []string {
		t.Helper()
		objs, err := pods.Lookup([]index.Selector{{Name: def.Name, Operator: index.Equals, Values: []string{value}}})
		if err != nil {
			t.Fatal(err)
		}
		return names(objs)
	}
	if got, want := lookup("front"), []string{"other/web-3", "shop/db-1", "shop/web-1"}; !slices.Equal(got, want) {
		t.Fatalf("Lookup(node.label:tier=front) = %q, want %q", got, want)
	}

	node := fakeNode("node-1")
	node.SetLabels(map[string]string{"tier": "back"})
	s.apply("nodes", node)
	poll(t, "the node cache to see the relabel", func() bool {
		n, _, _ := nodes.GetByKey("node-1")
		a, err := meta.Accessor(n)
		return err == nil && a.GetLabels()["tier"] == "back"
	})
	if got := lookup("back"); len(got) != 0 {
		t.Errorf("before refreshRelations, Lookup(back) = %q, want none", got)
	}
	changes, err := pods.refreshRelations(index.NodeRelation, "node", "node-1")
	if err != nil {
		t.Fatal(err)
	}
	var changed []string
	for _, c := range changes {
		changed = append(changed, c.Key)
		if len(c.Changes) != 1 || !slices.Equal(c.Changes[0].Old, []string{"front"}) || !slices.Equal(c.Changes[0].New, []string{"back"}) {
			t.Errorf("change of %s = %+v, want front → back", c.Key, c.Changes)
		}
	}
	slices.Sort(changed)
	if want := []string{"other/web-3", "shop/db-1", "shop/web-1"}; !slices.Equal(changed, want) {
		t.Errorf("refreshRelations(node-1) changed %q, want %q", changed, want)
	}
	if got := lookup("front"); len(got) != 0 {
		t.Errorf("Lookup(front) = %q, want none: no stale key", got)
	}
	if again, _ := pods.refreshRelations(index.NodeRelation, "node", "node-1"); len(again) != 0 {
		t.Errorf("second refreshRelations = %d changes, want none", len(again))
	}

	s.remove("pods", fakePod("shop", "db-1", "node-1", nil), false)
	poll(t, "the relation index to follow the pod's delete", func() bool {
		counts, err := pods.Count(def.Name)
		return err == nil && counts["back"] == 2
	})
}

// poll waits up to waitLimit for cond, failing the test with what otherwise.
func poll(t *testing.T, what string, cond func() bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), 10*time.Millisecond, waitLimit, true, func(context.Context) (bool, error) { return cond(), nil })
	if err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}
