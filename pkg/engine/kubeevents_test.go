package engine

import (
	"context"
	"slices"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

var eventsMapping = &meta.RESTMapping{
	Resource:         schema.GroupVersionResource{Version: "v1", Resource: "events"},
	GroupVersionKind: schema.GroupVersionKind{Version: "v1", Kind: "Event"},
	Scope:            meta.RESTScopeNamespace,
}

// fakeKubeEvent returns a core/v1 Event about the pod ns/pod with uid, as the server stores it.
func fakeKubeEvent(ns, name, pod, uid, reason, lastTimestamp string) *unstructured.Unstructured {
	ev := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "v1",
		"kind":       "Event",
		"involvedObject": map[string]interface{}{
			"kind": "Pod", "namespace": ns, "name": pod, "uid": uid,
		},
		"reason":        reason,
		"type":          "Warning",
		"message":       reason + " of " + pod,
		"lastTimestamp": lastTimestamp,
	}}
	ev.SetNamespace(ns)
	ev.SetName(name)
	return ev
}

// eventsMapper resolves Pod and, with the APIs given, Event.
func eventsMapper(gvs ...schema.GroupVersion) meta.RESTMapper {
	m := meta.NewDefaultRESTMapper([]schema.GroupVersion{{Version: "v1"}})
	m.Add(schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, meta.RESTScopeNamespace)
	for _, gv := range gvs {
		m.Add(gv.WithKind("Event"), meta.RESTScopeNamespace)
	}
	return m
}

