package query

import (
	"context"
	"fmt"

	"github.com/kubectl-informer/kubectl-informer/pkg/aggregate"
	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/fleet"
)

// targetAnswer is one target's answer to a query: its print config
// (the relationship indexes bound to its own caches) and its
// objects per type, read at sync. shutdown stops its informers once the
// answers are printed.
//
// A grouped query (--group-by, --sum) keeps instead the target's grouped
// table, built as soon as the target is answered (groupNow): its informers
// are stopped and its objects dropped then, while other targets still
// list.
type targetAnswer struct {
	// name is the target's context; several says whether it is one of
	// several targets, whose errors and stderr lines name it.
	name     string
	several  bool
	cfg      queryPrintConfig
	groups   []typeObjects
	shutdown func()

	// grouped is set once groupNow has built table (or failed with
	// tableErr, returned when the table is printed).
	grouped  bool
	table    fleet.ContextTable
	tableErr error
}

// named returns err naming the answer's context when it is one of several.
func (a *targetAnswer) named(err error) error {
	if !a.several || err == nil {
		return err
	}
	return fmt.Errorf("context %s: %w", a.name, err)
}

// groupTable returns a's objects grouped by the --group-by indexes other
// than context, with the --sum measures: the table groupNow built, or one
// built from a's objects now. One --group-by index without --sum, --index
// or --filter counts from the index itself, without reading objects.
func (a *targetAnswer) groupTable() (fleet.ContextTable, error) {
	if a.grouped {
		return a.table, a.tableErr
	}
	cfg := a.cfg
	whole := true
	for _, g := range a.groups {
		whole = whole && g.whole
	}
	var (
		table aggregate.Table
		err   error
	)
	if len(cfg.groupBy) == 1 && len(cfg.measures) == 0 && whole {
		types := make([]*engine.Type, len(a.groups))
		for i, g := range a.groups {
			types[i] = g.t
		}
		table, err = a.cfg.countTable(types)
	} else {
		table, err = a.cfg.sumTable(a.groups)
	}
	if err != nil {
		return fleet.ContextTable{}, a.named(err)
	}
	return fleet.ContextTable{Context: a.name, Keys: len(cfg.groupBy), Table: table}, nil
}

// groupNow builds a's grouped table in the target's own goroutine, then
// stops its informers and drops its objects: the grouped table reads
// nothing else of a target. A table that came as data (a warm cache's)
// is kept as it is.
func (a *targetAnswer) groupNow() {
	if a.grouped {
		return
	}
	a.table, a.tableErr = a.groupTable()
	a.grouped = true
	a.groups = nil
	a.shutdown()
	a.shutdown = func() {}
}

// collect does what a one-shot query does up to printing, for one target:
// resolve the types, start and sync the engine and the relations, and look
// the answer up. It records in a what the print reads and how to stop the
// informers, which stay up until then (also after an error).
func (t *queryTarget) collect(ctx context.Context, a *targetAnswer) error {
	r, err := t.start(ctx, nil, nil)
	if err != nil {
		return err
	}
	a.shutdown = r.stop
	if a.groups, err = r.lookup(ctx); err != nil {
		return err
	}
	r.report()
	a.cfg = r.cfg
	return nil
}
