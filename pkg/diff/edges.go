package diff

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// This file holds the edges of the walker's current path, how a change's
// path is written (as a display path or a JSON Pointer), and the order in
// which changes are returned.

// edgeKind says how a path edge is written.
type edgeKind uint8

const (
	edgeKey   edgeKind = iota // a map key
	edgeIndex                 // a list index
	edgeNamed                 // a list element matched by a field, such as [name=web]
)

// edge is one step of the current path: from a node at depth d to its child.
type edge struct {
	key   string      // edgeKey: the map key; edgeNamed: the field
	value interface{} // edgeNamed: the field's value
	index int         // edgeIndex: the index (in JSONPatch, in the list as patched so far)
	ord   int         // order among the siblings of a list, for sorting
	kind  edgeKind
}

// order returns the indices of the recorded changes sorted by path: map keys
// in byte order, list elements in walk order.
func (w *walker) order() []int {
	idx := make([]int, len(w.spans))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return compareEdges(w.pathOf(a), w.pathOf(b)) })
	return idx
}

func (w *walker) pathOf(i int) []edge {
	start := 0
	if i > 0 {
		start = w.spans[i-1]
	}
	return w.keys[start:w.spans[i]]
}

func compareEdges(a, b []edge) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		x, y := &a[i], &b[i]
		if x.kind == edgeKey && y.kind == edgeKey {
			if c := strings.Compare(x.key, y.key); c != 0 {
				return c
			}
			continue
		}
		if c := cmp.Compare(x.ord, y.ord); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

func (w *walker) sortedChanges() []Change {
	if len(w.changes) < 2 {
		return w.changes
	}
	out := make([]Change, len(w.changes))
	for i, j := range w.order() {
		out[i] = w.changes[j]
	}
	return out
}

func (w *walker) sortedOps() []PatchOp {
	if len(w.ops) < 2 {
		return w.ops
	}
	out := make([]PatchOp, len(w.ops))
	for i, j := range w.order() {
		out[i] = w.ops[j]
	}
	return out
}

// displayPath writes a path the way Change.Path shows it.
func displayPath(path []edge) string {
	b := make([]byte, 0, 64)
	for i := range path {
		e := &path[i]
		switch e.kind {
		case edgeKey:
			b = appendKeySegment(b, e.key, i == 0)
		case edgeIndex:
			b = append(b, '[')
			b = strconv.AppendInt(b, int64(e.index), 10)
			b = append(b, ']')
		case edgeNamed:
			s, _ := formatKeyScalar(e.value)
			b = appendSelector(b, e.key, s)
		}
	}
	return string(b)
}

// pointer writes a path as an RFC 6901 JSON Pointer.
func pointer(path []edge) string {
	b := make([]byte, 0, 64)
	for i := range path {
		e := &path[i]
		b = append(b, '/')
		if e.kind == edgeKey {
			b = appendPointerToken(b, e.key)
		} else {
			b = strconv.AppendInt(b, int64(e.index), 10)
		}
	}
	return string(b)
}

// appendPointerToken appends a map key escaped for a JSON Pointer: ~ as ~0, / as ~1.
func appendPointerToken(b []byte, key string) []byte {
	for i := 0; i < len(key); i++ {
		switch c := key[i]; c {
		case '~':
			b = append(b, '~', '0')
		case '/':
			b = append(b, '~', '1')
		default:
			b = append(b, c)
		}
	}
	return b
}
