package targets

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// IsSelection reports whether a --context value selects contexts the fleet
// way: several names joined by commas, or a shell-style pattern (path.Match:
// '*', '?', '[...]', '\\'). A plain name is not: it is a set of one.
func IsSelection(value string) bool {
	return strings.ContainsAny(value, ",*?[\\")
}

// Selection is the contexts a selection names: Names in order, and Missing,
// the plain names that are not in the kubeconfig (each a failure of its
// own, named, while the others are answered).
type Selection struct {
	Names   []string
	Missing []string
}

// Select returns the contexts of available (the kubeconfig's context names)
// that value names, each once: with all, every context, sorted; otherwise
// the comma-separated items of value in order, a pattern item adding its
// matches sorted. A pattern that matches no context, a malformed pattern or
// an empty item is an error naming it; a plain name missing from available
// goes to Missing.
func Select(available []string, value string, all bool) (Selection, error) {
	sorted := slices.Clone(available)
	slices.Sort(sorted)
	if all {
		if value != "" {
			return Selection{}, fmt.Errorf("--all-contexts cannot be combined with --context %q", value)
		}
		if len(sorted) == 0 {
			return Selection{}, fmt.Errorf("--all-contexts: the kubeconfig has no contexts")
		}
		return Selection{Names: sorted}, nil
	}
	var sel Selection
	seen := map[string]bool{}
	add := func(name string, known bool) {
		if seen[name] {
			return
		}
		seen[name] = true
		if known {
			sel.Names = append(sel.Names, name)
		} else {
			sel.Missing = append(sel.Missing, name)
		}
	}
	for _, item := range strings.Split(value, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			return Selection{}, fmt.Errorf("--context %q: empty context name", value)
		}
		if !strings.ContainsAny(item, "*?[\\") {
			_, known := slices.BinarySearch(sorted, item)
			add(item, known)
			continue
		}
		if _, err := path.Match(item, ""); err != nil {
			return Selection{}, fmt.Errorf("--context %q: bad pattern %q: %w", value, item, err)
		}
		matched := false
		for _, name := range sorted {
			if ok, _ := path.Match(item, name); ok {
				matched = true
				add(name, true)
			}
		}
		if !matched {
			return Selection{}, fmt.Errorf("--context %q: pattern %q matches no context of the kubeconfig (contexts: %s)", value, item, strings.Join(sorted, ", "))
		}
	}
	return sel, nil
}
