package fieldmanagers

import (
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// This file holds the walk of Authors: old and new side by side, with every
// entry's set at the current path, down to the changed paths.

// level is one step of the current path: the element pe taken from the
// parent path, where parents holds each entry's set at the parent path (nil
// for an entry with nothing there; parents is nil when no entry has).
type level struct {
	parents []*fieldpath.Set
	pe      fieldpath.PathElement
}

// holds reports whether entry i holds the path that ends at l; with whole
// set, only as a leaf of its set: held whole, as an atomic map or list is,
// and not as a node ("." in fieldsV1) whose children others may hold.
func (l *level) holds(i int, whole bool) bool {
	if l.parents == nil || l.parents[i] == nil || !l.parents[i].Members.Has(l.pe) {
		return false
	}
	if whole {
		_, inner := l.parents[i].Children.Get(l.pe)
		return !inner
	}
	return true
}

type walker struct {
	entries []Entry
	owned   []bool // per entry: owns a changed path
	moved   []bool // per entry: its time moved, or it is new
	chain   []level
}

// node compares the values at the current path plus pe; parents are the
// entries' sets at the current path.
func (w *walker) node(parents []*fieldpath.Set, pe fieldpath.PathElement, o interface{}, hasO bool, n interface{}, hasN bool) {
	if hasO && hasN && equal(o, n) {
		return
	}
	w.chain = append(w.chain, level{parents: parents, pe: pe})
	defer func() { w.chain = w.chain[:len(w.chain)-1] }()
	nodes := children(parents, pe)
	om, oMap := o.(map[string]interface{})
	nm, nMap := n.(map[string]interface{})
	if (oMap || !hasO) && (nMap || !hasN) && len(om)+len(nm) > 0 {
		w.maps(nodes, om, hasO, nm, hasN)
		return
	}
	ol, oList := o.([]interface{})
	nl, nList := n.([]interface{})
	if (oList || !hasO) && (nList || !hasN) && len(ol)+len(nl) > 0 && w.lists(nodes, ol, nl) {
		return
	}
	w.record()
}

// maps walks the keys of two maps, either of which may be absent.
func (w *walker) maps(nodes []*fieldpath.Set, o map[string]interface{}, hasO bool, n map[string]interface{}, hasN bool) {
	skipManaged := len(w.chain) == 1 && w.chain[0].pe.FieldName != nil && *w.chain[0].pe.FieldName == "metadata"
	for k, ov := range o {
		if skipManaged && k == "managedFields" {
			continue
		}
		nv, ok := n[k]
		w.node(nodes, fieldpath.PathElement{FieldName: &k}, ov, true, nv, ok && hasN)
	}
	for k, nv := range n {
		if skipManaged && k == "managedFields" {
			continue
		}
		if _, ok := o[k]; ok && hasO {
			continue
		}
		w.node(nodes, fieldpath.PathElement{FieldName: &k}, nil, false, nv, true)
	}
}

// listPair is one list element matched across the two versions; -1 where a
// side lacks it.
type listPair struct {
	pe     fieldpath.PathElement
	oi, ni int
}

// lists walks the elements of two lists, either of which may be empty,
// paired by how the entries' sets name them. It returns false, having
// walked nothing, when an element that changed is named by no set: then the
// change is to the list itself.
func (w *walker) lists(nodes []*fieldpath.Set, o, n []interface{}) bool {
	cands := candidates(nodes)
	if len(cands) == 0 {
		return false
	}
	var pairs []listPair
	for ni, e := range n {
		pe, ok := resolve(cands, e, ni)
		if !ok {
			if !containsEqual(o, e) {
				return false
			}
			continue
		}
		pairs = append(pairs, listPair{pe: pe, oi: -1, ni: ni})
	}
	for oi, e := range o {
		pe, ok := resolve(cands, e, oi)
		if !ok {
			if !containsEqual(n, e) {
				return false
			}
			continue
		}
		found := false
		for i := range pairs {
			if pairs[i].oi < 0 && pairs[i].pe.Equals(pe) {
				pairs[i].oi, found = oi, true
				break
			}
		}
		if !found {
			pairs = append(pairs, listPair{pe: pe, oi: oi, ni: -1})
		}
	}
	for _, p := range pairs {
		var ov, nv interface{}
		if p.oi >= 0 {
			ov = o[p.oi]
		}
		if p.ni >= 0 {
			nv = n[p.ni]
		}
		w.node(nodes, p.pe, ov, p.oi >= 0, nv, p.ni >= 0)
	}
	return true
}

// record marks the owners of the current path, a changed one: the entries
// holding it or, when none does, its nearest ancestor some entry holds
// whole; only the moved ones of several when any moved.
func (w *walker) record() {
	for d := len(w.chain) - 1; d >= 0; d-- {
		l := &w.chain[d]
		whole := d < len(w.chain)-1
		holders, moved := 0, 0
		for i := range w.entries {
			if l.holds(i, whole) {
				holders++
				if w.moved[i] {
					moved++
				}
			}
		}
		if holders == 0 {
			continue
		}
		for i := range w.entries {
			if l.holds(i, whole) && (moved == 0 || holders == 1 || w.moved[i]) {
				w.owned[i] = true
			}
		}
		return
	}
}

// children returns each entry's set at the child pe of the path where the
// entries' sets are parents, or nil when no entry has one.
func children(parents []*fieldpath.Set, pe fieldpath.PathElement) []*fieldpath.Set {
	var out []*fieldpath.Set
	for i, p := range parents {
		if p == nil {
			continue
		}
		if c, ok := p.Children.Get(pe); ok {
			if out == nil {
				out = make([]*fieldpath.Set, len(parents))
			}
			out[i] = c
		}
	}
	return out
}

// candidates returns the path elements the entries' sets name below the
// current path: members and children, with repeats.
func candidates(nodes []*fieldpath.Set) []fieldpath.PathElement {
	var out []fieldpath.PathElement
	for _, s := range nodes {
		if s == nil {
			continue
		}
		for pe := range s.Members.All() {
			out = append(out, pe)
		}
		for pe := range s.Children.All() {
			out = append(out, pe)
		}
	}
	return out
}

// resolve returns the element of cands that names the list element e at
// index i: by its key fields, its value, or its index.
func resolve(cands []fieldpath.PathElement, e interface{}, i int) (fieldpath.PathElement, bool) {
	for _, pe := range cands {
		switch {
		case pe.Key != nil:
			m, ok := e.(map[string]interface{})
			if !ok {
				continue
			}
			match := true
			for _, f := range *pe.Key {
				v, ok := m[f.Name]
				if !ok || !value.Equals(f.Value, value.NewValueInterface(v)) {
					match = false
					break
				}
			}
			if match {
				return pe, true
			}
		case pe.Value != nil:
			if value.Equals(*pe.Value, value.NewValueInterface(e)) {
				return pe, true
			}
		case pe.Index != nil:
			if *pe.Index == i {
				return pe, true
			}
		}
	}
	return fieldpath.PathElement{}, false
}

func containsEqual(l []interface{}, e interface{}) bool {
	for _, x := range l {
		if equal(x, e) {
			return true
		}
	}
	return false
}

// equal compares two JSON-like values, numbers by value.
func equal(a, b interface{}) bool {
	switch x := a.(type) {
	case map[string]interface{}:
		y, ok := b.(map[string]interface{})
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			if w, ok := y[k]; !ok || !equal(v, w) {
				return false
			}
		}
		return true
	case []interface{}:
		y, ok := b.([]interface{})
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case nil:
		return b == nil
	}
	// Numbers, whatever their Go types.
	return value.Equals(value.NewValueInterface(a), value.NewValueInterface(b))
}
