package engine

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// sharedTypes are RelatedTypes as a warm cache's pool gives them: types of one engine that
// other users share, leased (held counts the leases) and never stopped by a lease's end.
type sharedTypes struct {
	eng    *Engine
	mapper meta.RESTMapper
	held   atomic.Int32
}

func (s *sharedTypes) RESTMapper() meta.RESTMapper { return s.mapper }

func (s *sharedTypes) Start(_ context.Context, mappings []*meta.RESTMapping, _ Config) (*Each, error) {
	var types []*Type
	for _, m := range mappings {
		for _, t := range s.eng.Types() {
			if t.Mapping.Resource == m.Resource {
				types = append(types, t)
			}
		}
	}
	s.held.Add(1)
	return NewEach(types, nil, func() { s.held.Add(-1) }), nil
}

func podsAndNodesMapper() meta.RESTMapper {
	m := meta.NewDefaultRESTMapper([]schema.GroupVersion{{Version: "v1"}})
	m.Add(schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, meta.RESTScopeNamespace)
	m.Add(schema.GroupVersionKind{Version: "v1", Kind: "Node"}, meta.RESTScopeRoot)
	return m
}

// TestStartRelationsOnSharedInformers runs two users' relations on one engine's informers, as
// a warm cache would: each has relation indexes of its own (the engine's types have none), a
// node's relabel reaches a following user as changes of the pods on it, and after Shutdown
// its handlers are gone from the shared informers and its leases released.
func TestStartRelationsOnSharedInformers(t *testing.T) {
	s := newFakeAPIServer(t)
	seedShop(s)
	e := startEngine(t, s.clients(t), []*meta.RESTMapping{podsMapping, nodesMapping}, Config{SyncTimeout: waitLimit, FullObjects: true})
	related := &sharedTypes{eng: e, mapper: podsAndNodesMapper()}
	pods := e.Types()[0]
	tier, err := (*index.Set)(nil).Lookup("node.label:tier")
	if err != nil {
		t.Fatal(err)
	}
	app, err := (*index.Set)(nil).Lookup("label:app")
	if err != nil {
		t.Fatal(err)
	}

	var mu sync.Mutex
	var changed []string
	var calls atomic.Int32
	following, err := StartRelations(t.Context(), []*Type{pods}, []index.Definition{app, tier}, RelationsConfig{
		Related: related, SyncTimeout: waitLimit,
		OnRelated: func(typ *Type, cause string, changes []RelationChange) {
			calls.Add(1)
			if typ != pods {
				t.Errorf("OnRelated got type %p, want the type given, %p", typ, pods)
			}
			mu.Lock()
			defer mu.Unlock()
			for _, c := range changes {
				changed = append(changed, cause+" "+c.Key)
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	oneShot, err := StartRelations(t.Context(), []*Type{pods}, []index.Definition{tier}, RelationsConfig{Related: related, SyncTimeout: waitLimit})
	if err != nil {
		t.Fatal(err)
	}
	if defs := following.Definitions(); len(defs) != 2 || defs[0].Name != app.Name || defs[1].Name != tier.Name {
		t.Errorf("Definitions() = %v, want label:app and node.label:tier in order", defs)
	}
	if got := related.held.Load(); got != 2 {
		t.Errorf("leases held = %d, want 2 (one node type per user)", got)
	}
	lookup := func(typ *Type, value string) []string {
		t.Helper()
		objs, err := typ.Lookup([]index.Selector{{Name: tier.Name, Operator: index.Equals, Values: []string{value}}})
		if err != nil {
			t.Fatal(err)
		}
		return names(objs)
	}
	front := []string{"other/web-3", "shop/db-1", "shop/web-1"}
	for _, r := range []*Relations{following, oneShot} {
		if got := lookup(r.Types()[0], "front"); !slices.Equal(got, front) {
			t.Errorf("Lookup(tier=front) = %q, want %q", got, front)
		}
	}
	if _, err := pods.Lookup([]index.Selector{{Name: tier.Name, Operator: index.Equals, Values: []string{"front"}}}); err == nil {
		t.Errorf("the shared type answers %s, want it left without relation indexes", tier.Name)
	}

	node := fakeNode("node-1")
	node.SetLabels(map[string]string{"tier": "back"})
	s.apply("nodes", node)
	poll(t, "the follower to see node-1's pods move", func() bool {
		return slices.Equal(lookup(following.Types()[0], "back"), front)
	})
	mu.Lock()
	got := slices.Sorted(slices.Values(changed))
	mu.Unlock()
	if want := []string{"node/node-1 other/web-3", "node/node-1 shop/db-1", "node/node-1 shop/web-1"}; !slices.Equal(got, want) {
		t.Errorf("OnRelated changes = %q, want %q", got, want)
	}
	if got := lookup(oneShot.Types()[0], "front"); !slices.Equal(got, front) {
		t.Errorf("the one-shot user's Lookup(tier=front) = %q, want %q: its values are those of its start", got, front)
	}

	following.Shutdown()
	oneShot.Shutdown()
	if got := related.held.Load(); got != 0 {
		t.Errorf("leases held after Shutdown = %d, want 0", got)
	}
	before := calls.Load()
	node.SetLabels(map[string]string{"tier": "front"})
	s.apply("nodes", node)
	poll(t, "the node cache to see the second relabel", func() bool {
		n, _, _ := e.Types()[1].GetByKey("node-1")
		a, err := meta.Accessor(n)
		return err == nil && a.GetLabels()["tier"] == "front"
	})
	time.Sleep(50 * time.Millisecond)
	if after := calls.Load(); after != before {
		t.Errorf("OnRelated called %d times after Shutdown, want none", after-before)
	}
}

// TestStartRelationsWithoutRelationIndexes starts nothing and hands the types back.
func TestStartRelationsWithoutRelationIndexes(t *testing.T) {
	pods := &Type{Mapping: podsMapping}
	app, err := (*index.Set)(nil).Lookup("label:app")
	if err != nil {
		t.Fatal(err)
	}
	r, err := StartRelations(t.Context(), []*Type{pods}, []index.Definition{app}, RelationsConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Shutdown()
	if got := r.Types(); len(got) != 1 || got[0] != pods {
		t.Errorf("Types() = %v, want the types given", got)
	}
	if len(r.Unreadable()) != 0 {
		t.Errorf("Unreadable() = %v, want none", r.Unreadable())
	}
}
