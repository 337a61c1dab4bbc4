package diff

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// This file holds the walker shared by Compare, Changed and JSONPatch. It
// visits old and new together and reports differences at the shallowest
// path where they occur, honouring the Options filter (see the package
// documentation for what Ignore and Only mean).
//
// Filtering is tracked without allocating: every Options path is a pattern,
// and a pattern that has matched the first d edges of the current path is
// "alive" at depth d. Since every segment matches exactly one edge, a
// pattern's next segment is always its segment d, and the set of patterns
// alive at depth d+1 is a subset of those alive at depth d, kept in a
// per-depth buffer. A pattern that matches its last segment marks the node
// (and everything under it) as ignored, inside Only, or redacted.

// role says which option list a pattern comes from.
type role uint8

const (
	roleIgnore role = iota
	roleOnly
	roleRedact
)

// filter holds the Options paths; pattern i indexes Ignore, then Only, then Redact.
type filter struct {
	ignore, only, redact []Path
}

func (f *filter) size() int { return len(f.ignore) + len(f.only) + len(f.redact) }

func (f *filter) pattern(i int) (*Path, role) {
	if i < len(f.ignore) {
		return &f.ignore[i], roleIgnore
	}
	i -= len(f.ignore)
	if i < len(f.only) {
		return &f.only[i], roleOnly
	}
	return &f.redact[i-len(f.only)], roleRedact
}

// state is what the filter says about one node.
type state struct {
	alive     []int32 // patterns that matched the path so far and go deeper
	ignored   bool    // at or under an Ignore path
	inOnly    bool    // at or under an Only path, or Only is empty
	redacted  bool    // at or under a Redact path
	aliveIgn  bool    // some alive pattern is an Ignore path
	aliveOnly bool    // some alive pattern is an Only path
	aliveRed  bool    // some alive pattern is a Redact path
}

// skip reports whether nothing at or under the node counts.
func (s state) skip() bool { return s.ignored || !s.inOnly && !s.aliveOnly }

// partial reports whether the node counts but some of what is under it does
// not (or, outside Only, only some of it does).
func (s state) partial() bool { return s.aliveIgn || !s.inOnly && s.aliveOnly }

// hidden reports whether a change at the node must not show its values.
func (s state) hidden() bool { return s.redacted || s.aliveRed }

func (s *state) matched(r role, last bool) {
	switch {
	case r == roleIgnore && last:
		s.ignored = true
	case r == roleIgnore:
		s.aliveIgn = true
	case r == roleOnly && last:
		s.inOnly = true
	case r == roleOnly:
		s.aliveOnly = true
	case last:
		s.redacted = true
	default:
		s.aliveRed = true
	}
}

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

// namedFields are the fields that identify list elements, in order of preference.
var namedFields = [...]string{"name", "type", "key", "uid", "ip", "containerPort", "devicePath", "mountPath"}

// walker compares two objects. It is used once.
type walker struct {
	f     filter
	named bool // match lists of named elements by name (Compare); else by index (JSONPatch)
	patch bool // collect PatchOps rather than Changes
	stop  bool // stop at the first change (Changed)
	found bool // a change was found

	stack   []edge // stack[d] is the edge from the node at depth d to the child being visited
	keys    []edge // copies of the path of each change, for sorting
	spans   []int  // spans[i] is the end of change i's path in keys
	changes []Change
	ops     []PatchOp

	aliveHeap   []int32
	aliveInline [48]int32
	stackInline [16]edge
	keysInline  [16]edge
	spansInline [4]int
}

// init sets up the filter; redact says whether Options.Redact applies.
func (w *walker) init(opts Options, redact bool) {
	w.stack, w.keys, w.spans = w.stackInline[:0], w.keysInline[:0], w.spansInline[:0]
	w.f = filter{ignore: opts.Ignore, only: opts.Only}
	if redact {
		w.f.redact = opts.Redact
	}
}

// levelBuf returns an empty buffer for the patterns alive at depth d.
func (w *walker) levelBuf(d int) []int32 {
	n := w.f.size()
	if (d+1)*n <= len(w.aliveInline) {
		return w.aliveInline[d*n : d*n : (d+1)*n]
	}
	if len(w.aliveHeap) < (d+1)*n {
		// Earlier levels keep pointing into the old array, which they own.
		w.aliveHeap = make([]int32, 2*(d+1)*n)
	}
	return w.aliveHeap[d*n : d*n : (d+1)*n]
}

// rootState returns the state of the root node.
func (w *walker) rootState() state {
	st := state{inOnly: len(w.f.only) == 0}
	n := w.f.size()
	if n == 0 {
		return st
	}
	buf := w.levelBuf(0)
	for i := 0; i < n; i++ {
		p, r := w.f.pattern(i)
		st.matched(r, len(p.segs) == 0)
		if len(p.segs) > 0 {
			buf = append(buf, int32(i))
		}
	}
	st.alive = buf
	return st
}

