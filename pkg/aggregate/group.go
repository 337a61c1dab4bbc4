package aggregate

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
)

// Grouper counts objects and sums measures per group, a group being one combination of the
// indexed values of its keys (--group-by node --group-by label:app: a row per node and app).
// Build it with [NewGrouper], [Grouper.Add] every object, then take its [Grouper.Table].
//
// A Grouper is not safe for concurrent use.
type Grouper struct {
	keys     []string
	measures []Measure
	parts    []Measure // summed(measures): what is summed per object
	groups   map[string]*group
	total    group
}

// group is one row being summed: its key values, its count and one exact sum per part of the
// measures (two for a share measure, see summed).
type group struct {
	key   []string
	count int64
	sums  []resource.Quantity
}

// NewGrouper returns a Grouper for the key names keys (index names, "node", "label:app") and the
// measures ms. With no keys, every object is in one group, the totals row.
func NewGrouper(keys []string, ms []Measure) *Grouper {
	return &Grouper{
		keys:     keys,
		measures: ms,
		parts:    summed(ms),
		groups:   map[string]*group{},
		total:    group{sums: make([]resource.Quantity, len(summed(ms)))},
	}
}

// Add counts obj and adds its measures (see [Values]) to its groups. keyValues holds, for each key
// in order, obj's indexed values for that key, as its IndexFunc returns them. An object with no
// value for a key is in the group whose value is "" (printed [NoValue]); an object with several
// values is in one group per combination, and in the totals row once. A measure's error is
// returned and obj is not added.
func (g *Grouper) Add(obj interface{}, keyValues [][]string) error {
	values, err := Values(g.parts, obj)
	if err != nil {
		return err
	}
	return g.AddValues(keyValues, values)
}

// AddValues is Add for a caller that has the object's measures already, in the order of the
// Grouper's measures, each share measure as its two parts (what is used, then what it is a
// share of).
func (g *Grouper) AddValues(keyValues [][]string, values []resource.Quantity) error {
	if len(keyValues) != len(g.keys) {
		return fmt.Errorf("grouping by %d keys, got values for %d", len(g.keys), len(keyValues))
	}
	if len(values) != len(g.parts) {
		return fmt.Errorf("summing %d measures, got %d values", len(g.parts), len(values))
	}
	g.total.add(values)
	if len(g.keys) == 0 {
		return nil
	}
	eachCombination(keyValues, func(id string, combination []string) {
		gr, ok := g.groups[id]
		if !ok {
			gr = &group{key: append([]string(nil), combination...), sums: make([]resource.Quantity, len(values))}
			g.groups[id] = gr
		}
		gr.add(values)
	})
	return nil
}

// remove takes out what AddValues(keyValues, values) added; a group left with no object goes.
func (g *Grouper) remove(keyValues [][]string, values []resource.Quantity) error {
	if len(keyValues) != len(g.keys) || len(values) != len(g.parts) {
		return fmt.Errorf("grouping by %d keys and %d measures, got %d and %d", len(g.keys), len(g.parts), len(keyValues), len(values))
	}
	g.total.sub(values)
	if len(g.keys) == 0 {
		return nil
	}
	eachCombination(keyValues, func(id string, _ []string) {
		if gr, ok := g.groups[id]; ok {
			if gr.sub(values); gr.count <= 0 {
				delete(g.groups, id)
			}
		}
	})
	return nil
}

// eachCombination calls fn with every combination of one value of each key (no value is the
// value ""), once per distinct combination, and its group id: the values joined by NUL.
func eachCombination(keyValues [][]string, fn func(id string, combination []string)) {
	combination := make([]string, len(keyValues))
	var walk func(depth int)
	walk = func(depth int) {
		if depth == len(keyValues) {
			fn(strings.Join(combination, "\x00"), combination)
			return
		}
		vs := keyValues[depth]
		if len(vs) == 0 {
			vs = []string{""}
		}
		for i, v := range vs {
			if contains(vs[:i], v) {
				continue // an IndexFunc's duplicate value would count the object twice
			}
			combination[depth] = v
			walk(depth + 1)
		}
	}
	walk(0)
}

func contains(vs []string, v string) bool {
	for _, have := range vs {
		if have == v {
			return true
		}
	}
	return false
}

// add counts one object with its measures. Quantity.Add keeps sums exact, and a zero sum takes
// the format of the first quantity added, so sums print canonically ("1330m", "4256Mi").
func (gr *group) add(values []resource.Quantity) {
	gr.count++
	for i := range values {
		gr.sums[i].Add(values[i])
	}
}

// sub takes one object with its measures out, exactly.
func (gr *group) sub(values []resource.Quantity) {
	gr.count--
	for i := range values {
		gr.sums[i].Sub(values[i])
	}
}

// Table returns the groups as a Table with the columns keys..., "count", measure names..., in the
// order the query has always printed groups: largest count first, then key values in natural
// order. Sort it again with [Table.SortBy]. The totals row holds [TotalLabel] in its first key
// column (or alone in a "group" column when there are no keys).
func (g *Grouper) Table() Table {
	t := Table{Columns: make([]string, 0, len(g.keys)+1+len(g.measures))}
	t.Columns = append(t.Columns, g.keys...)
	if len(g.keys) == 0 {
		t.Columns = append(t.Columns, "group")
	}
	t.Columns = append(t.Columns, ColumnCount)
	for _, m := range g.measures {
		t.Columns = append(t.Columns, m.Name)
	}

	groups := make([]*group, 0, len(g.groups))
	for _, gr := range g.groups {
		groups = append(groups, gr)
	}
	sort.Slice(groups, func(i, j int) bool {
		if groups[i].count != groups[j].count {
			return groups[i].count > groups[j].count
		}
		for k := range groups[i].key {
			if c := CompareNatural(groups[i].key[k], groups[j].key[k]); c != 0 {
				return c < 0
			}
		}
		return false
	})
	for _, gr := range groups {
		row := make([]Value, 0, len(t.Columns))
		for _, v := range gr.key {
			row = append(row, Text(v))
		}
		t.Rows = append(t.Rows, gr.cells(row, g.measures))
	}

	total := make([]Value, max(len(g.keys), 1), len(t.Columns))
	total[0] = Text(TotalLabel)
	t.Total = g.total.cells(total, g.measures)
	return t
}

// cells appends the count and the cells of the measures ms of gr to row ([cellsOf]); the sum of
// a measure whose values are unknown (usage without the metrics API) is a blank cell.
func (gr *group) cells(row []Value, ms []Measure) []Value {
	row = append(row, Count(gr.count))
	return append(row, cellsOf(ms, gr.sums)...)
}
