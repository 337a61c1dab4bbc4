package plugin

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"time"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubectl-informer/kubectl-informer/pkg/cache"
	"github.com/kubectl-informer/kubectl-informer/pkg/fleet"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/object"
)

// fleetPrinter prints the merged answer of a fleet query's contexts, in
// the order the contexts were selected, each context's objects in its own
// list order (unless --sort-by orders them all).
//
//   - Tables: one per type, a first column CONTEXT, then the columns of a
//     single-context query; --sort-by and --no-headers apply to the merged
//     table.
//   - -o name: CONTEXT/TYPE/NAME; a context name may contain '/', the last
//     two parts are the type and the name.
//   - -o json, yaml and templates: one v1 List of every context's objects
//     unchanged, and beside items the list contexts (fleetContextsField).
//   - --group-by/--sum: one grouped table whose counts and sums add up
//     over the contexts, with a context key column where --group-by names
//     context.
type fleetPrinter struct {
	answers   []*fleetAnswer
	q         fleetQuery
	out       io.Writer
	errOut    io.Writer
	sortBy    string
	top       int
	noHeaders bool
}

// fleetEntry is one object of a fleet answer with where it came from.
type fleetEntry struct {
	a   *fleetAnswer
	t   *cache.Type
	obj interface{}
}

func (p fleetPrinter) print(ctx context.Context) error {
	if len(p.answers) == 0 {
		fmt.Fprintln(p.errOut, "No resources found")
		return nil
	}
	if p.q.grouped {
		return p.printGroups()
	}
	first := p.answers[0].p
	types := p.mergeTypes()
	if len(types) == 0 {
		first.printNotFound()
		return nil
	}
	for _, entries := range types {
		if err := p.sortEntries(entries); err != nil {
			return err
		}
	}
	switch {
	case !first.cfg.out.isTable():
		return p.writeObjects(types)
	case first.cfg.out.format == "custom-columns":
		return p.printCustomColumns(types)
	}
	return p.printTables(ctx, types)
}

// mergeTypes returns every context's objects per type, the types in the
// order they were asked, the contexts in the order they were selected.
// Types with no object are left out.
func (p fleetPrinter) mergeTypes() [][]fleetEntry {
	var order []string
	byType := map[string][]fleetEntry{}
	for _, a := range p.answers {
		for _, g := range a.groups {
			key := g.t.Mapping.Resource.GroupResource().String()
			if _, ok := byType[key]; !ok {
				order = append(order, key)
				byType[key] = nil
			}
			for _, obj := range g.objs {
				byType[key] = append(byType[key], fleetEntry{a: a, t: g.t, obj: obj})
			}
		}
	}
	var types [][]fleetEntry
	for _, key := range order {
		if len(byType[key]) > 0 {
			types = append(types, byType[key])
		}
	}
	return types
}

// sortEntries orders one type's entries by --sort-by across contexts, as
// queryPrinter.sortObjects orders one context's; ties keep their order.
func (p fleetPrinter) sortEntries(entries []fleetEntry) error {
	cfg := p.answers[0].p.cfg
	if cfg.sortKey == nil {
		return nil
	}
	contents := make([]map[string]interface{}, len(entries))
	for i, e := range entries {
		if cfg.sortIndex != nil {
			contents[i] = map[string]interface{}{}
			if values := index.Values(*cfg.sortIndex, e.obj); len(values) > 0 {
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
	sorted := make([]fleetEntry, len(order))
	for i, idx := range order {
		sorted[i] = entries[idx]
	}
	copy(entries, sorted)
	return nil
}

// writeObjects prints -o name, json, yaml and templates.
func (p fleetPrinter) writeObjects(types [][]fleetEntry) error {
	out := p.answers[0].p.cfg.out
	if out.format == "name" {
		for _, entries := range types {
			for _, e := range entries {
				ro, ok := e.obj.(runtime.Object)
				if !ok {
					continue
				}
				var b bytes.Buffer
				if err := out.printer.PrintObj(ro, &b); err != nil {
					return err
				}
				sc := bufio.NewScanner(&b)
				for sc.Scan() {
					fmt.Fprintf(p.out, "%s/%s\n", e.a.name, sc.Text())
				}
			}
		}
		return nil
	}
	var list fleetList
	for _, entries := range types {
		for _, e := range entries {
			m, err := object.Content(e.obj)
			if err != nil {
				return err
			}
			list.add(e.a.name, m)
		}
	}
	return list.write(p.out, out.format, out.printer)
}

// printCustomColumns prints one table of CONTEXT and the -o custom-columns
// columns.
func (p fleetPrinter) printCustomColumns(types [][]fleetEntry) error {
	cols := p.answers[0].p.cfg.out.columns
	header := []string{"CONTEXT"}
	for _, c := range cols {
		header = append(header, c.header)
	}
	var rows [][]string
	for _, entries := range types {
		for _, e := range entries {
			cells, err := customColumnCells(cols, e.obj)
			if err != nil {
				return err
			}
			row := append([]string{e.a.name}, cells...)
			rows = append(rows, row)
		}
	}
	return writeTable(p.out, header, rows, p.noHeaders)
}

// printTables prints one table per type as queryPrinter.printTables does,
// with a first column CONTEXT; each row is made by its context's printer.
func (p fleetPrinter) printTables(ctx context.Context, types [][]fleetEntry) error {
	first := p.answers[0].p
	wide := first.cfg.out.format == "wide"
	withKind := first.cfg.showKind || len(types) > 1
	now := time.Now()
	for n, entries := range types {
		t0 := entries[0]
		table := t0.a.p.tableFor(ctx, t0.t)
		header := append([]string{"CONTEXT"}, first.cfg.tableHeader(t0.t, table, wide)...)
		rows := make([][]string, 0, len(entries))
		for _, e := range entries {
			row, err := e.a.p.tableRow(e.t, table, e.obj, now, wide, withKind)
			if err != nil {
				return fmt.Errorf("context %s: %w", e.a.name, err)
			}
			rows = append(rows, append([]string{e.a.name}, row...))
		}
		if n > 0 {
			fmt.Fprintln(p.out)
		}
		if err := writeTable(p.out, header, rows, p.noHeaders); err != nil {
			return err
		}
	}
	return nil
}

// printGroups takes each context's objects grouped by the --group-by indexes
// other than context (fleetAnswer.contextTable), merges the tables
// (fleet.MergeTables), then sorts and cuts
// the merged table as queryPrinter.printGroups does one context's.
func (p fleetPrinter) printGroups() error {
	tables := make([]fleet.ContextTable, 0, len(p.answers))
	for _, a := range p.answers {
		t, err := a.contextTable()
		if err != nil {
			return err
		}
		tables = append(tables, t)
	}
	merged := fleet.MergeTables(tables, p.q.contextAt)
	measures := len(p.answers[0].p.cfg.measures)
	if measures == 0 {
		merged.Total = nil
	}
	if (len(p.q.groupBy) > 0 || p.q.contextAt >= 0) && len(merged.Rows) == 0 {
		p.answers[0].p.printNotFound()
		return nil
	}
	if p.sortBy != "" {
		col, _ := merged.Column(p.sortBy)
		keyWidth := len(merged.Columns) - 1 - measures
		if err := merged.SortBy(p.sortBy, col >= keyWidth); err != nil {
			return err
		}
	}
	merged.Top(p.top)
	header, rows := merged.Strings()
	return writeTable(p.out, header, rows, p.noHeaders)
}
