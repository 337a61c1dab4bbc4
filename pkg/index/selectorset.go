package index

import (
	"sort"
	"sync"
)

// SelectorSet is a PodSelectors its owner keeps current: Set records an object's pod selector
// and Delete forgets it, each reporting whether the selectors of the object's namespace
// changed, so that the owner recomputes selected-by for that namespace's pods only then. It is
// safe for concurrent use.
type SelectorSet struct {
	mu          sync.RWMutex
	byNamespace map[string]map[string]PodSelector // namespace → "Kind/Name" → selector
	// sorted holds each namespace's selectors as PodSelectors returns them, rebuilt when the
	// namespace's selectors change: selected-by reads them once per pod.
	sorted map[string][]PodSelector
}

// NewSelectorSet returns a set holding the selectors of objs (see SelectorOf); objects that
// are not of a selector kind, or whose selector does not parse, are left out.
func NewSelectorSet(objs []interface{}) *SelectorSet {
	s := &SelectorSet{byNamespace: map[string]map[string]PodSelector{}, sorted: map[string][]PodSelector{}}
	for _, obj := range objs {
		s.put(obj)
	}
	for namespace := range s.byNamespace {
		s.resort(namespace)
	}
	return s
}

// PodSelectors implements PodSelectors; the selectors are sorted by kind, then name. The
// caller must not change the slice.
func (s *SelectorSet) PodSelectors(namespace string) []PodSelector {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.sorted[namespace]
}

// resort rebuilds the sorted selectors of namespace; s.mu must be held for writing.
func (s *SelectorSet) resort(namespace string) {
	named := s.byNamespace[namespace]
	if len(named) == 0 {
		delete(s.byNamespace, namespace)
		delete(s.sorted, namespace)
		return
	}
	out := make([]PodSelector, 0, len(named))
	for _, sel := range named {
		out = append(out, sel)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Kind != out[j].Kind {
			return out[i].Kind < out[j].Kind
		}
		return out[i].Name < out[j].Name
	})
	s.sorted[namespace] = out
}

// Set records obj's pod selector. It returns obj's selector (its kind, namespace and name) and
// whether the set changed: obj is new, or its selector selects other labels than before. It
// returns false for an object that is not of a selector kind or whose selector does not
// parse, and leaves the set as it was.
func (s *SelectorSet) Set(obj interface{}) (PodSelector, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sel, changed := s.put(obj)
	if changed {
		s.resort(sel.Namespace)
	}
	return sel, changed
}

// put is Set without sorting; s.mu must be held for writing (or s not yet shared).
func (s *SelectorSet) put(obj interface{}) (PodSelector, bool) {
	sel, ok := SelectorOf(obj)
	if !ok {
		return PodSelector{}, false
	}
	key := sel.Kind + "/" + sel.Name
	named := s.byNamespace[sel.Namespace]
	if named == nil {
		named = map[string]PodSelector{}
		s.byNamespace[sel.Namespace] = named
	}
	if old, had := named[key]; had && old.Selector.String() == sel.Selector.String() {
		return sel, false
	}
	named[key] = sel
	return sel, true
}

// Delete forgets obj's pod selector. It returns obj's selector and whether the set held one.
func (s *SelectorSet) Delete(obj interface{}) (PodSelector, bool) {
	sel, ok := SelectorOf(obj)
	if !ok {
		return PodSelector{}, false
	}
	key := sel.Kind + "/" + sel.Name
	s.mu.Lock()
	defer s.mu.Unlock()
	named := s.byNamespace[sel.Namespace]
	if _, had := named[key]; !had {
		return sel, false
	}
	delete(named, key)
	s.resort(sel.Namespace)
	return sel, true
}
