package query

import (
	"fmt"
	"io"
	"slices"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/printers"

	"github.com/kubectl-informer/kubectl-informer/pkg/aggregate"
	"github.com/kubectl-informer/kubectl-informer/pkg/columns"
	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/fleet"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/object"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/printing"
)

// answerPrinter prints the answers of a query's targets as one answer: the
// targets in the order they were selected, each target's objects in its
// own list order, then in kubectl's row order for the type, unless
// --sort-by orders them all. The first answer's print config gives the
// format. A set of one target (several false) prints exactly as kubectl
// prints one cluster's answer; several targets add where each row came
// from:
//
//   - tables: a first column CONTEXT;
//   - -o name: CONTEXT/TYPE/NAME; a context name may contain '/', the last
//     two parts are the type and the name;
//   - -o json, yaml and templates: one v1 List of every target's objects
//     unchanged, and beside items the list contexts (printing.ContextsField);
//   - --group-by/--sum: one grouped table whose counts and sums add up
//     over the targets, with a context key column where --group-by names
//     context (contextAt).
type answerPrinter struct {
	answers   []*targetAnswer
	several   bool
	contextAt int
	out       io.Writer
	errOut    io.Writer
}

// answerEntry is one object of an answer with where it came from, and
// its type's printer columns.
type answerEntry struct {
	a       *targetAnswer
	t       *engine.Type
	obj     interface{}
	columns []columns.PrinterColumn
}

// Table is a table as a table output prints it: its header and its rows
// of cells, kubectl's columns, the -L and index columns included.
type Table struct {
	Header []string
	Rows   [][]string
}

// print prints the answers: their grouped table, their tables, or their
// objects in the -o format; that nothing matched on stderr.
func (p answerPrinter) print() error {
	if len(p.answers) == 0 {
		fmt.Fprintln(p.errOut, "No resources found")
		return nil
	}
	first := p.answers[0].cfg
	switch {
	case first.grouped() || p.contextAt >= 0:
		return p.printGroups()
	case first.out.IsTable():
		return p.writeTables(p.tables())
	}
	types, err := p.sortedTypes()
	if err != nil {
		return err
	}
	return p.writeObjects(types)
}

// sortedTypes returns the answers' objects per type (mergeTypes), each
// type's ordered by --sort-by.
func (p answerPrinter) sortedTypes() ([][]answerEntry, error) {
	types := p.mergeTypes()
	for _, entries := range types {
		if err := p.sortEntries(entries); err != nil {
			return nil, err
		}
	}
	return types, nil
}

// tables returns the tables a table output prints of the answers, none
// when no object matched: one per type as kubectl get prints them
// (queryPrintConfig.tableHeader, queryPrintConfig.tableRow), or one of the -o
// custom-columns columns for every type. Rows are in kubectl's order for
// the type where it has one and --sort-by says none. Names carry their
// kind when several types print or with --show-kind. Each row is made by
// its own target's print config, with the table of the type's first target.
func (p answerPrinter) tables() ([]Table, error) {
	types, err := p.sortedTypes()
	if err != nil || len(types) == 0 {
		return nil, err
	}
	first := p.answers[0].cfg
	withKind := first.showKind || len(types) > 1
	now := first.ages.Now()
	var tables []Table
	for _, entries := range types {
		t0 := entries[0]
		table := t0.a.cfg.tableOf(t0.t, t0.columns)
		if table.Compare != nil && first.sortBy == "" {
			entries = slices.Clone(entries)
			slices.SortStableFunc(entries, func(a, b answerEntry) int {
				ra, okA := a.obj.(runtime.Object)
				rb, okB := b.obj.(runtime.Object)
				if !okA || !okB {
					return 0
				}
				return table.Compare(ra, rb)
			})
		}
		if len(tables) == 0 || first.out.Format != "custom-columns" {
			tables = append(tables, Table{Header: p.contextColumn("CONTEXT", first.tableHeader(t0.t, table))})
		}
		rows := &tables[len(tables)-1].Rows
		for _, e := range entries {
			row, err := e.a.cfg.tableRow(e.t, table, e.obj, now, withKind)
			if err != nil {
				return nil, e.a.named(err)
			}
			*rows = append(*rows, p.contextColumn(e.a.name, row))
		}
	}
	return tables, nil
}

// writeTables writes tables, a blank line between two, or says on stderr
// that nothing matched when there are none; it returns err, when set, and
// writes nothing.
func (p answerPrinter) writeTables(tables []Table, err error) error {
	cfg := p.answers[0].cfg
	if err != nil {
		return err
	}
	if len(tables) == 0 {
		cfg.printNotFound(p.errOut)
		return nil
	}
	for n, t := range tables {
		if n > 0 {
			fmt.Fprintln(p.out)
		}
		if err := printing.WriteTable(p.out, t.Header, t.Rows, cfg.noHeaders); err != nil {
			return err
		}
	}
	return nil
}

