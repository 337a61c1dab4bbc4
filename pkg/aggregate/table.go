package aggregate

import (
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
)

// NoValue is how a group with no value for a key prints, as kubectl prints an absent field.
const NoValue = "<none>"

// TotalLabel is the first key cell of a totals row.
const TotalLabel = "TOTAL"

// UnknownPercent is how a percentage prints when the allocatable it is a share of is unknown.
const UnknownPercent = "?"

type valueKind int

const (
	kindBlank valueKind = iota
	kindText
	kindNumber // a count or a quantity
	kindShare  // a quantity and the allocatable it is a share of
)

// Value is one cell of a [Table]: a text (a group's indexed value, a node name), a number (a
// count, a quantity), or a share (a quantity used of an allocatable quantity, with its percentage).
// The zero Value is a blank cell.
type Value struct {
	kind    valueKind
	text    string
	q       resource.Quantity
	of      resource.Quantity // kindShare: allocatable, when ofKnown
	ofKnown bool
	count   bool // a count, or a kindShare of a count (pods): printed as integers, "12/110 (10%)"
	showOf  bool // a kindShare that prints what it is a share of: "721m/1500m (48%)" (share measures)
}

// Text is a text cell; the empty text prints as [NoValue].
func Text(s string) Value { return Value{kind: kindText, text: s} }

// Count is a number cell holding n, printed as an integer: 10000, not the quantity "10k".
func Count(n int64) Value {
	return Value{kind: kindNumber, q: *resource.NewQuantity(n, resource.DecimalSI), count: true}
}

// Quantity is a number cell holding q, printed in canonical form ("1330m", "4256Mi").
func Quantity(q resource.Quantity) Value { return Value{kind: kindNumber, q: q} }

// Share is a cell of used out of the allocatable of; known false when the allocatable is
// unknown (nodes could not be listed). It prints "1330m (33%)", or "1330m (?)" when unknown.
func Share(used, of resource.Quantity, known bool) Value {
	return Value{kind: kindShare, q: used, of: of, ofKnown: known}
}

// CountShare is a cell of n objects out of the allocatable of (pods of a node's pod capacity).
// It prints "12/110 (10%)", or "12 (?)" when the allocatable is unknown; the count and the
// allocatable print as integers (10000/12060, not 10k/12060).
func CountShare(n int64, of resource.Quantity, known bool) Value {
	v := Share(*resource.NewQuantity(n, resource.DecimalSI), of, known)
	v.count = true
	return v
}

// IsNumber reports whether v is a number cell: a count or a quantity, not a share.
func (v Value) IsNumber() bool { return v.kind == kindNumber }

// IsShare reports whether v is a share cell.
func (v Value) IsShare() bool { return v.kind == kindShare }

// IsBlank reports whether v is a blank cell.
func (v Value) IsBlank() bool { return v.kind == kindBlank }

// Text returns the text of a text cell, and "" for others.
func (v Value) Text() string { return v.text }

// Quantity returns the number of a number cell or the used quantity of a share; zero for text.
func (v Value) Quantity() resource.Quantity { return v.q }

// Allocatable returns the allocatable quantity of a share and whether it is known.
func (v Value) Allocatable() (resource.Quantity, bool) { return v.of, v.kind == kindShare && v.ofKnown }

// Percent returns the percentage of a share: used × 100 / allocatable, rounded down to an integer,
// as kubectl describe node and kube-capacity print it, but computed exactly (no float rounding).
// ok is false when the allocatable is unknown or not positive, and for cells that are not shares.
func (v Value) Percent() (percent int64, ok bool) {
	r, ok := v.ratio()
	if !ok {
		return 0, false
	}
	r.Mul(r, big.NewRat(100, 1))
	p := new(big.Int).Quo(r.Num(), r.Denom()) // truncates toward zero: rounds a positive ratio down
	if !p.IsInt64() {
		return 0, false
	}
	return p.Int64(), true
}

// ratio is used / allocatable of a share with a known, positive allocatable.
func (v Value) ratio() (*big.Rat, bool) {
	if v.kind != kindShare || !v.ofKnown || v.of.Sign() <= 0 {
		return nil, false
	}
	return new(big.Rat).Quo(ratOf(v.q), ratOf(v.of)), true
}

// ratOf is q as an exact rational number.
func ratOf(q resource.Quantity) *big.Rat {
	d := q.AsDec() // q is a copy: converting it leaves the caller's quantity alone
	r := new(big.Rat).SetInt(d.UnscaledBig())
	scale := int64(d.Scale())
	if scale == 0 {
		return r
	}
	pow := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(abs(scale)), nil))
	if scale > 0 {
		return r.Quo(r, pow)
	}
	return r.Mul(r, pow)
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// String prints the cell: a text as it is ([NoValue] when empty), a number in canonical
// quantity form, a share as "1330m (33%)" or "12/110 (10%)", a share measure's cell as
// "721m/1500m (48%)", or "721m/0" when it is a share of nothing.
func (v Value) String() string {
	switch v.kind {
	case kindText:
		if v.text == "" {
			return NoValue
		}
		return v.text
	case kindNumber:
		return v.number(v.q)
	case kindShare:
		percent := UnknownPercent
		if p, ok := v.Percent(); ok {
			percent = strconv.FormatInt(p, 10) + "%"
		}
		if v.showOf && v.ofKnown && v.of.Sign() == 0 {
			return fmt.Sprintf("%s/%s", v.number(v.q), v.number(v.of))
		}
		if (v.count || v.showOf) && v.ofKnown {
			return fmt.Sprintf("%s/%s (%s)", v.number(v.q), v.number(v.of), percent)
		}
		return fmt.Sprintf("%s (%s)", v.number(v.q), percent)
	}
	return ""
}

