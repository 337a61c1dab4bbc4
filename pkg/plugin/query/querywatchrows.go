package query

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/printers"

	"github.com/kubectl-informer/kubectl-informer/pkg/aggregate"
	"github.com/kubectl-informer/kubectl-informer/pkg/columns"
	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/object"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/printing"
	"github.com/kubectl-informer/kubectl-informer/pkg/terminal"
)

// This file holds query -w off a terminal (and --watch-only, and -o json,
// yaml, name and templates anywhere): a row per change, as kubectl get -w
// prints them (k8s.io/kubectl/pkg/cmd/get/get.go, watch).
//
//   - Tables: the answer first, with its header, then a row per change,
//     the header not repeated, deleted objects included (their last
//     state), each row flushed through kubectl's tab writer, which keeps
//     the widths it has seen (printers.GetNewTabWriter), so rows line up
//     with the table above them as kubectl's do. --output-watch-events
//     adds an EVENT column first. An object entering the query of
//     --index or --filter prints as a change (ADDED), one leaving it as
//     DELETED with its state before the change, as the API server's
//     watches of a label selector send them. Several types: a header
//     whenever the columns change.
//   - -o json, yaml, name and templates: each object of the answer, then
//     each changed object, printed alone (json indented, yaml separated by
//     ---); with --output-watch-events, watch events {"type", "object"}.
//   - --group-by and --sum: the grouped table, then, at most every
//     groupRowsInterval, the rows of groups whose count or sums changed;
//     a group that emptied prints with a count of 0.

// groupRowsInterval is the shortest time between two batches of changed
// group rows off a terminal.
const groupRowsInterval = time.Second

// rowPrinter prints the rows of a query off a terminal.
type rowPrinter struct {
	w   *queryWatch
	out *bufio.Writer
	// tabs aligns table rows as kubectl's does, remembering widths.
	tabs interface {
		io.Writer
		Flush() error
	}
	tables     map[*engine.Type]columns.Table
	lastHeader []string
	withKind   bool
	now        time.Time
	// groups are the printed grouped rows, by their key cells.
	groups map[string][]string
	// fleet, in a fleet query -w, is the context whose rows these are:
	// they name it (fleetquerywatch.go).
	fleet *fleetRowsContext
}

// runRows prints the answer (unless --watch-only), then the changes, until
// ctx ends.
func (w *queryWatch) runRows(ctx context.Context, q *engine.Queue) error {
	out := bufio.NewWriterSize(w.printer.out, 64*1024)
	p := &rowPrinter{w: w, out: out, tabs: printers.GetNewTabWriter(out), tables: map[*engine.Type]columns.Table{},
		withKind: w.printer.cfg.showKind || len(w.types) > 1}
	defer out.Flush()
	if w.printer.cfg.grouped() {
		return p.runGroups(ctx, q)
	}
	if !w.o.WatchOnly {
		groups, err := w.o.lookup(ctx, w.types)
		if err != nil {
			return err
		}
		if err := w.printer.sortObjects(groups); err != nil {
			return err
		}
		p.now = time.Now()
		for _, g := range groups {
			for _, obj := range g.objs {
				if err := p.print(ctx, g.t, engine.Added, obj); err != nil {
					return err
				}
			}
		}
		if err := p.flush(); err != nil {
			return err
		}
	}
	for {
		ev, ok := q.Pop(ctx)
		if !ok {
			return p.flush()
		}
		r, changed := w.changes.Classify(ev)
		if err := engines.ExprFatal(w.changes.Guards); err != nil {
			return err
		}
		if !changed {
			continue
		}
		obj := ev.Object()
		if r.Typ == engine.Deleted && ev.Old != nil {
			obj = ev.Old
		}
		p.now = time.Now()
		if err := p.print(ctx, ev.Resource, r.Typ, obj); err != nil {
			return err
		}
		if err := p.tabs.Flush(); err != nil {
			return err
		}
		if pending, _ := q.Stats(); pending == 0 {
			if err := out.Flush(); err != nil {
				return err
			}
		}
	}
}