// childKey returns the state of the child at map key key of a node at depth d.
func (w *walker) childKey(st state, d int, key string) state {
	c := state{ignored: st.ignored, inOnly: st.inOnly, redacted: st.redacted}
	if len(st.alive) == 0 {
		return c
	}
	buf := w.levelBuf(d + 1)
	for _, i := range st.alive {
		p, r := w.f.pattern(int(i))
		if !p.segs[d].matchesKey(key) {
			continue
		}
		last := len(p.segs) == d+1
		c.matched(r, last)
		if !last {
			buf = append(buf, i)
		}
	}
	c.alive = buf
	return c
}

// childElem returns the state of a list element of a node at depth d: the
// element oe at index oi of the old list and ne at ni of the new one, where
// an index of -1 means that side is absent.
func (w *walker) childElem(st state, d int, oi, ni int, oe, ne interface{}) state {
	c := state{ignored: st.ignored, inOnly: st.inOnly, redacted: st.redacted}
	if len(st.alive) == 0 {
		return c
	}
	buf := w.levelBuf(d + 1)
	for _, i := range st.alive {
		p, r := w.f.pattern(int(i))
		if !p.segs[d].matchesElem(oi, ni, oe, ne) {
			continue
		}
		last := len(p.segs) == d+1
		c.matched(r, last)
		if !last {
			buf = append(buf, i)
		}
	}
	c.alive = buf
	return c
}

// done reports whether the walk can stop.
func (w *walker) done() bool { return w.stop && w.found }

// setEdge records the edge from the node at depth d to the child about to be visited.
func (w *walker) setEdge(d int, e edge) {
	if d < len(w.stack) {
		w.stack[d] = e
		return
	}
	w.stack = append(w.stack, e)
}

// node compares the old value o (if hasO) with the new value n (if hasN) at
// depth d.
func (w *walker) node(d int, o interface{}, hasO bool, n interface{}, hasN bool, st state) {
	if w.done() || st.skip() {
		return
	}
	switch {
	case hasO && hasN:
		switch ov := o.(type) {
		case map[string]interface{}:
			if nv, ok := n.(map[string]interface{}); ok {
				w.maps(d, ov, nv, st)
				return
			}
		case []interface{}:
			if nv, ok := n.([]interface{}); ok {
				w.lists(d, ov, nv, st)
				return
			}
		default:
			if scalarEqual(o, n) {
				return
			}
		}
		w.replace(d, o, n, st)
	case hasO:
		w.remove(d, o, st)
	case hasN:
		w.add(d, n, st)
	}
}

func (w *walker) maps(d int, o, n map[string]interface{}, st state) {
	common := 0
	for k, ov := range o {
		if w.done() {
			return
		}
		nv, ok := n[k]
		if ok {
			common++
		}
		cs := w.childKey(st, d, k)
		w.setEdge(d, edge{kind: edgeKey, key: k})
		w.node(d+1, ov, true, nv, ok, cs)
	}
	if common == len(n) {
		return // n has no key that o lacks
	}
	for k, nv := range n {
		if w.done() {
			return
		}
		if _, ok := o[k]; ok {
			continue
		}
		cs := w.childKey(st, d, k)
		w.setEdge(d, edge{kind: edgeKey, key: k})
		w.node(d+1, nil, false, nv, true, cs)
	}
}

func (w *walker) lists(d int, o, n []interface{}, st state) {
	if w.named {
		if f := namedField(o, n); f != "" {
			w.namedLists(d, o, n, f, st)
			return
		}
	}
	m := min(len(o), len(n))
	for i := 0; i < m; i++ {
		if w.done() {
			return
		}
		cs := w.childElem(st, d, i, i, o[i], n[i])
		w.setEdge(d, edge{kind: edgeIndex, index: i, ord: i})
		w.node(d+1, o[i], true, n[i], true, cs)
	}
	if len(o) > m {
		if w.patch {
			// Remove from the end, so the indices of the elements still to
			// visit do not move.
			for i := len(o) - 1; i >= m; i-- {
				cs := w.childElem(st, d, i, -1, o[i], nil)
				w.setEdge(d, edge{kind: edgeIndex, index: i, ord: m + len(o) - 1 - i})
				w.node(d+1, o[i], true, nil, false, cs)
			}
			return
		}
		for i := m; i < len(o); i++ {
			if w.done() {
				return
			}
			cs := w.childElem(st, d, i, -1, o[i], nil)
			w.setEdge(d, edge{kind: edgeIndex, index: i, ord: i})
			w.node(d+1, o[i], true, nil, false, cs)
		}
	}
	// In a patch, an added element goes at the current end of the list,
	// which is behind the previous element that was added (some may have
	// been left out by the filter).
	end := m
	for i := m; i < len(n); i++ {
		if w.done() {
			return
		}
		cs := w.childElem(st, d, -1, i, nil, n[i])
		index := i
		if w.patch {
			index = end
		}
		w.setEdge(d, edge{kind: edgeIndex, index: index, ord: i})
		if !cs.skip() && w.add(d+1, n[i], cs) {
			end++
		}
	}
}

