package plugin

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/kubectl-informer/kubectl-informer/pkg/aggregate"
	"github.com/kubectl-informer/kubectl-informer/pkg/fleet"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// fleetAnswer is one context's answer to a fleet query: its printer (its
// print config, with the relationship indexes bound to its own caches) and
// its objects per type, read at sync. shutdown stops its informers once the
// merged answer is printed.
//
// A grouped query (--group-by, --sum) keeps instead the context's grouped
// table, built as soon as the context is answered (groupNow): its informers
// are stopped and its objects dropped then, while other contexts still
// list.
type fleetAnswer struct {
	name     string
	p        queryPrinter
	groups   []typeObjects
	stderr   *lockedWriter // over a *bytes.Buffer
	shutdown func()

	// grouped is set once groupNow has built table (or failed with
	// tableErr, returned when the merged table is printed).
	grouped  bool
	table    fleet.ContextTable
	tableErr error
}

// contextTable returns a's objects grouped by the --group-by indexes other
// than context, with the --sum measures: the table groupNow built, or one
// built from a's objects now.
func (a *fleetAnswer) contextTable() (fleet.ContextTable, error) {
	if a.grouped {
		return a.table, a.tableErr
	}
	cfg := a.p.cfg
	grouper := aggregate.NewGrouper(cfg.groupKeys(), cfg.measures)
	keyValues := make([][]string, len(cfg.groupBy))
	for _, g := range a.groups {
		for _, obj := range g.objs {
			for i, def := range cfg.groupBy {
				keyValues[i] = index.Values(def, obj)
			}
			if err := grouper.Add(obj, keyValues); err != nil {
				return fleet.ContextTable{}, fmt.Errorf("context %s: --sum: %w", a.name, err)
			}
		}
	}
	return fleet.ContextTable{Context: a.name, Keys: len(cfg.groupBy), Table: grouper.Table()}, nil
}

// groupNow builds a's grouped table in the context's own goroutine, then
// stops its informers and drops its objects: the merged table of a grouped
// query reads nothing else of a context.
func (a *fleetAnswer) groupNow() {
	a.table, a.tableErr = a.contextTable()
	a.grouped = true
	a.groups = nil
	a.shutdown()
	a.shutdown = func() {}
}

// flushStderr writes what the context's query wrote on stderr (warnings
// about unreadable relations, expression errors), each line prefixed with
// the context's name.
func (a *fleetAnswer) flushStderr(w io.Writer) {
	a.stderr.mu.Lock()
	text := a.stderr.w.(*bytes.Buffer).String()
	a.stderr.w.(*bytes.Buffer).Reset()
	a.stderr.mu.Unlock()
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		if line != "" {
			fmt.Fprintf(w, "context %s: %s\n", a.name, line)
		}
	}
}

// collect does what Run does up to printing, for one context of a fleet
// query: resolve the types, start and sync the engine and the relations,
// and look the answer up. It records in a what the merged print reads and
// how to stop the informers, which stay up until then.
func (o *QueryOptions) collect(ctx context.Context, a *fleetAnswer) error {
	l, err := o.lookUpAnswer(ctx)
	if err != nil {
		return err
	}
	a.shutdown = l.shutdown
	l.report()
	a.groups = l.groups
	a.p = queryPrinter{cfg: l.cfg, out: o.Out, errOut: o.ErrOut, source: o.source}
	return nil
}
