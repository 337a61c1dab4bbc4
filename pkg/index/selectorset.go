package index

import (
	"sort"
	"sync"
)

// SelectorSet is a SelectorGraph its owner keeps current: Set records an object's pod selector
// and Delete forgets it, each reporting whether the selectors of the object's namespace
// changed, so that the owner recomputes selected-by for that namespace's pods only then. It is
// safe for concurrent use.
type SelectorSet struct {
	mu          sync.RWMutex
	byNamespace map[string]map[string]PodSelector // namespace → "Kind/Name" → selector
}

// NewSelectorSet returns a set holding the selectors of objs (see SelectorOf); objects that
// are not of a selector kind, or whose selector does not parse, are left out.
func NewSelectorSet(objs []interface{}) *SelectorSet {
	s := &SelectorSet{byNamespace: map[string]map[string]PodSelector{}}
	for _, obj := range objs {
		s.Set(obj)
	}
	return s
}

// PodSelectors implements SelectorGraph; the selectors are sorted by kind, then name.
func (s *SelectorSet) PodSelectors(namespace string) []PodSelector {
	s.mu.RLock()
	defer s.mu.RUnlock()
	named := s.byNamespace[namespace]
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
	return out
}

// Set records obj's pod selector. It returns obj's selector (its kind, namespace and name) and
// whether the set changed: obj is new, or its selector selects other labels than before. It
// returns false for an object that is not of a selector kind or whose selector does not
// parse, and leaves the set as it was.
func (s *SelectorSet) Set(obj interface{}) (PodSelector, bool) {
	sel, ok := SelectorOf(obj)
	if !ok {
		return PodSelector{}, false
	}
	key := sel.Kind + "/" + sel.Name
	s.mu.Lock()
	defer s.mu.Unlock()
	named := s.byNamespace[sel.Namespace]
	if named == nil {
		named = map[string]PodSelector{}
		s.byNamespace[sel.Namespace] = named
	}
	old, had := named[key]
	named[key] = sel
	return sel, !had || old.Selector.String() != sel.Selector.String()
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
	if len(named) == 0 {
		delete(s.byNamespace, sel.Namespace)
	}
	return sel, true
}