// namedLists compares two lists whose elements are maps identified by field f.
func (w *walker) namedLists(d int, o, n []interface{}, f string, st state) {
	var usedSmall uint64
	var usedLarge []bool
	if len(n) > 64 {
		usedLarge = make([]bool, len(n))
	}
	for i, oe := range o {
		if w.done() {
			return
		}
		key := oe.(map[string]interface{})[f]
		j := findNamed(n, f, key, i)
		if j < 0 {
			cs := w.childElem(st, d, i, -1, oe, nil)
			w.setEdge(d, edge{kind: edgeNamed, key: f, value: key, index: i, ord: i})
			w.node(d+1, oe, true, nil, false, cs)
			continue
		}
		if usedLarge != nil {
			usedLarge[j] = true
		} else {
			usedSmall |= 1 << uint(j)
		}
		cs := w.childElem(st, d, i, j, oe, n[j])
		w.setEdge(d, edge{kind: edgeNamed, key: f, value: key, index: j, ord: i})
		w.node(d+1, oe, true, n[j], true, cs)
	}
	for j, ne := range n {
		if w.done() {
			return
		}
		if usedLarge != nil && usedLarge[j] || usedLarge == nil && usedSmall&(1<<uint(j)) != 0 {
			continue
		}
		key := ne.(map[string]interface{})[f]
		cs := w.childElem(st, d, -1, j, nil, ne)
		w.setEdge(d, edge{kind: edgeNamed, key: f, value: key, index: j, ord: len(o) + j})
		w.node(d+1, nil, false, ne, true, cs)
	}
}

// findNamed returns the index of the element of l whose field f equals key,
// trying index hint first, or -1.
func findNamed(l []interface{}, f string, key interface{}, hint int) int {
	if hint < len(l) && scalarEqual(l[hint].(map[string]interface{})[f], key) {
		return hint
	}
	for j, e := range l {
		if j != hint && scalarEqual(e.(map[string]interface{})[f], key) {
			return j
		}
	}
	return -1
}

// namedField returns the field that identifies the elements of both lists,
// or "" if they are not lists of named elements.
func namedField(o, n []interface{}) string {
	var first interface{}
	switch {
	case len(o) > 0:
		first = o[0]
	case len(n) > 0:
		first = n[0]
	default:
		return ""
	}
	m, ok := first.(map[string]interface{})
	if !ok {
		return ""
	}
	for _, f := range namedFields {
		if _, ok := m[f]; ok && namedBy(o, f) && namedBy(n, f) {
			return f
		}
	}
	return ""
}

// namedBy reports whether every element of l is a map with a string or
// number in field f that no other element has.
func namedBy(l []interface{}, f string) bool {
	// Short lists compare pairwise; long ones remember what they saw.
	var seenStrings map[string]struct{}
	var seenNumbers map[number]struct{}
	if len(l) > 16 {
		seenStrings = make(map[string]struct{}, len(l))
		seenNumbers = make(map[number]struct{})
	}
	for i, e := range l {
		m, ok := e.(map[string]interface{})
		if !ok {
			return false
		}
		v, ok := m[f]
		if !ok || !isKeyScalar(v) {
			return false
		}
		if seenStrings == nil {
			for _, prev := range l[:i] {
				if scalarEqual(prev.(map[string]interface{})[f], v) {
					return false
				}
			}
			continue
		}
		if s, isString := v.(string); isString {
			if _, dup := seenStrings[s]; dup {
				return false
			}
			seenStrings[s] = struct{}{}
			continue
		}
		n, _ := toNumber(v)
		n = n.canonical()
		if _, dup := seenNumbers[n]; dup {
			return false
		}
		seenNumbers[n] = struct{}{}
	}
	return true
}

// replace handles values that differ in type, or scalars that differ.
func (w *walker) replace(d int, o, n interface{}, st state) {
	if !st.partial() {
		w.emit(d, Modified, o, n, st)
		return
	}
	if pv, ok := w.project(d, n, st); ok {
		w.emit(d, Modified, o, pv, st)
		return
	}
	// Outside Only, and n holds nothing inside Only: what is inside Only
	// in o goes away, the rest stays.
	w.removeInside(d, o, st)
}

