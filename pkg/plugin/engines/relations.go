package engines

import (
	"fmt"
	"io"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// PlainIndexes returns defs without the relation indexes (owner-root, selected-by, selects,
// node.label:KEY, node.annotation:KEY, uses, used-by), which the engine adds only after the caches they read
// have synced (engine.StartRelations).
func PlainIndexes(defs []index.Definition) []index.Definition {
	var plain []index.Definition
	for _, def := range defs {
		if def.Relation == index.NoRelation {
			plain = append(plain, def)
		}
	}
	return plain
}

// ValidateRelations checks, without I/O, the values of selectors on relation indexes.
func ValidateRelations(selectors []index.Selector) error {
	if _, err := index.SelectingKinds(selectors); err != nil {
		return fmt.Errorf("--index %w", err)
	}
	return nil
}

// WarnUnreadable says on errOut which related types the relation indexes could not read, and
// so which values they lack.
func WarnUnreadable(errOut io.Writer, unreadable []engine.UnreadableRelation) {
	for _, u := range unreadable {
		switch u.Relation {
		case index.OwnerRelation:
			WarnOwnersStop(errOut, u.UnreadableType)
		case index.SelectorRelation:
			if u.Unresolved {
				fmt.Fprintf(errOut, "Warning: selected-by does not read %s, which the server does not serve: %v\n", u.Name, u.Err)
			} else {
				fmt.Fprintf(errOut, "Warning: selected-by does not read %s, which cannot be read: %v\n", u.Name, u.Err)
			}
		case index.NodeRelation:
			fmt.Fprintf(errOut, "Warning: node.label and node.annotation have no values: %s cannot be read: %v\n", u.Name, u.Err)
		case index.PodRelation:
			fmt.Fprintf(errOut, "Warning: selects has no values: %s cannot be read: %v\n", u.Name, u.Err)
		case index.EventRelation:
			fmt.Fprintf(errOut, "Warning: event.reason, event.type, event.message and --show-events have no values: %s cannot be read: %v\n", u.Name, u.Err)
		case index.UsesRelation, index.UsedByRelation:
			fmt.Fprintf(errOut, "Warning: uses and used-by do not read %s, which cannot be read: %v\n", u.Name, u.Err)
		}
	}
}

// WarnOwnersStop says on errOut that walks up the owners stop at u, an owner type that could
// not be cached.
func WarnOwnersStop(errOut io.Writer, u engine.UnreadableType) {
	fmt.Fprintf(errOut, "Warning: owners stop at %s, which cannot be read: %v\n", u.Name, u.Err)
}
