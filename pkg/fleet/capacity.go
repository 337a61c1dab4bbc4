package fleet

import (
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubectl-informer/kubectl-informer/pkg/aggregate"
)

// MergeCapacity merges the contexts' capacity tables (aggregate.Capacity:
// a name column, NODES when grouped, PODS and the resource columns, each a
// share of the allocatable, then any --resource columns, quantities, and
// a totals row); every table has the same columns. With contextColumn, each
// row keeps its context in a first column CONTEXT, in the order of tables
// (a node belongs to one cluster). Without, rows of the same name (a group
// value such as a zone, found in several contexts) are added up into one,
// in natural order of name. The totals row adds up the contexts' totals.
// A sum of shares knows its allocatable only if every part did.
func MergeCapacity(tables []ContextTable, contextColumn bool) aggregate.Table {
	if len(tables) == 0 {
		return aggregate.Table{}
	}
	first := tables[0].Table
	var out aggregate.Table
	out.Columns = append([]string(nil), first.Columns...)
	out.Headers = append([]string(nil), first.Headers...)
	for len(out.Headers) < len(out.Columns) {
		out.Headers = append(out.Headers, "")
	}
	if contextColumn {
		out.Columns = append([]string{ContextIndex}, out.Columns...)
		out.Headers = append([]string{""}, out.Headers...)
	}
	cols := first.Columns
	byName := map[string][]aggregate.Value{}
	var names []string
	var total []aggregate.Value
	for _, t := range tables {
		for _, r := range t.Table.Rows {
			if contextColumn {
				out.Rows = append(out.Rows, append([]aggregate.Value{aggregate.Text(t.Context)}, r...))
				continue
			}
			name := r[0].Text()
			if have, ok := byName[name]; ok {
				byName[name] = sumRow(cols, have, r)
			} else {
				byName[name] = r
				names = append(names, name)
			}
		}
		if t.Table.Total != nil {
			if total == nil {
				total = t.Table.Total
			} else {
				total = sumRow(cols, total, t.Table.Total)
			}
		}
	}
	if !contextColumn {
		sortNatural(names)
		for _, name := range names {
			out.Rows = append(out.Rows, byName[name])
		}
	}
	if total != nil && contextColumn {
		total = append([]aggregate.Value{total[0], {}}, total[1:]...)
	}
	out.Total = total
	return out
}

func sortNatural(names []string) {
	for i := 1; i < len(names); i++ {
		for j := i; j > 0 && aggregate.CompareNatural(names[j-1], names[j]) > 0; j-- {
			names[j-1], names[j] = names[j], names[j-1]
		}
	}
}

// sumRow adds b to a cell by cell after the name column; it returns a new
// row.
func sumRow(cols []string, a, b []aggregate.Value) []aggregate.Value {
	out := make([]aggregate.Value, len(a))
	copy(out, a)
	for i := 1; i < len(a) && i < len(b) && i < len(cols); i++ {
		out[i] = sumCell(cols[i], a[i], b[i])
	}
	return out
}

// sumCell adds two cells of column col of a capacity table.
// A capacity --resource column's allocatable or free is unknown (blank)
// in the sum when it is unknown in either cell.
func sumCell(col string, a, b aggregate.Value) aggregate.Value {
	unknownIfBlank := strings.HasSuffix(col, aggregate.SuffixAllocatable) || strings.HasSuffix(col, aggregate.SuffixFree)
	switch {
	case unknownIfBlank && (a.IsBlank() || b.IsBlank()):
		return aggregate.Value{}
	case a.IsBlank():
		return b
	case b.IsBlank():
		return a
	}
	q := a.Quantity()
	q.Add(b.Quantity())
	if a.IsNumber() && col != aggregate.ColumnNodes {
		return aggregate.Quantity(q)
	}
	if col == aggregate.ColumnNodes {
		return aggregate.Count(q.Value())
	}
	ofA, knownA := a.Allocatable()
	ofB, knownB := b.Allocatable()
	var of resource.Quantity
	of.Add(ofA)
	of.Add(ofB)
	if col == aggregate.ColumnPods {
		return aggregate.CountShare(q.Value(), of, knownA && knownB)
	}
	return aggregate.Share(q, of, knownA && knownB)
}
