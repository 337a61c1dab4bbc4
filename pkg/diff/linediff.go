package diff

import (
	"strconv"
)

// Limits on the line diff of Unified. Beyond them, the lines between the
// common head and tail are shown as one block removed and one block added,
// which is correct but not minimal.
const (
	maxDiffEdits = 1000    // most lines the diff will add plus remove
	maxDiffWork  = 1 << 25 // most steps the diff will take
)

// editKind is one step of a line diff.
type editKind uint8

const (
	editEqual editKind = iota
	editDelete
	editInsert
)

// edit is one line of a diff: line a of the old text, line b of the new, or
// both; for a delete, b is where the new text stands, and for an insert, a
// is where the old one does.
type edit struct {
	kind editKind
	a, b int
}

// diffLines returns an edit script that turns a into b.
func diffLines(a, b []string) []edit {
	head := 0
	for head < len(a) && head < len(b) && a[head] == b[head] {
		head++
	}
	tail := 0
	for tail < len(a)-head && tail < len(b)-head && a[len(a)-1-tail] == b[len(b)-1-tail] {
		tail++
	}
	edits := make([]edit, 0, len(a)+len(b)-head-tail)
	for i := 0; i < head; i++ {
		edits = append(edits, edit{kind: editEqual, a: i, b: i})
	}
	am, bm := a[head:len(a)-tail], b[head:len(b)-tail]
	middle, ok := myers(am, bm)
	if !ok {
		middle = middle[:0]
		for i := range am {
			middle = append(middle, edit{kind: editDelete, a: i, b: 0})
		}
		for j := range bm {
			middle = append(middle, edit{kind: editInsert, a: len(am), b: j})
		}
	}
	for _, e := range middle {
		edits = append(edits, edit{kind: e.kind, a: e.a + head, b: e.b + head})
	}
	for i := 0; i < tail; i++ {
		edits = append(edits, edit{kind: editEqual, a: len(a) - tail + i, b: len(b) - tail + i})
	}
	return edits
}

// myers returns a shortest edit script from a to b (Myers, "An O(ND)
// Difference Algorithm and Its Variations", 1986), or false if it needs more
// than maxDiffEdits edits or maxDiffWork steps.
func myers(a, b []string) ([]edit, bool) {
	n, m := len(a), len(b)
	if n == 0 && m == 0 {
		return nil, true
	}
	maxD := min(n+m, maxDiffEdits)
	off := maxD + 1
	v := make([]int32, 2*maxD+3) // v[off+k]: furthest x on diagonal k
	// trace[d] holds v[-d..d] as it was before round d.
	var trace [][]int32
	work := 0
	for d := 0; d <= maxD; d++ {
		trace = append(trace, append([]int32(nil), v[off-d:off+d+1]...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || k != d && v[off+k-1] < v[off+k+1] {
				x = int(v[off+k+1])
			} else {
				x = int(v[off+k-1]) + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
				work++
			}
			work++
			v[off+k] = int32(x)
			if x >= n && y >= m {
				return backtrack(trace, n, m), true
			}
		}
		if work > maxDiffWork {
			return nil, false
		}
	}
	return nil, false
}

// backtrack follows the trace of myers back from (n, m) to (0, 0).
func backtrack(trace [][]int32, n, m int) []edit {
	var rev []edit
	x, y := n, m
	for d := len(trace) - 1; d > 0; d-- {
		v := trace[d] // v[i] is diagonal i-d
		k := x - y
		var prevK int
		if k == -d || k != d && v[k-1+d] < v[k+1+d] {
			prevK = k + 1
		} else {
			prevK = k - 1
		}
		prevX := int(v[prevK+d])
		prevY := prevX - prevK
		for x > prevX && y > prevY {
			x--
			y--
			rev = append(rev, edit{kind: editEqual, a: x, b: y})
		}
		if x == prevX {
			y--
			rev = append(rev, edit{kind: editInsert, a: x, b: y})
		} else {
			x--
			rev = append(rev, edit{kind: editDelete, a: x, b: y})
		}
	}
	for x > 0 && y > 0 {
		x--
		y--
		rev = append(rev, edit{kind: editEqual, a: x, b: y})
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev
}

// hunk is a run of edits[first:last] shown together, and its line ranges.
type hunk struct {
	first, last    int
	aStart, aCount int // aStart is 0-based
	bStart, bCount int
}

// groupHunks groups the changes of edits with up to context equal lines
// around each, merging groups that would touch or overlap.
func groupHunks(edits []edit, context int) []hunk {
	var hunks []hunk
	for i := 0; i < len(edits); {
		if edits[i].kind == editEqual {
			i++
			continue
		}
		first := max(0, i-context)
		// Extend over changes separated by at most 2*context equal lines.
		last := i
		for j := i; j < len(edits); {
			if edits[j].kind != editEqual {
				j++
				last = j
				continue
			}
			run := j
			for run < len(edits) && edits[run].kind == editEqual {
				run++
			}
			if run == len(edits) || run-j > 2*context {
				break
			}
			j = run
		}
		end := min(len(edits), last+context)
		h := hunk{first: first, last: end, aStart: edits[first].a, bStart: edits[first].b}
		for _, e := range edits[first:end] {
			if e.kind != editInsert {
				h.aCount++
			}
			if e.kind != editDelete {
				h.bCount++
			}
		}
		hunks = append(hunks, h)
		i = end
	}
	return hunks
}

// appendRange appends a hunk range the way diff -u writes it: the 1-based
// first line and the count, with the count left out when it is 1, and the
// line before the hunk when the count is 0.
func appendRange(b []byte, start, count int) []byte {
	if count == 0 {
		b = strconv.AppendInt(b, int64(start), 10)
		return append(b, ",0"...)
	}
	b = strconv.AppendInt(b, int64(start+1), 10)
	if count != 1 {
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(count), 10)
	}
	return b
}
