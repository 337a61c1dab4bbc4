package fleet

import (
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubectl-informer/kubectl-informer/pkg/aggregate"
)

// ContextIndex is the name of the built-in index whose value is an object's
// context: usable in --index and --group-by of a fleet query.
const ContextIndex = "context"

// ContextTable is one context's grouped table (aggregate.Grouper's shape:
// Keys key columns, or one "group" column when there are none, then count,
// then the measures; a totals row).
type ContextTable struct {
	Context string
	Keys    int
	Table   aggregate.Table
}

// MergeTables adds up the contexts' grouped tables: rows of the same key
// values are one row whose count and sums are the sums over contexts. With
// contextAt >= 0 the merged table has a context key column at that position
// among the key columns, so that rows of different contexts stay apart.
// Tables without key columns (Keys 0) contribute their totals row as the
// row of their context when contextAt >= 0. Rows are ordered as a Grouper
// orders them: largest count first, ties by the key values in natural
// order. The totals row is the sum of the contexts' totals rows (an object
// is in one context only), nil when no table has one. A share measure's
// cells (aggregate.ShareCell) add up both their parts. All tables must have
// the same key columns; their value columns are the union of theirs, the
// first's first (a glob measure's columns are the resources each context
// has), a table without one of them counting zero there.
func MergeTables(tables []ContextTable, contextAt int) aggregate.Table {
	if len(tables) == 0 {
		return aggregate.Table{}
	}
	tables = alignColumns(tables)
	first := tables[0]
	keys := first.Keys
	var out aggregate.Table
	valueCols := first.Table.Columns[max(keys, 1):]
	if contextAt >= 0 {
		keyCols := append([]string(nil), first.Table.Columns[:keys]...)
		contextAt = min(contextAt, len(keyCols))
		keyCols = append(keyCols[:contextAt], append([]string{ContextIndex}, keyCols[contextAt:]...)...)
		out.Columns = append(keyCols, valueCols...)
	} else {
		out.Columns = append([]string(nil), first.Table.Columns...)
	}
	if len(first.Table.Headers) > 0 {
		out.Headers = make([]string, len(out.Columns))
		copy(out.Headers[len(out.Columns)-len(valueCols):], first.Table.Headers[max(keys, 1):])
	}
	type row struct {
		key    []string
		values []resource.Quantity
		of     []resource.Quantity // a share column's other part
	}
	shares := make([]bool, len(valueCols))
	rows := map[string]*row{}
	var order []string
	var total, totalOf []resource.Quantity
	hasTotal := false
	add := func(key []string, cells []aggregate.Value) {
		id := strings.Join(key, "\x00")
		r, ok := rows[id]
		if !ok {
			r = &row{key: key, values: make([]resource.Quantity, len(valueCols)), of: make([]resource.Quantity, len(valueCols))}
			rows[id] = r
			order = append(order, id)
		}
		addCells(r.values, r.of, shares, cells)
	}
	for _, t := range tables {
		if t.Table.Total != nil {
			if total == nil {
				total, totalOf = make([]resource.Quantity, len(valueCols)), make([]resource.Quantity, len(valueCols))
			}
			hasTotal = true
			addCells(total, totalOf, shares, t.Table.Total[max(keys, 1):])
		}
		if keys == 0 && contextAt >= 0 {
			if t.Table.Total != nil {
				add([]string{t.Context}, t.Table.Total[1:])
			}
			continue
		}
		for _, r := range t.Table.Rows {
			key := make([]string, 0, keys+1)
			for _, v := range r[:max(keys, 1)] {
				key = append(key, v.Text())
			}
			if keys == 0 {
				key = key[:0]
			}
			if contextAt >= 0 {
				key = append(key[:contextAt], append([]string{t.Context}, key[contextAt:]...)...)
			}
			add(key, r[max(keys, 1):])
		}
	}
	countCol := -1
	for i, c := range valueCols {
		if c == aggregate.ColumnCount {
			countCol = i
		}
	}
	list := make([]*row, 0, len(order))
	for _, id := range order {
		list = append(list, rows[id])
	}
	sort.SliceStable(list, func(i, j int) bool {
		if countCol >= 0 {
			if c := list[i].values[countCol].Cmp(list[j].values[countCol]); c != 0 {
				return c > 0
			}
		}
		for k := range list[i].key {
			if c := aggregate.CompareNatural(list[i].key[k], list[j].key[k]); c != 0 {
				return c < 0
			}
		}
		return false
	})
	keyWidth := len(out.Columns) - len(valueCols)
	cellsOf := func(key []string, values, of []resource.Quantity) []aggregate.Value {
		cells := make([]aggregate.Value, 0, len(out.Columns))
		for _, k := range key {
			cells = append(cells, aggregate.Text(k))
		}
		for len(cells) < keyWidth {
			cells = append(cells, aggregate.Value{})
		}
		for i, q := range values {
			switch {
			case i == countCol:
				cells = append(cells, aggregate.Count(q.Value()))
			case shares[i]:
				cells = append(cells, aggregate.ShareCell(q, of[i]))
			default:
				cells = append(cells, aggregate.Quantity(q))
			}
		}
		return cells
	}
	for _, r := range list {
		out.Rows = append(out.Rows, cellsOf(r.key, r.values, r.of))
	}
	if hasTotal {
		totalKey := make([]string, keyWidth)
		totalKey[0] = aggregate.TotalLabel
		out.Total = cellsOf(totalKey, total, totalOf)
		for i := 1; i < keyWidth; i++ {
			out.Total[i] = aggregate.Value{}
		}
	}
	return out
}

// addCells adds the quantities of cells to sums, position by position, and
// of a share cell what it is a share of to of, marking its column in shares.
func addCells(sums, of []resource.Quantity, shares []bool, cells []aggregate.Value) {
	for i, c := range cells {
		if i < len(sums) {
			sums[i].Add(c.Quantity())
			if c.IsShare() {
				shares[i] = true
				a, _ := c.Allocatable()
				of[i].Add(a)
			}
		}
	}
}

// alignColumns returns tables with the same value columns each: the union
// of theirs in the order they first come, a table's missing ones zero. It
// returns tables itself when they have the same columns.
func alignColumns(tables []ContextTable) []ContextTable {
	first := tables[0]
	keyCols := max(first.Keys, 1)
	same := true
	for _, t := range tables[1:] {
		same = same && slices.Equal(t.Table.Columns, first.Table.Columns)
	}
	if same {
		return tables
	}
	var union []string
	for _, t := range tables {
		for _, c := range t.Table.Columns[keyCols:] {
			if !slices.Contains(union, c) {
				union = append(union, c)
			}
		}
	}
	out := make([]ContextTable, len(tables))
	for i, t := range tables {
		at := make([]int, len(union)) // each union column's place in t, -1 if none
		for j, c := range union {
			at[j] = slices.Index(t.Table.Columns[keyCols:], c)
		}
		row := func(r []aggregate.Value) []aggregate.Value {
			if r == nil {
				return nil
			}
			cells := append([]aggregate.Value(nil), r[:keyCols]...)
			for _, k := range at {
				if k < 0 {
					cells = append(cells, aggregate.Quantity(resource.Quantity{}))
				} else {
					cells = append(cells, r[keyCols+k])
				}
			}
			return cells
		}
		aligned := aggregate.Table{Columns: append(append([]string(nil), t.Table.Columns[:keyCols]...), union...), Total: row(t.Table.Total)}
		for _, r := range t.Table.Rows {
			aligned.Rows = append(aligned.Rows, row(r))
		}
		out[i] = ContextTable{Context: t.Context, Keys: t.Keys, Table: aligned}
	}
	return out
}
