package query

import (
	"fmt"
	"os"
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"

	"github.com/kubectl-informer/kubectl-informer/pkg/aggregate"
	"github.com/kubectl-informer/kubectl-informer/pkg/columns"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
)

// recordPlan returns the stored form of a one-shot query whose answer reads
// nothing of its objects but their key, its indexes' values, its measures
// and their table rows: -o name, tables (-o wide too: withTableRows adds the
// rows) and grouped tables, without --filter, --sort-by over objects, label
// columns, --show-events or a relationship index (those read the objects
// themselves, or other caches through them). It returns nil for any other
// query, and for an engine shared with other commands (a warm cache), whose
// objects stay whole.
func (o *QueryOptions) recordPlan() *index.RecordPlan {
	if o.watching() || o.Engines.Shared() || o.filterGuard != nil || o.ShowEvents || slices.ContainsFunc(o.print.measures, aggregate.Measure.IsGlob) {
		// A glob's columns are the resources found in the objects.
		return nil
	}
	if !o.grouped() && (!o.namesOrRows() || o.SortBy != "") {
		return nil
	}
	for _, def := range o.indexDefs {
		if def.Relation != index.NoRelation {
			return nil
		}
	}
	return aggregate.RecordPlan(o.indexDefs, o.print.measures)
}

// lookedUp returns the indexes of defs the informers of a query with a
// recordPlan are to keep: those the --index selectors look up, and the one
// --group-by index whose buckets count a group-by without --sum
// (queryPrintConfig.countTable). The answer reads every other index's values
// from the Records, so an informer index of them would only cost its build.
func (o *QueryOptions) lookedUp(defs []index.Definition) []index.Definition {
	names := map[string]bool{}
	for _, sel := range o.selectors {
		names[sel.Name] = true
	}
	if len(o.print.groupBy) == 1 && len(o.print.measures) == 0 {
		names[o.print.groupBy[0].Name] = true
	}
	var out []index.Definition
	for _, def := range defs {
		if names[def.Name] {
			out = append(out, def)
		}
	}
	return out
}

// namesOrRows reports whether an ungrouped answer prints only names or
// kubectl's table rows (with the queried indexes' values), which Records can
// hold.
func (o *QueryOptions) namesOrRows() bool {
	switch o.print.out.Format {
	case "name":
		return true
	case "", "wide":
		return len(o.LabelColumns) == 0 && !o.ShowLabels
	}
	return false
}

// withTableRows completes the stored form of a table query once its types
// are known: each Record also keeps its row of kubectl's table for its type
// (every column, -o wide's too), computed when the object arrives — as the
// API server computes a table's cells when it serves the list kubectl get
// prints. A type whose table is not built in (a custom resource's columns
// are read from its CRD) or whose table orders its rows by comparing objects
// needs the objects: the query then keeps them whole.
func (t *queryTarget) withTableRows(mappings []*meta.RESTMapping) {
	if t.Config.Reduce == nil || t.q.grouped() || t.print.out.Format == "name" {
		return
	}
	tables := map[schema.GroupVersionKind]columns.Table{}
	for _, m := range mappings {
		table, ok := columns.For(m.Resource.GroupResource())
		if !ok || table.Compare != nil {
			t.Config.Reduce, t.Config.Reads = nil, nil
			return
		}
		tables[m.GroupVersionKind] = table
	}
	plan := aggregate.RecordPlan(t.indexDefs, t.q.print.measures).WithRow(func(obj runtime.Object) ([]string, error) {
		gvk := obj.GetObjectKind().GroupVersionKind()
		table, ok := tables[gvk]
		if !ok {
			return nil, fmt.Errorf("no table for %s", gvk)
		}
		return table.Row(obj, t.print.ages.Now())
	})
	// A table's columns read any field of their type's objects.
	t.Config.Reduce, t.Config.Reads = plan.Transform, nil
}

// recordReads returns what a query with a recordPlan reads of its objects
// besides their metadata (engine.Config.Reads): the fields its indexes and
// measures declare. It returns nil, whole objects, when one of them
// declares none (a JSONPath or CEL index, a custom measure), and for a
// table, whose columns read any field (withTableRows).
func (o *QueryOptions) recordReads() []string {
	if !o.grouped() && o.print.out.Format != "name" {
		return nil
	}
	paths := []string{}
	for _, def := range o.indexDefs {
		read, ok := index.FieldsRead(def)
		if !ok {
			return nil
		}
		paths = append(paths, read...)
	}
	read, ok := aggregate.FieldsRead(o.print.measures)
	if !ok {
		return nil
	}
	return append(paths, read...)
}

// pushableSelectors returns the --index selectors that a query answered
// directly may have the API server apply to its lists (see withPushdown), or
// none when the command reads objects they do not select: a relationship
// index (its joins read other objects of the types) or an --indexer index (a
// computed index reports the objects it failed on among every cached one).
// --group-by, --sum, --filter and --sort-by read only the selected objects,
// so they do not prevent it. Node and phase selectors are kept only for
// whole objects, which have those values. KUBECTL_INFORMER_PUSHDOWN=off
// turns it off.
func (o *QueryOptions) pushableSelectors() []index.Selector {
	if len(o.selectors) == 0 {
		return nil
	}
	if v := os.Getenv(engines.PushdownEnv); v == "off" {
		klog.V(1).InfoS("not selecting on the API server", "reason", engines.PushdownEnv+"="+v)
		return nil
	}
	if len(o.Indexers) > 0 {
		klog.V(1).InfoS("not selecting on the API server", "reason", "--indexer indexes read every object")
		return nil
	}
	metadataOnly := map[string]bool{}
	for _, def := range o.indexDefs {
		if def.Relation != index.NoRelation {
			klog.V(1).InfoS("not selecting on the API server", "reason", "relationship index "+def.Name)
			return nil
		}
		metadataOnly[def.Name] = def.MetadataOnly
	}
	var pushable []index.Selector
	for _, sel := range o.selectors {
		if o.Config.FullObjects || metadataOnly[sel.Name] {
			pushable = append(pushable, sel)
		}
	}
	return pushable
}
