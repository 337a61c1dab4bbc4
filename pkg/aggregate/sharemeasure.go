package aggregate

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
)

// shareParts are the two measures of a share measure (usage.cpu/requests.cpu): what is used,
// and what it is a share of.
type shareParts struct {
	used, of Measure
}

// shareMeasure builds the measure USAGE/RESOURCE-MEASURE ("usage.cpu/requests.cpu",
// "usage.memory/limits.memory"): a usage measure as a share of the requests or limits of the
// same resource.
func shareMeasure(s, used, of string) (Measure, error) {
	u, err := usageMeasure(used, strings.TrimPrefix(used, usagePrefix))
	if err != nil {
		return Measure{}, err
	}
	o, err := ParseMeasure(of)
	if err != nil || (o.kind != measureRequests && o.kind != measureLimits) || o.glob || o.Resource != u.Resource {
		return Measure{}, fmt.Errorf("%s %s: usage is a share of the requests or limits of the same resource: %s/requests.%s or %s/limits.%s",
			sumFlag, s, used, u.Resource, used, u.Resource)
	}
	return Measure{Name: s, PodsOnly: true, Resource: u.Resource, kind: measureShare, share: &shareParts{used: u, of: o}}, nil
}

// IsShare reports whether m is a share measure (usage.cpu/requests.cpu): per group, its usage,
// its requests (or limits) and the one as a share of the other, in one cell.
func (m Measure) IsShare() bool { return m.kind == measureShare }

// summed returns the measures a [Grouper] of ms sums for each object: ms in order, each share
// measure replaced by its two parts (what is used, then what it is a share of).
func summed(ms []Measure) []Measure {
	out := make([]Measure, 0, len(ms))
	for _, m := range ms {
		if m.IsShare() {
			out = append(out, m.share.used, m.share.of)
			continue
		}
		out = append(out, m)
	}
	return out
}

// ShareCell is the cell of a share measure whose parts sum to used and of: a share that prints
// "721m/1500m (48%)", or "721m/0" when there is nothing to be a share of.
func ShareCell(used, of resource.Quantity) Value {
	return Value{kind: kindShare, q: used, of: of, ofKnown: true, showOf: true}
}

// cellsOf returns the cells of the measures ms from the sums of summed(ms), in the order of ms:
// a quantity per measure, a share per share measure, a blank cell for a usage measure (or a
// share of one) bound to no samples.
func cellsOf(ms []Measure, sums []resource.Quantity) []Value {
	cells := make([]Value, 0, len(ms))
	next := 0
	for _, m := range ms {
		switch {
		case m.IsShare() && next+1 < len(sums):
			if m.share.used.unknown() {
				cells = append(cells, Value{})
			} else {
				cells = append(cells, ShareCell(sums[next], sums[next+1]))
			}
			next += 2
		case next < len(sums):
			if m.unknown() {
				cells = append(cells, Value{})
			} else {
				cells = append(cells, Quantity(sums[next]))
			}
			next++
		}
	}
	return cells
}