// remove handles a value that exists only in the old object.
func (w *walker) remove(d int, o interface{}, st state) {
	if !st.partial() {
		w.emit(d, Removed, o, nil, st)
		return
	}
	if st.inOnly && !w.retained(d, o, st) {
		w.emit(d, Removed, o, nil, st)
		return
	}
	w.removeInside(d, o, st)
}

// removeInside removes what counts under o, keeping what does not.
func (w *walker) removeInside(d int, o interface{}, st state) {
	switch ov := o.(type) {
	case map[string]interface{}:
		for k, cv := range ov {
			if w.done() {
				return
			}
			cs := w.childKey(st, d, k)
			w.setEdge(d, edge{kind: edgeKey, key: k})
			w.node(d+1, cv, true, nil, false, cs)
		}
	case []interface{}:
		if w.patch {
			for i := len(ov) - 1; i >= 0; i-- {
				cs := w.childElem(st, d, i, -1, ov[i], nil)
				w.setEdge(d, edge{kind: edgeIndex, index: i, ord: len(ov) - 1 - i})
				w.node(d+1, ov[i], true, nil, false, cs)
			}
			return
		}
		f := ""
		if w.named {
			f = namedField(ov, nil)
		}
		for i, e := range ov {
			if w.done() {
				return
			}
			cs := w.childElem(st, d, i, -1, e, nil)
			if f != "" {
				w.setEdge(d, edge{kind: edgeNamed, key: f, value: e.(map[string]interface{})[f], index: i, ord: i})
			} else {
				w.setEdge(d, edge{kind: edgeIndex, index: i, ord: i})
			}
			w.node(d+1, e, true, nil, false, cs)
		}
	default:
		if st.inOnly {
			w.emit(d, Removed, o, nil, st)
		}
	}
}

// add handles a value that exists only in the new object, and reports
// whether it counted.
func (w *walker) add(d int, n interface{}, st state) bool {
	pv, ok := w.project(d, n, st)
	if ok {
		w.emit(d, Added, nil, pv, st)
	}
	return ok
}

// project returns the part of v that counts, and false if nothing does.
// It copies only the maps and lists on the way to what is left out.
func (w *walker) project(d int, v interface{}, st state) (interface{}, bool) {
	if st.skip() {
		return nil, false
	}
	if !st.partial() {
		return v, true
	}
	switch vv := v.(type) {
	case map[string]interface{}:
		var out map[string]interface{}
		for k, cv := range vv {
			cs := w.childKey(st, d, k)
			if pv, ok := w.project(d+1, cv, cs); ok {
				if out == nil {
					out = make(map[string]interface{}, len(vv))
				}
				out[k] = pv
			}
		}
		if out == nil {
			if !st.inOnly {
				return nil, false
			}
			out = map[string]interface{}{}
		}
		return out, true
	case []interface{}:
		var out []interface{}
		for i, e := range vv {
			cs := w.childElem(st, d, -1, i, nil, e)
			if pv, ok := w.project(d+1, e, cs); ok {
				if out == nil {
					out = make([]interface{}, 0, len(vv))
				}
				out = append(out, pv)
			}
		}
		if out == nil {
			if !st.inOnly {
				return nil, false
			}
			out = []interface{}{}
		}
		return out, true
	}
	return v, st.inOnly
}

// retained reports whether v, inside Only, holds something ignored, which
// therefore stays when v is removed.
func (w *walker) retained(d int, v interface{}, st state) bool {
	if st.ignored {
		return true
	}
	if !st.aliveIgn {
		return false
	}
	switch vv := v.(type) {
	case map[string]interface{}:
		for k, cv := range vv {
			cs := w.childKey(st, d, k)
			if w.retained(d+1, cv, cs) {
				return true
			}
		}
	case []interface{}:
		for i, e := range vv {
			cs := w.childElem(st, d, i, -1, e, nil)
			if w.retained(d+1, e, cs) {
				return true
			}
		}
	}
	return false
}

// emit records a change at the current path of depth d.
func (w *walker) emit(d int, op Op, o, n interface{}, st state) {
	w.found = true
	if w.stop {
		return
	}
	path := w.stack[:d]
	w.keys = append(w.keys, path...)
	w.spans = append(w.spans, len(w.keys))
	if w.patch {
		po := PatchOp{Path: pointer(path)}
		switch op {
		case Added:
			po.Op, po.Value = "add", n
		case Removed:
			po.Op = "remove"
		default:
			po.Op, po.Value = "replace", n
		}
		w.ops = append(w.ops, po)
		return
	}
	c := Change{Path: displayPath(path), Op: op}
	if st.hidden() {
		c.Redacted = true
	} else {
		c.Old, c.New = o, n
	}
	w.changes = append(w.changes, c)
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
