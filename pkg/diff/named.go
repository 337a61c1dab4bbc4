package diff

// namedFields are the fields that identify list elements, in order of preference.
var namedFields = [...]string{"name", "type", "key", "uid", "ip", "containerPort", "devicePath", "mountPath"}

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
