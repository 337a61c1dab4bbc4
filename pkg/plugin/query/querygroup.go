package query

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kubectl-informer/kubectl-informer/pkg/aggregate"
	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
)

// grouped reports whether the query prints a grouped table (--group-by or
// --sum) instead of objects.
func (o *QueryOptions) grouped() bool { return len(o.GroupBy) > 0 || len(o.Sums) > 0 }

// validateGroups checks the flags of grouped tables without I/O: the output
// is a table, --top is not negative, --sort-by names a column, and no column
// is named twice.
func (o *QueryOptions) validateGroups() error {
	if o.Top < 0 {
		return fmt.Errorf("--top must be 0 (all rows) or more, got %d", o.Top)
	}
	if !o.grouped() {
		if o.Top != 0 {
			return fmt.Errorf("--top cuts a grouped table; use it with --group-by or --sum")
		}
		return nil
	}
	if o.print.out.Format != "" && o.print.out.Format != "wide" {
		return fmt.Errorf("--group-by and --sum print a table of groups; they cannot be combined with -o %s", o.Output)
	}
	table := o.print.emptyGroupTable()
	seen := map[string]bool{}
	for _, c := range table.Columns {
		if seen[strings.ToLower(c)] {
			return fmt.Errorf("--sum %s: the table already has a column %s", c, c)
		}
		seen[strings.ToLower(c)] = true
	}
	if o.SortBy != "" && !slices.ContainsFunc(o.print.measures, aggregate.Measure.IsGlob) {
		// A glob's columns are known once the objects are read.
		if _, ok := table.Column(o.SortBy); !ok {
			return fmt.Errorf("--sort-by %s: with --group-by or --sum, --sort-by takes a column of the table: %s", o.SortBy, strings.Join(table.Columns, ", "))
		}
	}
	return nil
}

// emptyGroupTable is the grouped table with its columns and no rows.
func (c queryPrintConfig) emptyGroupTable() aggregate.Table {
	return aggregate.NewGrouper(c.groupKeys(), c.measures).Table()
}

// groupKeys are the index names of --group-by, in order.
func (c queryPrintConfig) groupKeys() []string {
	keys := make([]string, len(c.groupBy))
	for i, def := range c.groupBy {
		keys[i] = def.Name
	}
	return keys
}

// podTransformSafe reports whether every index of the query reads only what
// aggregate.TransformPod keeps of a pod (namespace, labels, owners, node,
// phase), every measure is a built-in one and there is no --filter: then the
// pods cache can hold stripped pods, a fraction of the memory.
func (o *QueryOptions) podTransformSafe() bool {
	return engines.PodTransformSafe(o.print.measures, o.indexDefs, o.Filter != "")
}

// countTable counts the objects per value of the one --group-by index from
// the index's buckets, summed over types, in the order of a grouped table
// (largest first, ties in the natural order of their values).
func (c queryPrintConfig) countTable(types []*engine.Type) (aggregate.Table, error) {
	totals := map[string]int{}
	for _, t := range types {
		counts, err := t.Count(c.groupBy[0].Name)
		if err != nil {
			return aggregate.Table{}, err
		}
		for v, n := range counts {
			totals[v] += n
		}
	}
	table := aggregate.Table{Columns: []string{c.groupBy[0].Name, aggregate.ColumnCount}}
	for v, n := range totals {
		table.Rows = append(table.Rows, []aggregate.Value{aggregate.Text(v), aggregate.Count(int64(n))})
	}
	// Both columns exist: SortBy cannot fail.
	_ = table.SortBy(table.Columns[0], false)
	_ = table.SortBy(aggregate.ColumnCount, true)
	return table, nil
}

// sumTable groups and sums the groups' objects. The TOTAL row is kept only
// when there are measures to total, or no --group-by index but context:
// a context's count is then its total (fleet.MergeTables).
//
// A glob measure (requests.nvidia.com/*) is a column per resource the
// groups' pods request (or limit), sorted by name; none when they have
// none.
func (c queryPrintConfig) sumTable(groups []typeObjects) (aggregate.Table, error) {
	measures := c.measures
	if slices.ContainsFunc(measures, aggregate.Measure.IsGlob) {
		var objs []interface{}
		for _, g := range groups {
			objs = append(objs, g.objs...)
		}
		measures, _ = aggregate.ExpandGlobsOver(measures, objs)
	}
	grouper := aggregate.NewGrouper(c.groupKeys(), measures)
	keyValues := make([][]string, len(c.groupBy))
	for _, g := range groups {
		for _, obj := range g.objs {
			for i, def := range c.groupBy {
				keyValues[i] = index.Values(def, obj)
			}
			if err := grouper.Add(obj, keyValues); err != nil {
				return aggregate.Table{}, fmt.Errorf("--sum: %w", err)
			}
		}
	}
	table := grouper.Table()
	if len(measures) == 0 && len(c.groupBy) > 0 {
		table.Total = nil
	}
	return table, nil
}
