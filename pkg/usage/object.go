package usage

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/tools/cache"
)

// Of returns the sample of the pod or node obj is: a namespaced object is
// looked up among the pods by namespace and name, a cluster-scoped one among
// the nodes by name. obj is anything with metadata (a typed object, an
// unstructured one, a reduced record), also inside a
// cache.DeletedFinalStateUnknown. ok is false when s is nil, obj has no
// metadata, or the API reported no sample of it (a pod not running yet, a
// node whose kubelet was not scraped).
func (s *Snapshot) Of(obj any) (Sample, bool) {
	if s == nil {
		return Sample{}, false
	}
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return Sample{}, false
	}
	if ns := m.GetNamespace(); ns != "" {
		p, ok := s.Pod(ns, m.GetName())
		return p.Sample, ok
	}
	n, ok := s.Node(m.GetName())
	return n.Sample, ok
}

// Describe says, in one line for stderr, which sample a reader shows: when
// its oldest sample was taken (RFC 3339, UTC), how long before now, and over
// what window the CPU rate was computed, e.g.
//
//	usage as of 2026-11-28T12:00:00Z (7s ago), cpu over 10s windows, from metrics.k8s.io
//
// A snapshot without samples says so.
func (s *Snapshot) Describe(now time.Time) string {
	oldest, _ := s.Span()
	if oldest.IsZero() {
		return "usage: metrics.k8s.io reported no samples"
	}
	var window time.Duration
	for _, p := range s.Pods {
		window = max(window, p.Window)
	}
	for _, n := range s.Nodes {
		window = max(window, n.Window)
	}
	age := now.Sub(oldest).Round(time.Second)
	return fmt.Sprintf("usage as of %s (%s ago), cpu over %s windows, from %s", oldest.UTC().Format(time.RFC3339), age, window, GroupName)
}
