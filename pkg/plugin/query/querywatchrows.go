package query

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubectl-informer/kubectl-informer/pkg/columns"
	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/object"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/printing"
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
//
// --group-by and --sum print a table of groups instead (groupWatch).

// rowPrinter prints the rows of one target of a query -w to the shared
// output of its query's targets (s): the rows of one of several name it.
type rowPrinter struct {
	w        *running
	s        *watchOutput
	name     string
	tables   map[*engine.Type]columns.Table
	withKind bool
	now      time.Time
	// fail ends the target's watch with an error: its answer could not be
	// looked up again.
	fail context.CancelCauseFunc
}

// print prints one object, of type t, as what happened to it (typ).
func (p *rowPrinter) print(ctx context.Context, t *engine.Type, typ engine.EventType, obj interface{}) error {
	cfg := p.w.cfg
	if !cfg.out.IsTable() {
		return p.printObject(t, typ, obj)
	}
	table, ok := p.tables[t]
	if !ok {
		table = p.w.cfg.tableFor(ctx, t)
		p.tables[t] = table
	}
	header := cfg.tableHeader(t, table)
	row, err := p.w.cfg.tableRow(t, table, obj, p.now, p.withKind)
	if err != nil {
		return err
	}
	if p.w.o.OutputWatchEvents {
		header = append([]string{"EVENT"}, header...)
		row = append([]string{watchEventCell(typ)}, row...)
	}
	if p.s.several {
		header = append([]string{"CONTEXT"}, header...)
		row = append([]string{p.name}, row...)
	}
	if !cfg.noHeaders && !slices.Equal(header, p.s.lastHeader) {
		p.s.writeCells(header)
	}
	p.s.lastHeader = header
	p.s.writeCells(row)
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

// writeCells writes one line of cells to the tab writer; s.mu is held.
func (s *watchOutput) writeCells(cells []string) { printing.WriteCells(s.tabs, cells, len(cells)) }

// printObject prints obj alone with the -o printer (json, yaml, name,
// templates), as a watch event with --output-watch-events. The object of
// one of several targets prints as the List of it alone, its context
// beside it (printing.ContextsField), as a query of several prints its
// List; -o name prints CONTEXT/TYPE/NAME.
func (p *rowPrinter) printObject(t *engine.Type, typ engine.EventType, obj interface{}) error {
	content, err := object.Content(obj)
	if err != nil {
		return err
	}
	u := &unstructured.Unstructured{Object: content}
	if u.GetKind() == "" {
		// Typed objects from the cache carry no apiVersion and kind: a
		// copy carries them, the cached object is not changed.
		u = &unstructured.Unstructured{Object: maps.Clone(content)}
		u.SetGroupVersionKind(t.Mapping.GroupVersionKind)
	}
	if err := p.printUnstructured(typ, u); err != nil {
		return fmt.Errorf("printing %s %s: %w", t.Name(), printing.ObjectName(obj), err)
	}
	return nil
}

// printUnstructured is printObject of u.
func (p *rowPrinter) printUnstructured(typ engine.EventType, u *unstructured.Unstructured) error {
	out, several, w := p.w.cfg.out, p.s.several, p.s.out
	var doc runtime.Object = u
	switch {
	case several && out.Format == "name":
		return printNamed(w, out.Printer, u, p.name)
	case several:
		doc = &unstructured.Unstructured{Object: map[string]interface{}{
			"apiVersion":           "v1",
			"kind":                 "List",
			"metadata":             map[string]interface{}{"resourceVersion": ""},
			"items":                []interface{}{u.Object},
			printing.ContextsField: []interface{}{p.name},
		}}
	}
	if p.w.o.OutputWatchEvents {
		doc = &metav1.WatchEvent{Type: string(typ), Object: runtime.RawExtension{Object: doc}}
	}
	if !several || out.Format != "yaml" {
		return out.Printer.PrintObj(doc, w)
	}
	b, err := printing.MarshalYAML(doc)
	if err != nil {
		return err
	}
	if p.s.docs > 0 {
		w.WriteString("---\n")
	}
	p.s.docs++
	_, err = w.Write(b)
	return err
}