// flush writes what the tab writer holds, and the buffer.
func (p *rowPrinter) flush() error {
	if err := p.tabs.Flush(); err != nil {
		return err
	}
	return p.out.Flush()
}

// print prints one object, of type t, as what happened to it (typ).
func (p *rowPrinter) print(ctx context.Context, t *engine.Type, typ engine.EventType, obj interface{}) error {
	cfg := p.w.printer.cfg
	if !cfg.out.IsTable() {
		return p.printObject(t, typ, obj)
	}
	var header, row []string
	if cfg.out.Format == "custom-columns" {
		header, row = customColumnsHeader(cfg.out.Columns), nil
		cells, err := customColumnCells(cfg.out.Columns, obj)
		if err != nil {
			return err
		}
		row = cells
	} else {
		table, ok := p.tables[t]
		if !ok {
			table = p.w.printer.tableFor(ctx, t)
			p.tables[t] = table
		}
		header = tableHeader(cfg, t, table)
		var err error
		if row, err = p.w.printer.tableRow(t, table, obj, p.now, cfg.out.Format == "wide", p.withKind); err != nil {
			return err
		}
	}
	if p.w.o.OutputWatchEvents {
		header = append([]string{"EVENT"}, header...)
		row = append([]string{watchEventCell(typ)}, row...)
	}
	if p.fleet != nil {
		header = append([]string{"CONTEXT"}, header...)
		row = append([]string{p.fleet.name}, row...)
	}
	if !cfg.noHeaders && !slices.Equal(header, p.lastHeader) {
		p.writeCells(header)
	}
	p.lastHeader = header
	p.writeCells(row)
	return nil
}

// watchEventCell is the EVENT cell of a row, as kubectl pads it.
func watchEventCell(typ engine.EventType) string {
	switch typ {
	case engine.Added:
		return "ADDED   "
	case engine.Deleted:
		return "DELETED "
	}
	return string(typ)
}

// writeCells writes one line of cells, tab-separated, to the tab writer;
// cells come from the cluster, so control characters are escaped.
func (p *rowPrinter) writeCells(cells []string) {
	for i, c := range cells {
		if i > 0 {
			io.WriteString(p.tabs, "\t")
		}
		io.WriteString(p.tabs, terminal.SanitizeText(c))
	}
	io.WriteString(p.tabs, "\n")
}

// printObject prints obj alone with the -o printer (json, yaml, name,
// templates), as a watch event with --output-watch-events.
func (p *rowPrinter) printObject(t *engine.Type, typ engine.EventType, obj interface{}) error {
	content, err := object.Content(obj)
	if err != nil {
		return err
	}
	u := &unstructured.Unstructured{Object: content}
	if u.GetKind() == "" {
		// Typed objects from the cache carry no apiVersion and kind.
		u = &unstructured.Unstructured{Object: maps(content)}
		u.SetGroupVersionKind(t.Mapping.GroupVersionKind)
	}
	if p.fleet != nil {
		if err := p.printFleetObject(typ, u); err != nil {
			return fmt.Errorf("printing %s %s: %w", t.Name(), printing.ObjectName(obj), err)
		}
		return nil
	}
	var printed runtime.Object = u
	if p.w.o.OutputWatchEvents {
		printed = &metav1.WatchEvent{Type: string(typ), Object: runtime.RawExtension{Object: u}}
	}
	if err := p.w.printer.cfg.out.Printer.PrintObj(printed, p.out); err != nil {
		return fmt.Errorf("printing %s %s: %w", t.Name(), printing.ObjectName(obj), err)
	}
	return nil
}

// maps returns a shallow copy of m, so that setting apiVersion and kind
// does not change a cached object's content.
func maps(m map[string]interface{}) map[string]interface{} {
	c := make(map[string]interface{}, len(m)+2)
	for k, v := range m {
		c[k] = v
	}
	return c
}

