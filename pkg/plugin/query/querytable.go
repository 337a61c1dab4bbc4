package query

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"

	"github.com/kubectl-informer/kubectl-informer/pkg/columns"
	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/object"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/printing"
)

// crdMapping is where custom resources' definitions, and so their printer
// columns, are read.
var crdMapping = &meta.RESTMapping{
	Resource:         schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"},
	GroupVersionKind: schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"},
	Scope:            meta.RESTScopeRoot,
}

// typeObjects are the matching objects of one type, in the order they print.
type typeObjects struct {
	t    *engine.Type
	objs []interface{}
	// whole is set when objs are every cached object of t, so counts can
	// be read from t's index buckets.
	whole bool
	// columns are t's printer columns, of a custom resource's definition
	// (printerColumns).
	columns []columns.PrinterColumn
}

// tableHeader is the header of t's table: the -o custom-columns headers,
// or NAMESPACE with -A or several namespaces, kubectl's columns, the -L
// label columns, LABELS with --show-labels, the queried indexes and the
// events columns.
func (c queryPrintConfig) tableHeader(t *engine.Type, table columns.Table) []string {
	if c.out.Format == "custom-columns" {
		header := make([]string, len(c.out.Columns))
		for i, col := range c.out.Columns {
			header[i] = col.Header
		}
		return header
	}
	wide := c.out.Format == "wide"
	var header []string
	if len(c.namespaces) != 1 && t.Namespaced() {
		header = append(header, "NAMESPACE")
	}
	header = append(header, table.Headers(wide)...)
	for _, key := range c.labelColumns {
		parts := strings.Split(key, "/")
		header = append(header, strings.ToUpper(parts[len(parts)-1]))
	}
	if c.showLabels {
		header = append(header, "LABELS")
	}
	for _, def := range c.indexes {
		header = append(header, strings.ToUpper(def.Name))
	}
	return append(header, c.eventHeaders()...)
}

// tableRow is one object's row of t's table (tableHeader), at now.
func (c queryPrintConfig) tableRow(t *engine.Type, table columns.Table, obj interface{}, now time.Time, withKind bool) ([]string, error) {
	if c.out.Format == "custom-columns" {
		return customColumnCells(c.out.Columns, obj)
	}
	wide := c.out.Format == "wide"
	a, err := meta.Accessor(obj)
	if err != nil {
		return nil, fmt.Errorf("reading metadata of a cached %s: %w", t.Name(), err)
	}
	robj, ok := obj.(runtime.Object)
	if !ok {
		return nil, fmt.Errorf("a cached %s is a %T, not an API object", t.Name(), obj)
	}
	cells, err := tableCells(table, robj, now)
	if err != nil {
		return nil, fmt.Errorf("printing %s %s: %w", t.Name(), a.GetName(), err)
	}
	if withKind {
		for i, c := range table.Columns {
			if c.Format == columns.FormatName {
				cells[i] = printing.KindName(t) + "/" + cells[i]
			}
		}
	}
	var row []string
	if len(c.namespaces) != 1 && t.Namespaced() {
		row = append(row, a.GetNamespace())
	}
	row = append(row, table.Visible(cells, wide)...)
	objLabels := a.GetLabels()
	for _, key := range c.labelColumns {
		row = append(row, objLabels[key])
	}
	if c.showLabels {
		row = append(row, labels.FormatLabels(objLabels))
	}
	for _, def := range c.indexes {
		row = append(row, printing.JoinOrNone(index.Values(def, obj)))
	}
	row = append(row, c.eventCells(obj, now)...)
	return row, nil
}

// tableCells returns obj's cells of table at now, or those a Record kept
// (computed when its object arrived) or a warm answer carried, as a copy
// the caller may change.
func tableCells(table columns.Table, obj runtime.Object, now time.Time) ([]string, error) {
	switch r := obj.(type) {
	case *index.Record:
		if cells, ok, err := r.Row(); ok {
			return slices.Clone(cells), err
		}
	case *rowObject:
		return slices.Clone(r.cells), nil
	}
	return table.Row(obj, now)
}

// tableFor returns kubectl's table for t (tableOf), a custom resource's
// printer columns read from its CRD (printerColumns).
func (c queryPrintConfig) tableFor(ctx context.Context, t *engine.Type) columns.Table {
	return c.tableOf(t, c.printerColumns(ctx, t))
}

// printerColumns returns the printer columns of t's CRD for a table
// output, none for a built-in type, another output, or when the CRD cannot
// be read (the reason is logged at -v=2).
func (c queryPrintConfig) printerColumns(ctx context.Context, t *engine.Type) []columns.PrinterColumn {
	gvr := t.Mapping.Resource
	if _, ok := columns.For(gvr.GroupResource()); ok || !c.out.IsTable() || c.grouped() || c.out.Format == "custom-columns" || !strings.Contains(gvr.Group, ".") {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var content map[string]interface{}
	obj, err := engine.Get(ctx, c.source, crdMapping, "", gvr.Resource+"."+gvr.Group)
	if err == nil {
		content, err = object.Content(obj)
	}
	var printerColumns []columns.PrinterColumn
	if err == nil {
		printerColumns, err = columns.PrinterColumnsFromCRD(&unstructured.Unstructured{Object: content}, gvr.Version)
	}
	if err != nil {
		klog.V(2).InfoS("printing NAME and AGE only: no printer columns", "resource", gvr.GroupResource().String(), "err", err)
	}
	return printerColumns
}

// tableOf returns kubectl's table for t: a built-in type's columns, a
// custom resource's printerColumns, or NAME and AGE when there are none;
// none for -o custom-columns.
func (c queryPrintConfig) tableOf(t *engine.Type, printerColumns []columns.PrinterColumn) columns.Table {
	if c.out.Format == "custom-columns" {
		return columns.Table{}
	}
	gvr := t.Mapping.Resource
	if table, ok := columns.For(gvr.GroupResource()); ok {
		return table
	}
	table, err := columns.ForCustomResource(printerColumns)
	if err != nil {
		klog.V(2).InfoS("printing NAME and AGE only: bad printer columns", "resource", gvr.GroupResource().String(), "err", err)
		table, _ = columns.ForCustomResource(nil)
	}
	return table
}
