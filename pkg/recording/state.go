package recording

import (
	"errors"
	"io"
	"sort"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
)

// StateAt reads r's events up to the first one recorded after at and
// returns the objects as they were at at (every event with Time <= at
// applied), sorted by type index, namespace and name. It consumes r. A
// truncated recording answers from its complete events (r.Truncated
// says so).
func StateAt(r *Reader, at time.Time) ([]*unstructured.Unstructured, error) {
	type entry struct {
		typeIndex int
		obj       *unstructured.Unstructured
	}
	live := map[key]entry{}
	for {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if ev.Time.After(at) {
			break
		}
		k := key{typeIndex: ev.TypeIndex, namespace: ev.Object.GetNamespace(), name: ev.Object.GetName(), uid: ev.Object.GetUID()}
		if ev.Type == watch.Deleted {
			delete(live, k)
		} else {
			live[k] = entry{ev.TypeIndex, ev.Object}
		}
	}
	entries := make([]entry, 0, len(live))
	for _, e := range live {
		entries = append(entries, e)
	}
	sort.Slice(entries, func(i, j int) bool {
		a, b := entries[i], entries[j]
		if a.typeIndex != b.typeIndex {
			return a.typeIndex < b.typeIndex
		}
		if a.obj.GetNamespace() != b.obj.GetNamespace() {
			return a.obj.GetNamespace() < b.obj.GetNamespace()
		}
		if a.obj.GetName() != b.obj.GetName() {
			return a.obj.GetName() < b.obj.GetName()
		}
		return a.obj.GetUID() < b.obj.GetUID()
	})
	state := make([]*unstructured.Unstructured, len(entries))
	for i, e := range entries {
		state[i] = e.obj
	}
	return state, nil
}

// Summary is what a whole recording holds.
type Summary struct {
	// Events and Objects count the events and the distinct objects
	// (keys) they hold; Initial counts the events of the initial state.
	Events, Objects, Initial int
	// First and Last are the times of the first and the last event; both
	// are zero for a recording without events.
	First, Last time.Time
	// Truncated says the file was cut after its last complete event.
	Truncated bool
}

// Summarize reads r to its end and returns what it held. It consumes r.
func Summarize(r *Reader) (Summary, error) {
	var s Summary
	seen := map[key]bool{}
	for {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			s.Truncated = r.Truncated()
			return s, nil
		}
		if err != nil {
			return s, err
		}
		if s.Events == 0 {
			s.First = ev.Time
		}
		s.Events++
		s.Last = ev.Time
		if ev.Initial {
			s.Initial++
		}
		k := key{typeIndex: ev.TypeIndex, namespace: ev.Object.GetNamespace(), name: ev.Object.GetName(), uid: ev.Object.GetUID()}
		if !seen[k] {
			seen[k] = true
			s.Objects++
		}
	}
}
