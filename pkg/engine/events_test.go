package engine

import (
	"context"
	"testing"
	"time"

	"go.uber.org/goleak"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func podType() *Type {
	return &Type{Mapping: &meta.RESTMapping{Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"}}}
}

func obj(name, rv string) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv}}
}

func drain(t *testing.T, q *Queue) []*Event {
	t.Helper()
	q.Close()
	var out []*Event
	for {
		e, ok := q.Pop(context.Background())
		if !ok {
			return out
		}
		out = append(out, e)
	}
}

func TestQueueKeepsOrderBelowLimit(t *testing.T) {
	pods := podType()
	q := NewQueue(10)
	q.Push(&Event{Type: Added, Resource: pods, New: obj("a", "1"), Key: "ns/a"})
	q.Push(&Event{Type: Modified, Resource: pods, Old: obj("a", "1"), New: obj("a", "2"), Key: "ns/a"})
	q.Push(&Event{Type: Modified, Resource: pods, Old: obj("a", "2"), New: obj("a", "3"), Key: "ns/a"})
	q.Push(&Event{Type: Deleted, Resource: pods, Old: obj("a", "3"), Key: "ns/a"})
	got := drain(t, q)
	want := []EventType{Added, Modified, Modified, Deleted}
	if len(got) != len(want) {
		t.Fatalf("drained %d events, want %d", len(got), len(want))
	}
	for i, e := range got {
		if e.Type != want[i] || e.Coalesced != 0 {
			t.Errorf("event %d = %s (coalesced %d), want %s (coalesced 0)", i, e.Type, e.Coalesced, want[i])
		}
	}
}

func TestQueueCoalescesUpdatesBeyondLimit(t *testing.T) {
	pods := podType()
	q := NewQueue(2)
	q.Push(&Event{Type: Added, Resource: pods, New: obj("a", "1"), Key: "ns/a"})
	q.Push(&Event{Type: Added, Resource: pods, New: obj("b", "1"), Key: "ns/b"})
	// The queue is full: updates of a and b merge into their pending events.
	q.Push(&Event{Type: Modified, Resource: pods, Old: obj("a", "1"), New: obj("a", "2"), Key: "ns/a"})
	q.Push(&Event{Type: Modified, Resource: pods, Old: obj("a", "2"), New: obj("a", "3"), Key: "ns/a"})
	// A delete is never merged.
	q.Push(&Event{Type: Deleted, Resource: pods, Old: obj("b", "1"), Key: "ns/b"})
	// c has nothing pending, so its update is kept as it came.
	q.Push(&Event{Type: Modified, Resource: pods, Old: obj("c", "1"), New: obj("c", "2"), Key: "ns/c"})

	pending, coalesced := q.Stats()
	if pending != 4 || coalesced != 2 {
		t.Fatalf("Stats() = %d pending, %d coalesced, want 4, 2", pending, coalesced)
	}
	got := drain(t, q)
	if got[0].Type != Added || got[0].Coalesced != 2 || got[0].New.(*metav1.PartialObjectMetadata).ResourceVersion != "3" {
		t.Errorf("first event = %s rv %s coalesced %d, want ADDED rv 3 coalesced 2",
			got[0].Type, got[0].New.(*metav1.PartialObjectMetadata).ResourceVersion, got[0].Coalesced)
	}
	if got[2].Type != Deleted || got[3].Key != "ns/c" {
		t.Errorf("events 3 and 4 = %s %s, %s %s, want DELETED ns/b, MODIFIED ns/c", got[2].Type, got[2].Key, got[3].Type, got[3].Key)
	}
}

func TestQueuePopEndsWithContext(t *testing.T) {
	q := NewQueue(1)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, ok := q.Pop(ctx); ok {
		t.Fatalf("Pop on an empty queue returned an event")
	}
}

func TestEventObject(t *testing.T) {
	old, cur := obj("a", "1"), obj("a", "2")
	tests := []struct {
		ev   *Event
		want interface{}
	}{
		{&Event{Type: Added, New: cur}, cur},
		{&Event{Type: Modified, Old: old, New: cur}, cur},
		{&Event{Type: Deleted, Old: old}, old},
	}
	for _, tt := range tests {
		if got := tt.ev.Object(); got != tt.want {
			t.Errorf("%s event: Object() = %v, want %v", tt.ev.Type, got, tt.want)
		}
	}
}
