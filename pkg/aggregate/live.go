package aggregate

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
)

// Live keeps a [Grouper]'s counts and sums up to date while objects come, change and go (watch
// --group-by … --sum …): each object is held by a key of the caller's (its type and storage key),
// and setting it again or deleting it first takes out what it added before. Sums stay exact:
// resource.Quantity adds and subtracts without rounding. Build it with [NewLive].
//
// A Live is not safe for concurrent use.
type Live struct {
	g       *Grouper
	members map[string]liveMember
}

// liveMember is what one object added: its key values and its measures.
type liveMember struct {
	keyValues [][]string
	values    []resource.Quantity
}

// GroupState is a group's count and its measures, in the order of the measures: Sums holds each
// measure's sum (a share measure's usage), Cells each measure's cell as a [Table] prints it.
type GroupState struct {
	Count int64
	Sums  []resource.Quantity
	Cells []Value
}

// GroupChange is how one change of an object changed one group. Before.Count is 0 for a group
// the change created, After.Count 0 for one it emptied (and so removed). Key is nil for the totals
// row, which changes only where there are no keys to group by.
type GroupChange struct {
	Key           []string
	Before, After GroupState
}

// NewLive returns an empty Live grouping by the index names keys and summing ms, as
// [NewGrouper] does.
func NewLive(keys []string, ms []Measure) *Live {
	return &Live{g: NewGrouper(keys, ms), members: map[string]liveMember{}}
}

// Len is the number of objects counted.
func (l *Live) Len() int { return len(l.members) }

// Set adds obj under key, or replaces what key held, with obj's key values (as for
// [Grouper.Add]) and measures, and returns the groups that changed, in natural order of their
// key values. A measure's error is returned and nothing changes.
func (l *Live) Set(key string, obj interface{}, keyValues [][]string) ([]GroupChange, error) {
	return l.SetWith(key, obj, keyValues, l.g.measures)
}

// SetWith is Set with obj's measures computed by ms, the Live's measures bound otherwise
// (the same names in the same order; [BindUsage] to a caller's own samples): the Live then sums
// objects of several sources, each measured with its own.
func (l *Live) SetWith(key string, obj interface{}, keyValues [][]string, ms []Measure) ([]GroupChange, error) {
	if len(ms) != len(l.g.measures) {
		return nil, fmt.Errorf("summing %d measures, got %d", len(l.g.measures), len(ms))
	}
	values, err := Values(summed(ms), obj)
	if err != nil {
		return nil, err
	}
	m := liveMember{keyValues: make([][]string, len(keyValues)), values: values}
	for i, vs := range keyValues {
		m.keyValues[i] = append([]string(nil), vs...)
	}
	old, had := l.members[key]
	touched := l.touched(nil, m)
	if had {
		touched = l.touched(touched, old)
	}
	before := l.states(touched)
	if had {
		if err := l.g.remove(old.keyValues, old.values); err != nil {
			return nil, err
		}
	}
	if err := l.g.AddValues(m.keyValues, m.values); err != nil {
		if had {
			_ = l.g.AddValues(old.keyValues, old.values)
		}
		return nil, err
	}
	l.members[key] = m
	return l.changes(touched, before), nil
}

// Rebind makes ms the Live's measures: the same names in the same order, bound otherwise
// ([BindUsage]), so that its table's cells of a usage measure are blank while its samples are
// unknown. The sums are left as they are.
func (l *Live) Rebind(ms []Measure) error {
	if len(ms) != len(l.g.measures) {
		return fmt.Errorf("summing %d measures, got %d", len(l.g.measures), len(ms))
	}
	for i := range ms {
		if ms[i].Name != l.g.measures[i].Name {
			return fmt.Errorf("measure %d is %s, got %s", i, l.g.measures[i].Name, ms[i].Name)
		}
	}
	l.g.measures, l.g.parts = ms, summed(ms)
	return nil
}

// Delete takes out what key held, if anything, and returns the groups that changed.
func (l *Live) Delete(key string) []GroupChange {
	old, had := l.members[key]
	if !had {
		return nil
	}
	touched := l.touched(nil, old)
	before := l.states(touched)
	// remove fails only for values of the wrong shape, which Set never stores.
	_ = l.g.remove(old.keyValues, old.values)
	delete(l.members, key)
	return l.changes(touched, before)
}

// Table is the grouped table as it stands, as [Grouper.Table] returns it.
func (l *Live) Table() Table { return l.g.Table() }

// touched appends the group ids m is in (the totals row's, "", when there are no keys).
func (l *Live) touched(ids []string, m liveMember) []string {
	if len(l.g.keys) == 0 {
		if !contains(ids, "") {
			ids = append(ids, "")
		}
		return ids
	}
	eachCombination(m.keyValues, func(id string, _ []string) {
		if !contains(ids, id) {
			ids = append(ids, id)
		}
	})
	return ids
}

// states copies the state of each group id (zero for a group that does not exist).
func (l *Live) states(ids []string) []GroupState {
	out := make([]GroupState, len(ids))
	for i, id := range ids {
		gr := l.group(id)
		if gr == nil {
			continue
		}
		out[i] = GroupState{Count: gr.count, Cells: cellsOf(l.g.measures, gr.sums)}
		next := 0
		for _, m := range l.g.measures {
			out[i].Sums = append(out[i].Sums, gr.sums[next].DeepCopy())
			next++
			if m.IsShare() {
				next++
			}
		}
	}
	return out
}

func (l *Live) group(id string) *group {
	if len(l.g.keys) == 0 {
		return &l.g.total
	}
	return l.g.groups[id]
}

// changes compares each touched group with its state before, in natural order of key values.
func (l *Live) changes(ids []string, before []GroupState) []GroupChange {
	after := l.states(ids)
	var out []GroupChange
	for i, id := range ids {
		if sameState(before[i], after[i]) {
			continue
		}
		c := GroupChange{Before: before[i], After: after[i]}
		if len(l.g.keys) > 0 {
			c.Key = strings.Split(id, "\x00")
		}
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool {
		for k := range out[i].Key {
			if c := CompareNatural(out[i].Key[k], out[j].Key[k]); c != 0 {
				return c < 0
			}
		}
		return false
	})
	return out
}

func sameState(a, b GroupState) bool {
	if a.Count != b.Count || len(a.Sums) != len(b.Sums) {
		return a.Count == 0 && b.Count == 0
	}
	for i := range a.Sums {
		if a.Sums[i].Cmp(b.Sums[i]) != 0 {
			return false
		}
	}
	if len(a.Cells) != len(b.Cells) {
		return false
	}
	for i := range a.Cells {
		aOf, _ := a.Cells[i].Allocatable()
		bOf, _ := b.Cells[i].Allocatable()
		if aOf.Cmp(bOf) != 0 || a.Cells[i].IsBlank() != b.Cells[i].IsBlank() {
			return false
		}
	}
	return true
}