// tableHeader is the header of t's table as printTables prints it:
// NAMESPACE unless one namespace is queried, kubectl's columns, -L, LABELS,
// then the queried indexes.
func tableHeader(cfg queryPrintConfig, t *engine.Type, table columns.Table) []string {
	var header []string
	if len(cfg.namespaces) != 1 && t.Namespaced() {
		header = append(header, "NAMESPACE")
	}
	header = append(header, table.Headers(cfg.out.Format == "wide")...)
	for _, key := range cfg.labelColumns {
		parts := strings.Split(key, "/")
		header = append(header, strings.ToUpper(parts[len(parts)-1]))
	}
	if cfg.showLabels {
		header = append(header, "LABELS")
	}
	for _, def := range cfg.indexes {
		header = append(header, strings.ToUpper(def.Name))
	}
	return header
}

// customColumnsHeader is the header of -o custom-columns.
func customColumnsHeader(cols []printing.CustomColumn) []string {
	header := make([]string, len(cols))
	for i, c := range cols {
		header[i] = c.Header
	}
	return header
}

// runGroups prints the grouped table, then the rows of the groups that
// changed, at most every groupRowsInterval.
func (p *rowPrinter) runGroups(ctx context.Context, q *engine.Queue) error {
	if err := p.printGroups(ctx); err != nil {
		return err
	}
	changed := make(chan struct{}, 1)
	go func() {
		for {
			ev, ok := q.Pop(ctx)
			if !ok {
				return
			}
			if _, in := p.w.changes.Classify(ev); in {
				select {
				case changed <- struct{}{}:
				default:
				}
			}
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return p.flush()
		case <-changed:
		}
		if err := p.printGroups(ctx); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return p.flush()
		case <-time.After(groupRowsInterval):
		}
	}
}

// printGroups prints the rows of the grouped table that differ from those
// printed before: all of them, with the header, the first time.
func (p *rowPrinter) printGroups(ctx context.Context) error {
	groups, err := p.w.o.lookup(ctx, p.w.types)
	if err != nil {
		return err
	}
	table, err := p.w.printer.groupTable(groups)
	if err != nil {
		return err
	}
	header, rows := table.Strings()
	keyCells := max(len(p.w.printer.cfg.groupBy), 1)
	first := p.groups == nil
	if first {
		p.groups = map[string][]string{}
		if !p.w.printer.cfg.noHeaders {
			p.writeCells(header)
		}
	}
	seen := map[string]bool{}
	for _, row := range rows {
		key := strings.Join(row[:min(keyCells, len(row))], "\x00")
		seen[key] = true
		if old, ok := p.groups[key]; ok && slices.Equal(old, row) {
			continue
		}
		p.groups[key] = row
		p.writeCells(row)
	}
	var gone []string
	for key := range p.groups {
		if !seen[key] {
			gone = append(gone, key)
		}
	}
	slices.Sort(gone)
	for _, key := range gone {
		row := slices.Clone(p.groups[key])
		for i := keyCells; i < len(row); i++ {
			row[i] = "0"
		}
		delete(p.groups, key)
		p.writeCells(row)
	}
	return p.flush()
}

// groupTable is the grouped table printGroups prints: counted from the
// index when it can be (targetAnswer.groupTable), sorted by --sort-by and
// cut to --top.
func (p queryPrinter) groupTable(groups []typeObjects) (aggregate.Table, error) {
	t, err := (&targetAnswer{p: p, groups: groups}).groupTable()
	if err != nil {
		return aggregate.Table{}, err
	}
	table := t.Table
	if p.cfg.sortBy != "" {
		col, _ := table.Column(p.cfg.sortBy)
		if err := table.SortBy(p.cfg.sortBy, col >= max(len(p.cfg.groupBy), 1)); err != nil {
			return aggregate.Table{}, err
		}
	}
	table.Top(p.cfg.top)
	return table, nil
}
