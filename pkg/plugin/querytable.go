package plugin

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"

	"github.com/kubectl-informer/kubectl-informer/pkg/cache"
	"github.com/kubectl-informer/kubectl-informer/pkg/columns"
	"github.com/kubectl-informer/kubectl-informer/pkg/diff"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// crdGVR is where custom resources' definitions, and so their printer
// columns, are read.
var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// typeObjects are the matching objects of one type, in the order they print.
type typeObjects struct {
	t    *cache.Type
	objs []interface{}
	// whole is set when objs are every cached object of t, so counts can
	// be read from t's index buckets.
	whole bool
}

// sortObjects orders each type's objects by --sort-by, if given. They come
// from the engine in the order the API server lists them (cache.Type.Lookup),
// the order kubectl get prints, and ties of --sort-by keep it.
func (o *QueryOptions) sortObjects(groups []typeObjects) error {
	for _, g := range groups {
		if o.sortKey == nil || len(g.objs) == 0 {
			continue
		}
		contents := make([]map[string]interface{}, len(g.objs))
		for i, obj := range g.objs {
			if o.sortIndex != nil {
				contents[i] = map[string]interface{}{}
				if values := index.Values(*o.sortIndex, obj); len(values) > 0 {
					contents[i][sortIndexField] = values[0]
				}
				continue
			}
			m, err := diff.ObjectMap(obj)
			if err != nil {
				return err
			}
			contents[i] = m
		}
		order, err := o.sortKey.Order(contents)
		if err != nil && o.sortIndex != nil {
			return fmt.Errorf("--sort-by %s: no object of %s has a value for the index", o.SortBy, g.t.Name())
		}
		if err != nil {
			return err
		}
		sorted := make([]interface{}, len(order))
		for i, idx := range order {
			sorted[i] = g.objs[idx]
		}
		copy(g.objs, sorted)
	}
	return nil
}

// sortIndexField is the field that holds an object's sort value when
// --sort-by names an index.
const sortIndexField = "value"

// parseSortBy reads --sort-by: the name of an --indexer index, whose first
// value per object is then sorted by the rules of a JSONPath's value (so
// "10" after "9", quantities by quantity), or else a JSONPath.
func (o *QueryOptions) parseSortBy() (*index.Definition, *columns.SortKey, error) {
	for _, def := range o.indexSet.Custom() {
		if def.Name != o.SortBy {
			continue
		}
		key, err := columns.ParseSortKey("{." + sortIndexField + "}")
		if err != nil {
			return nil, nil, err
		}
		return &def, key, nil
	}
	key, err := columns.ParseSortKey(o.SortBy)
	return nil, key, err
}

// printTables prints one table per type, as kubectl get does: kubectl's
// columns for the type (the CRD's printer columns for a custom resource;
// NAME and AGE for a type kubectl has no columns for), NAMESPACE first with
// -A or several namespaces (-n a,b), then the -L label columns, LABELS with --show-labels, and the queried
// index values last. Names carry their kind when several types print or with
// --show-kind; a blank line separates the tables.
func (o *QueryOptions) printTables(ctx context.Context, groups []typeObjects) error {
	wide := o.out.format == "wide"
	withKind := o.ShowKind || len(groups) > 1
	now := time.Now()
	for n, g := range groups {
		table := o.tableFor(ctx, g.t)
		var header []string
		if len(o.namespaces) != 1 && g.t.Namespaced() {
			header = append(header, "NAMESPACE")
		}
		header = append(header, table.Headers(wide)...)
		for _, key := range o.LabelColumns {
			parts := strings.Split(key, "/")
			header = append(header, strings.ToUpper(parts[len(parts)-1]))
		}
		if o.ShowLabels {
			header = append(header, "LABELS")
		}
		for _, def := range o.indexDefs {
			header = append(header, strings.ToUpper(def.Name))
		}
		rows := make([][]string, 0, len(g.objs))
		for _, obj := range g.objs {
			row, err := o.tableRow(g.t, table, obj, now, wide, withKind)
			if err != nil {
				return err
			}
			rows = append(rows, row)
		}
		if n > 0 {
			fmt.Fprintln(o.Out)
		}
		if err := writeTable(o.Out, header, rows, o.NoHeaders); err != nil {
			return err
		}
	}
	return nil
}

// tableRow is one object's row of printTables.
func (o *QueryOptions) tableRow(t *cache.Type, table columns.Table, obj interface{}, now time.Time, wide, withKind bool) ([]string, error) {
	a, err := meta.Accessor(obj)
	if err != nil {
		return nil, fmt.Errorf("reading metadata of a cached %s: %w", t.Name(), err)
	}
	robj, ok := obj.(runtime.Object)
	if !ok {
		return nil, fmt.Errorf("a cached %s is a %T, not an API object", t.Name(), obj)
	}
	cells, err := table.Row(robj, now)
	if err != nil {
		return nil, fmt.Errorf("printing %s %s: %w", t.Name(), a.GetName(), err)
	}
	if withKind {
		for i, c := range table.Columns {
			if c.Format == columns.FormatName {
				cells[i] = kindName(t) + "/" + cells[i]
			}
		}
	}
	var row []string
	if len(o.namespaces) != 1 && t.Namespaced() {
		row = append(row, a.GetNamespace())
	}
	row = append(row, table.Visible(cells, wide)...)
	objLabels := a.GetLabels()
	for _, key := range o.LabelColumns {
		row = append(row, objLabels[key])
	}
	if o.ShowLabels {
		row = append(row, labels.FormatLabels(objLabels))
	}
	for _, def := range o.indexDefs {
		row = append(row, joinOrNone(index.Values(def, obj)))
	}
	return row, nil
}

// tableFor returns kubectl's table for t: a built-in type's columns, a
// custom resource's printer columns read from its CRD, or NAME and AGE when
// there are none or the CRD cannot be read (the reason is logged at -v=2).
func (o *QueryOptions) tableFor(ctx context.Context, t *cache.Type) columns.Table {
	gvr := t.Mapping.Resource
	if table, ok := columns.For(gvr.GroupResource()); ok {
		return table
	}
	var printerColumns []columns.PrinterColumn
	if gvr.Group != "" && strings.Contains(gvr.Group, ".") {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		crd, err := o.clients.Dynamic.Resource(crdGVR).Get(ctx, gvr.Resource+"."+gvr.Group, metav1.GetOptions{})
		if err == nil {
			printerColumns, err = columns.PrinterColumnsFromCRD(crd, gvr.Version)
		}
		if err != nil {
			klog.V(2).InfoS("printing NAME and AGE only: no printer columns", "resource", gvr.GroupResource().String(), "err", err)
			printerColumns = nil
		}
	}
	table, err := columns.ForCustomResource(printerColumns)
	if err != nil {
		klog.V(2).InfoS("printing NAME and AGE only: bad printer columns", "resource", gvr.GroupResource().String(), "err", err)
		table, _ = columns.ForCustomResource(nil)
	}
	return table
}

// writeObjects prints every group's objects in one list (-o json, yaml,
// name and templates), in order.
func (o *QueryOptions) writeObjects(w io.Writer, groups []typeObjects) error {
	var objs []interface{}
	for _, g := range groups {
		objs = append(objs, g.objs...)
	}
	return printList(w, o.out.printer, o.out.format, objs)
}
