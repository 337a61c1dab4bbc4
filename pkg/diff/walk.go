package diff

// This file holds the walker shared by Compare, Changed and JSONPatch. It
// visits old and new together and reports differences at the shallowest
// path where they occur, honouring the Options filter (see the package
// documentation for what Ignore and Only mean).

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

// hiddenChanged replaces a redacted value on the new side of Unified when it
// differs from the old one, so the diff still shows that it changed.
const hiddenChanged = "(hidden, changed)"

// redactPair returns o and n with the values under Redact paths replaced,
// copying only the maps and lists on the way to them.
func (w *walker) redactPair(d int, o interface{}, hasO bool, n interface{}, hasN bool, st state) (interface{}, interface{}) {
	if st.redacted {
		return maskPair(o, hasO, n, hasN)
	}
	if !st.aliveRed {
		return o, n
	}
	om, oMap := o.(map[string]interface{})
	nm, nMap := n.(map[string]interface{})
	ol, oList := o.([]interface{})
	nl, nList := n.([]interface{})
	switch {
	case (oMap || !hasO) && (nMap || !hasN):
		var ro, rn map[string]interface{}
		if hasO {
			ro = make(map[string]interface{}, len(om))
		}
		if hasN {
			rn = make(map[string]interface{}, len(nm))
		}
		for k, ov := range om {
			nv, ok := nm[k]
			cs := w.childKey(st, d, k)
			ro[k], nv = w.redactPair(d+1, ov, true, nv, ok, cs)
			if ok {
				rn[k] = nv
			}
		}
		for k, nv := range nm {
			if _, ok := om[k]; !ok {
				cs := w.childKey(st, d, k)
				_, rn[k] = w.redactPair(d+1, nil, false, nv, true, cs)
			}
		}
		return mapOrNil(ro, hasO), mapOrNil(rn, hasN)
	case (oList || !hasO) && (nList || !hasN):
		var ro, rn []interface{}
		if hasO {
			ro = make([]interface{}, len(ol))
		}
		if hasN {
			rn = make([]interface{}, len(nl))
		}
		for i := 0; i < max(len(ol), len(nl)); i++ {
			var oe, ne interface{}
			oi, ni := -1, -1
			if i < len(ol) {
				oe, oi = ol[i], i
			}
			if i < len(nl) {
				ne, ni = nl[i], i
			}
			cs := w.childElem(st, d, oi, ni, oe, ne)
			re, rne := w.redactPair(d+1, oe, oi >= 0, ne, ni >= 0, cs)
			if oi >= 0 {
				ro[i] = re
			}
			if ni >= 0 {
				rn[i] = rne
			}
		}
		return listOrNil(ro, hasO), listOrNil(rn, hasN)
	case hasO && hasN:
		// Different kinds: each side on its own.
		ro, _ := w.redactPair(d, o, true, nil, false, st)
		_, rn := w.redactPair(d, nil, false, n, true, st)
		return ro, rn
	}
	return o, n
}

func mapOrNil(m map[string]interface{}, ok bool) interface{} {
	if !ok {
		return nil
	}
	return m
}

func listOrNil(l []interface{}, ok bool) interface{} {
	if !ok {
		return nil
	}
	return l
}

// maskPair replaces every leaf value under a Redact path, keeping map keys
// and list lengths, and marks the new leaves that differ from the old ones.
func maskPair(o interface{}, hasO bool, n interface{}, hasN bool) (interface{}, interface{}) {
	om, oMap := o.(map[string]interface{})
	nm, nMap := n.(map[string]interface{})
	ol, oList := o.([]interface{})
	nl, nList := n.([]interface{})
	switch {
	case oMap && nMap:
		ro := make(map[string]interface{}, len(om))
		rn := make(map[string]interface{}, len(nm))
		for k, ov := range om {
			nv, ok := nm[k]
			ro[k], nv = maskPair(ov, true, nv, ok)
			if ok {
				rn[k] = nv
			}
		}
		for k, nv := range nm {
			if _, ok := om[k]; !ok {
				rn[k] = mask(nv, hiddenValue)
			}
		}
		return ro, rn
	case oList && nList:
		ro := make([]interface{}, len(ol))
		rn := make([]interface{}, len(nl))
		for i := range ol {
			if i < len(nl) {
				ro[i], rn[i] = maskPair(ol[i], true, nl[i], true)
			} else {
				ro[i] = mask(ol[i], hiddenValue)
			}
		}
		for i := len(ol); i < len(nl); i++ {
			rn[i] = mask(nl[i], hiddenValue)
		}
		return ro, rn
	}
	var ro, rn interface{}
	if hasO {
		ro = mask(o, hiddenValue)
	}
	if hasN {
		marker := hiddenValue
		if hasO && (isContainer(o) || isContainer(n) || !scalarEqual(o, n)) {
			marker = hiddenChanged
		}
		rn = mask(n, marker)
	}
	return ro, rn
}

// mask returns v with every leaf replaced by marker.
func mask(v interface{}, marker string) interface{} {
	switch x := v.(type) {
	case map[string]interface{}:
		out := make(map[string]interface{}, len(x))
		for k, e := range x {
			out[k] = mask(e, marker)
		}
		return out
	case []interface{}:
		out := make([]interface{}, len(x))
		for i, e := range x {
			out[i] = mask(e, marker)
		}
		return out
	}
	return marker
}
