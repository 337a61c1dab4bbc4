package targets

import (
	"fmt"
	"strings"

	"github.com/kubectl-informer/kubectl-informer/pkg/fleet"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// ContextIndex is a command's selectors and --group-by keys with the
// built-in context index (fleet.ContextIndex) taken out: its selectors
// choose the targets, its place among the keys is where the merged table
// shows the context, and the rest is what each target answers.
type ContextIndex struct {
	// Selectors are the selectors of the context index.
	Selectors []index.Selector
	// Others are the other selectors, as given; GroupBy the other keys,
	// trimmed.
	Others  []string
	GroupBy []string
	// At is the position of context among the --group-by keys, -1 when
	// it is not one.
	At int
}

// SplitContextIndex takes the context index out of selectors (the values
// of flag, --index or --where) and groupBy.
func SplitContextIndex(flag string, selectors, groupBy []string) (ContextIndex, error) {
	c := ContextIndex{At: -1}
	for _, s := range selectors {
		sel, err := index.ParseSelector(flag, s)
		if err != nil {
			return c, err
		}
		if sel.Name == fleet.ContextIndex {
			c.Selectors = append(c.Selectors, sel)
			continue
		}
		c.Others = append(c.Others, s)
	}
	for _, g := range groupBy {
		if g = strings.TrimSpace(g); g != fleet.ContextIndex {
			c.GroupBy = append(c.GroupBy, g)
			continue
		}
		if c.At >= 0 {
			return c, fmt.Errorf("--group-by %s: named twice", fleet.ContextIndex)
		}
		c.At = len(c.GroupBy)
	}
	return c, nil
}

// Several reports whether c names the context index: the targets are then
// a selection, even of one context.
func (c ContextIndex) Several() bool { return len(c.Selectors) > 0 || c.At >= 0 }

// Matches reports whether context name passes every selector of c.
func (c ContextIndex) Matches(name string) bool {
	for _, s := range c.Selectors {
		if !s.Matches([]string{name}) {
			return false
		}
	}
	return true
}
