package plugin

import (
	"context"
	"fmt"
	"io"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// plainIndexes returns defs without the relation indexes (owner-root, selected-by, selects,
// node.label:KEY, node.annotation:KEY, uses, used-by), which the engine adds only after the caches they read
// have synced (engine.StartRelations).
func plainIndexes(defs []index.Definition) []index.Definition {
	var plain []index.Definition
	for _, def := range defs {
		if def.Relation == index.NoRelation {
			plain = append(plain, def)
		}
	}
	return plain
}

// validateRelations checks, without I/O, the values of selectors on relation indexes.
func validateRelations(selectors []index.Selector) error {
	if _, err := index.SelectingKinds(selectors); err != nil {
		return fmt.Errorf("--index %w", err)
	}
	return nil
}

// warnUnreadable says on errOut which related types the relation indexes could not read, and
// so which values they lack.
func warnUnreadable(errOut io.Writer, unreadable []engine.UnreadableRelation) {
	for _, u := range unreadable {
		switch u.Relation {
		case index.OwnerRelation:
			warnOwnersStop(errOut, u.UnreadableType)
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

// warnOwnersStop says on errOut that walks up the owners stop at u, an owner type that could
// not be cached.
func warnOwnersStop(errOut io.Writer, u engine.UnreadableType) {
	fmt.Fprintf(errOut, "Warning: owners stop at %s, which cannot be read: %v\n", u.Name, u.Err)
}

// startRelations has the engine cache what the relation indexes of --where and --group-by read,
// once the watched types have synced (engine.StartRelations), and binds the clauses to them. The
// clauses are evaluated on each event from what the related caches hold then; when a related
// object's change alone changes the relation index values of watched objects, an event naming
// it is pushed to queue for each of them, so they enter or leave the query (see
// eventPrinter.classify). The caller shuts the returned relations down.
func (o *WatchOptions) startRelations(ctx context.Context, eng runningEngine, queue *engine.Queue) (*engine.Relations, error) {
	defs := make([]index.Definition, len(o.print.where), len(o.print.where)+len(o.groupDefs))
	selectors := make([]index.Selector, len(o.print.where))
	for i, w := range o.print.where {
		defs[i], selectors[i] = w.def, w.sel
	}
	defs = append(defs, o.groupDefs...)
	if err := validateRelations(selectors); err != nil {
		return nil, err
	}
	related, err := engine.StartRelations(ctx, eng.Types(), defs, engine.RelationsConfig{
		Related: o.engines.related(o.source), Namespaces: o.namespaces, SyncTimeout: o.SyncTimeout, Selectors: selectors,
		OnRelated: func(t *engine.Type, cause string, changes []engine.RelationChange) {
			for _, c := range changes {
				queue.Push(&engine.Event{Type: engine.Modified, Resource: t, Old: c.Object, New: c.Object, Key: c.Key, Related: c.Changes, Cause: cause})
			}
		},
	})
	if err != nil {
		return nil, err
	}
	warnUnreadable(o.ErrOut, related.Unreadable())
	bound := related.Definitions()
	for i := range o.print.where {
		o.print.where[i].def = bound[i]
	}
	copy(o.groupDefs, bound[len(o.print.where):])
	return related, nil
}