// mergeTypes returns every answer's objects per type, the types in the
// order they were asked, the targets in the order they were selected.
// Types with no object are left out.
func (p answerPrinter) mergeTypes() [][]answerEntry {
	var order []string
	byType := map[string][]answerEntry{}
	for _, a := range p.answers {
		for _, g := range a.groups {
			key := g.t.Mapping.Resource.GroupResource().String()
			if _, ok := byType[key]; !ok {
				order = append(order, key)
				byType[key] = nil
			}
			for _, obj := range g.objs {
				byType[key] = append(byType[key], answerEntry{a: a, t: g.t, obj: obj, columns: g.columns})
			}
		}
	}
	var types [][]answerEntry
	for _, key := range order {
		if len(byType[key]) > 0 {
			types = append(types, byType[key])
		}
	}
	return types
}

// sortEntries orders one type's entries by --sort-by; ties keep their
// order.
func (p answerPrinter) sortEntries(entries []answerEntry) error {
	cfg := p.answers[0].cfg
	if cfg.sortKey == nil {
		return nil
	}
	contents := make([]map[string]interface{}, len(entries))
	for i, e := range entries {
		if cfg.sortIndex != nil {
			contents[i] = map[string]interface{}{}
			if values := index.Values(*e.a.cfg.sortIndex, e.obj); len(values) > 0 {
				contents[i][sortIndexField] = values[0]
			}
			continue
		}
		m, err := object.Content(e.obj)
		if err != nil {
			return err
		}
		contents[i] = m
	}
	order, err := cfg.sortKey.Order(contents)
	if err != nil && cfg.sortIndex != nil {
		return fmt.Errorf("--sort-by %s: no object of %s has a value for the index", cfg.sortBy, entries[0].t.Name())
	}
	if err != nil {
		return err
	}
	sorted := make([]answerEntry, len(order))
	for i, idx := range order {
		sorted[i] = entries[idx]
	}
	copy(entries, sorted)
	return nil
}

// writeObjects prints -o name, json, yaml and templates, or says on
// stderr that nothing matched when there are no types.
func (p answerPrinter) writeObjects(types [][]answerEntry) error {
	cfg := p.answers[0].cfg
	if len(types) == 0 {
		cfg.printNotFound(p.errOut)
		return nil
	}
	list := printing.ContextList{One: !p.several}
	for _, e := range slices.Concat(types...) {
		list.Add(e.a.name, e.obj)
	}
	return list.Write(p.out, cfg.out.Format, cfg.out.Printer)
}

// printNamed prints obj, one object, with the -o name printer, prefixed
// with context and a slash: CONTEXT/TYPE/NAME.
func printNamed(w io.Writer, printer printers.ResourcePrinter, obj runtime.Object, context string) error {
	fmt.Fprintf(w, "%s/", context)
	return printer.PrintObj(obj, w)
}

// contextColumn returns row with the answer's context first when there are
// several targets.
func (p answerPrinter) contextColumn(name string, row []string) []string {
	if !p.several {
		return row
	}
	return append([]string{name}, row...)
}

// printGroups prints the grouped table: each answer's table
// (targetAnswer.groupTable) merged over the targets (mergeGroups).
func (p answerPrinter) printGroups() error {
	cfg := p.answers[0].cfg
	tables := make([]fleet.ContextTable, 0, len(p.answers))
	for _, a := range p.answers {
		t, err := a.groupTable()
		if err != nil {
			return err
		}
		tables = append(tables, t)
	}
	merged, err := cfg.mergeGroups(tables, p.contextAt)
	if err != nil || (len(cfg.groupBy) > 0 || p.contextAt >= 0) && len(merged.Rows) == 0 {
		return p.writeTables(nil, err)
	}
	header, rows := merged.Strings()
	return p.writeTables([]Table{{Header: header, Rows: rows}}, nil)
}

// mergeGroups returns the grouped table of the targets' tables: one
// target's own, or their counts and sums added up (fleet.MergeTables, a
// context key column at contextAt unless it is -1), sorted by --sort-by
// and cut to --top.
func (c queryPrintConfig) mergeGroups(tables []fleet.ContextTable, contextAt int) (aggregate.Table, error) {
	var merged aggregate.Table
	if len(tables) == 1 && contextAt < 0 {
		merged = tables[0].Table
	} else {
		merged = fleet.MergeTables(tables, contextAt)
		if len(c.measures) == 0 {
			merged.Total = nil
		}
	}
	if c.sortBy != "" {
		// The key columns (or the "group" column) come first and hold
		// names, sorted ascending; counts and sums sort largest first.
		col, _ := merged.Column(c.sortBy)
		if err := merged.SortBy(c.sortBy, col >= c.keyColumns(merged)); err != nil {
			return aggregate.Table{}, err
		}
	}
	merged.Top(c.top)
	return merged, nil
}

// keyColumns is how many key columns table, a grouped table of c, has
// before its count and sums.
func (c queryPrintConfig) keyColumns(table aggregate.Table) int {
	return len(table.Columns) - 1 - len(c.measures)
}