// TestEventRelationsFollowEvents proves the event relation indexes on a following user: an
// Event's arrival gives its pod (matched by UID) the reason, with the Event as the cause, and
// its deletion (the API server's --event-ttl) takes it away; an Event about an earlier pod of
// the same name (another UID) gives the current pod nothing.
func TestEventRelationsFollowEvents(t *testing.T) {
	s := newFakeAPIServer(t)
	web := fakePod("shop", "web-1", "node-1", nil)
	web.SetUID(types.UID("uid-web-1"))
	s.apply("pods", web)
	s.apply("events", fakeKubeEvent("shop", "old", "web-1", "uid-earlier-web-1", "Evicted", "2026-01-02T03:00:00Z"))
	e := startEngine(t, s.clients(t), []*meta.RESTMapping{podsMapping, eventsMapping}, Config{SyncTimeout: waitLimit, FullObjects: true})
	related := &sharedTypes{eng: e, mapper: eventsMapper(schema.GroupVersion{Version: "v1"})}
	pods := e.Types()[0]
	reason, err := (*index.Set)(nil).Lookup("event.reason")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var changed []string
	r, err := StartRelations(t.Context(), []*Type{pods}, []index.Definition{reason}, RelationsConfig{
		Related: related, SyncTimeout: waitLimit,
		OnRelated: func(_ *Type, cause string, changes []RelationChange) {
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
	defer r.Shutdown()
	lookup := func(value string) []string {
		t.Helper()
		objs, err := r.Types()[0].Lookup([]index.Selector{{Name: reason.Name, Operator: index.Equals, Values: []string{value}}})
		if err != nil {
			t.Fatal(err)
		}
		return names(objs)
	}
	if got := lookup("Evicted"); len(got) != 0 {
		t.Errorf("Lookup(event.reason=Evicted) = %q, want none: the event is about another UID", got)
	}
	if r.Events() == nil {
		t.Fatal("Events() = nil, want the cached Events")
	}

	ev := fakeKubeEvent("shop", "web-1.backoff", "web-1", "uid-web-1", "BackOff", "2026-01-02T03:01:00Z")
	s.apply("events", ev)
	poll(t, "web-1 to get BackOff", func() bool { return slices.Equal(lookup("BackOff"), []string{"shop/web-1"}) })
	s.remove("events", ev, false)
	poll(t, "web-1 to lose BackOff", func() bool { return len(lookup("BackOff")) == 0 })
	mu.Lock()
	got := slices.Clone(changed)
	mu.Unlock()
	if want := []string{"event/web-1.backoff shop/web-1", "event/web-1.backoff shop/web-1"}; !slices.Equal(got, want) {
		t.Errorf("OnRelated changes = %q, want %q", got, want)
	}
}

// eventAPITypes are RelatedTypes that serve the engine's Events under both APIs, as an API
// server does (one storage), except core/v1 when coreUnreadable: then as a source holding only
// events.k8s.io Events would. asked records the resources asked for.
type eventAPITypes struct {
	eng            *Engine
	mapper         meta.RESTMapper
	coreUnreadable bool
	asked          []string
}

func (f *eventAPITypes) RESTMapper() meta.RESTMapper { return f.mapper }

func (f *eventAPITypes) Start(_ context.Context, mappings []*meta.RESTMapping, _ Config) (*Each, error) {
	var types []*Type
	var unreadable []UnreadableType
	for _, m := range mappings {
		f.asked = append(f.asked, m.Resource.GroupResource().String())
		if m.Resource.Group == "" && f.coreUnreadable {
			unreadable = append(unreadable, UnreadableType{Name: "events", Err: context.DeadlineExceeded})
			continue
		}
		types = append(types, f.eng.Types()[1])
	}
	return NewEach(types, unreadable, nil), nil
}

// TestEventRelationsReadOneAPI checks which Event API the relations read: core/v1 when it can be
// read (and only it: both APIs serve the same events), events.k8s.io/v1 when it cannot, and
// none, reported as unreadable, when neither can.
func TestEventRelationsReadOneAPI(t *testing.T) {
	s := newFakeAPIServer(t)
	web := fakePod("shop", "web-1", "node-1", nil)
	web.SetUID(types.UID("uid-web-1"))
	s.apply("pods", web)
	s.apply("events", fakeKubeEvent("shop", "web-1.backoff", "web-1", "uid-web-1", "BackOff", "2026-01-02T03:01:00Z"))
	e := startEngine(t, s.clients(t), []*meta.RESTMapping{podsMapping, eventsMapping}, Config{SyncTimeout: waitLimit, FullObjects: true})
	pods := e.Types()[0]
	reason, err := (*index.Set)(nil).Lookup("event.reason")
	if err != nil {
		t.Fatal(err)
	}
	core, eventsAPI := schema.GroupVersion{Version: "v1"}, schema.GroupVersion{Group: "events.k8s.io", Version: "v1"}
	tests := []struct {
		name           string
		apis           []schema.GroupVersion
		wantAsked      []string
		wantPods       []string
		wantUnreadable int
	}{
		{"both served: core/v1 only", []schema.GroupVersion{core, eventsAPI}, []string{"events"}, []string{"shop/web-1"}, 0},
		{"only events.k8s.io served", []schema.GroupVersion{eventsAPI}, []string{"events.events.k8s.io"}, []string{"shop/web-1"}, 0},
		{"neither served", nil, nil, nil, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			related := &eventAPITypes{eng: e, mapper: eventsMapper(tt.apis...), coreUnreadable: !slices.Contains(tt.apis, core)}
			r, err := StartRelations(t.Context(), []*Type{pods}, []index.Definition{reason}, RelationsConfig{Related: related, SyncTimeout: waitLimit})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Shutdown()
			if got := related.asked; !slices.Equal(got, tt.wantAsked) {
				t.Errorf("asked for %q, want %q", got, tt.wantAsked)
			}
			objs, err := r.Types()[0].Lookup([]index.Selector{{Name: reason.Name, Operator: index.Equals, Values: []string{"BackOff"}}})
			if err != nil {
				t.Fatal(err)
			}
			if got := names(objs); !slices.Equal(got, tt.wantPods) {
				t.Errorf("Lookup(event.reason=BackOff) = %q, want %q", got, tt.wantPods)
			}
			if got := len(r.Unreadable()); got != tt.wantUnreadable {
				t.Errorf("Unreadable() = %v, want %d", r.Unreadable(), tt.wantUnreadable)
			}
		})
	}
}
