package index

import (
	"fmt"
	"strings"
)

// Selector is NAME=VALUE from --index (query) or --where (watch): the objects whose index Name
// has the indexed value Value.
type Selector struct {
	Name  string
	Value string
}

// String returns the selector as the user writes it, NAME=VALUE.
func (s Selector) String() string {
	return s.Name + "=" + s.Value
}

// ParseSelector parses "NAME=VALUE", splitting on the first '=' so that VALUE may contain '='.
// flag names the flag the value came from, with or without its leading dashes ("--index" or
// "index"); errors start with it: `--index needs NAME=VALUE, got "node"`.
//
// NAME must not be empty; whether it is a known index is for Set.Lookup to say. VALUE may be
// empty: it selects the objects whose indexed value is the empty string. In particular the node
// index gives every unscheduled pod the value "", so `--index node=` finds pending pods.
func ParseSelector(flag, s string) (Selector, error) {
	name, value, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return Selector{}, fmt.Errorf("%s needs NAME=VALUE, got %q", flagName(flag), s)
	}
	return Selector{Name: name, Value: value}, nil
}

// flagName returns flag with its leading dashes, "--index" for "index".
func flagName(flag string) string {
	switch {
	case flag == "":
		return "flag"
	case strings.HasPrefix(flag, "-"):
		return flag
	default:
		return "--" + flag
	}
}