// number prints q: as an integer in a count's cell (rounded up, as Quantity.Value does), in
// canonical quantity form otherwise.
func (v Value) number(q resource.Quantity) string {
	if v.count {
		return strconv.FormatInt(q.Value(), 10)
	}
	return q.String()
}

// compareValues orders two cells of one column: texts naturally ([CompareNatural]), numbers
// numerically, shares by their ratio when both allocatables are known and by quantity when
// neither is. A blank cell, and a share whose allocatable is unknown among shares whose
// allocatable is known, have nothing to compare: last is 1 when a is such a cell and b is not,
// -1 the other way round, and such cells sort last in either direction.
func compareValues(a, b Value) (cmp int, last int) {
	switch aBlank, bBlank := a.kind == kindBlank, b.kind == kindBlank; {
	case aBlank && bBlank:
		return 0, 0
	case aBlank:
		return 0, 1
	case bBlank:
		return 0, -1
	}
	switch {
	case a.kind == kindText && b.kind == kindText:
		return CompareNatural(a.text, b.text), 0
	case a.kind == kindShare && b.kind == kindShare:
		ra, aOK := a.ratio()
		rb, bOK := b.ratio()
		switch {
		case aOK && bOK:
			if c := ra.Cmp(rb); c != 0 {
				return c, 0
			}
		case aOK:
			return 0, -1
		case bOK:
			return 0, 1
		}
	}
	return a.q.Cmp(b.q), 0
}

// CompareNatural compares two strings in natural order: runs of digits compare as numbers, so
// "node-2" comes before "node-10"; other runs compare byte-wise. Strings equal in natural order
// ("a01", "a1") are ordered byte-wise.
func CompareNatural(a, b string) int {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if isDigit(a[i]) && isDigit(b[j]) {
			si, sj := i, j
			for i < len(a) && isDigit(a[i]) {
				i++
			}
			for j < len(b) && isDigit(b[j]) {
				j++
			}
			na := strings.TrimLeft(a[si:i], "0")
			nb := strings.TrimLeft(b[sj:j], "0")
			if len(na) != len(nb) {
				return compareInt(len(na), len(nb))
			}
			if c := strings.Compare(na, nb); c != 0 {
				return c
			}
			continue
		}
		if a[i] != b[j] {
			return compareInt(int(a[i]), int(b[j]))
		}
		i++
		j++
	}
	if c := compareInt(len(a)-i, len(b)-j); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func compareInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Table is a grouped table: one row per group, in Columns' order, and a totals row.
//
// Columns are the names --sort-by matches ("node", "count", "requests.cpu"); Headers, when set,
// are what a printer shows instead of the upper-cased column names ("CPU REQUESTS").
type Table struct {
	Columns []string
	Headers []string
	Rows    [][]Value
	// Total is the totals row, nil when there is none. It adds up every object once, so it can
	// be less than the sum of the rows when an object is in several groups, and [Table.Top]
	// leaves it alone: it stays the total of all groups.
	Total []Value
}

// Column returns the position of the column name, matched against Columns and Headers without
// regard to case.
func (t *Table) Column(name string) (int, bool) {
	for i, c := range t.Columns {
		if strings.EqualFold(c, name) {
			return i, true
		}
	}
	for i, h := range t.Headers {
		if strings.EqualFold(h, name) {
			return i, true
		}
	}
	return 0, false
}

// SortBy orders the rows by the column name, ascending or descending: texts naturally, numbers
// and quantities numerically, shares by percentage (see [Value.Percent]); cells with nothing to
// compare (a share of an unknown allocatable among known ones) come last either way. Rows that
// tie keep their order. An unknown column is an error naming --sort-by and the columns.
func (t *Table) SortBy(name string, descending bool) error {
	col, ok := t.Column(name)
	if !ok {
		return fmt.Errorf("--sort-by: no column %q; columns are %s", name, strings.Join(t.Columns, ", "))
	}
	sort.SliceStable(t.Rows, func(i, j int) bool {
		cmp, last := compareValues(cell(t.Rows[i], col), cell(t.Rows[j], col))
		if last != 0 {
			return last < 0
		}
		if descending {
			return cmp > 0
		}
		return cmp < 0
	})
	return nil
}

// cell returns row[col], or a blank cell when the row is short.
func cell(row []Value, col int) Value {
	if col < len(row) {
		return row[col]
	}
	return Value{}
}

// Top keeps the first n rows; n <= 0 keeps them all. The totals row is unchanged.
func (t *Table) Top(n int) {
	if n > 0 && n < len(t.Rows) {
		t.Rows = t.Rows[:n]
	}
}

// Strings returns what a printer writes: the header (Headers, or the upper-cased Columns) and
// the rows as strings, the totals row last.
func (t *Table) Strings() (header []string, rows [][]string) {
	header = make([]string, len(t.Columns))
	for i, c := range t.Columns {
		if i < len(t.Headers) && t.Headers[i] != "" {
			header[i] = t.Headers[i]
		} else {
			header[i] = strings.ToUpper(c)
		}
	}
	rows = make([][]string, 0, len(t.Rows)+1)
	for _, r := range t.Rows {
		rows = append(rows, rowStrings(r))
	}
	if t.Total != nil {
		rows = append(rows, rowStrings(t.Total))
	}
	return header, rows
}

func rowStrings(r []Value) []string {
	s := make([]string, len(r))
	for i, v := range r {
		s[i] = v.String()
	}
	return s
}
