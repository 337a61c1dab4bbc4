package diff

// This file holds the walker's filter. Filtering is tracked without allocating: every Options path is a pattern,
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
