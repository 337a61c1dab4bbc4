package protoskip

import (
	"reflect"

	"google.golang.org/protobuf/encoding/protowire"
)

// filter says which fields of one message type are kept.
type filter struct {
	// rest says whether a field not in fields is kept whole.
	rest bool
	// fields holds the fields decided one by one: each is dropped (keep
	// false), kept whole (sub nil) or filtered by sub.
	fields map[protowire.Number]fieldFilter
	// byNumber is fields indexed by field number, for the walker: the
	// numbers of the API's types are small.
	byNumber []fieldFilter
}

// fieldFilter is what a filter does with one field.
type fieldFilter struct {
	decided bool
	keep    bool
	sub     *filter
	// keys, on a map field with string keys, are the only keys whose
	// entries are kept; nil keeps every entry.
	keys map[string]bool
}

// fieldOf returns what f does with field num.
func (f *filter) fieldOf(num protowire.Number) fieldFilter {
	if int(num) < len(f.byNumber) {
		if ff := f.byNumber[num]; ff.decided {
			return ff
		}
		return fieldFilter{keep: f.rest}
	}
	if ff, ok := f.fields[num]; ok {
		return ff
	}
	return fieldFilter{keep: f.rest}
}

// index fills byNumber from fields, in f and the filters below it.
func (f *filter) index(depth int) {
	if f == nil || f.byNumber != nil || depth > maxDepth {
		return
	}
	var highest protowire.Number
	for num := range f.fields {
		highest = max(highest, num)
	}
	byNumber := make([]fieldFilter, min(int(highest)+1, 256))
	for num, ff := range f.fields {
		ff.decided = true
		ff.sub.index(depth + 1)
		if int(num) < len(byNumber) {
			byNumber[num] = ff
		}
	}
	f.byNumber = byNumber
}

// pathTree is a set of field paths: a nil tree keeps everything below it.
type pathTree map[string]pathTree

// add adds path to the tree; a path that is a prefix of another wins.
func (t pathTree) add(path []string) {
	head, rest := path[0], path[1:]
	child, seen := t[head]
	if seen && child == nil {
		return
	}
	if len(rest) == 0 {
		t[head] = nil
		return
	}
	if child == nil {
		child = pathTree{}
		t[head] = child
	}
	child.add(rest)
}

// compile returns the filter of struct type typ that keeps what tree names.
// A name typ has no message field for keeps the whole message: the filter
// never keeps less than the tree. It returns nil when that is everything.
func compile(typ reflect.Type, tree pathTree, depth int) *filter {
	if tree == nil || depth > maxDepth {
		return nil
	}
	fields := protoFields(typ)
	f := &filter{fields: map[protowire.Number]fieldFilter{}}
	for name, sub := range tree {
		pf, ok := fields[name]
		if !ok {
			return nil
		}
		if sub == nil {
			f.fields[pf.num] = fieldFilter{keep: true}
			continue
		}
		if pf.message == nil {
			// A map keeps the entries of the keys named, when nothing
			// below a key is named; a scalar, or a map with paths
			// below its keys, is kept whole.
			f.fields[pf.num] = fieldFilter{keep: true, keys: mapKeys(pf, sub)}
			continue
		}
		f.fields[pf.num] = fieldFilter{keep: true, sub: compile(pf.message, sub, depth+1)}
	}
	return f
}

// mapKeys returns the keys tree names of the map field pf, nil (every
// key) when pf is not a map with string keys or tree names paths below
// a key.
func mapKeys(pf protoField, tree pathTree) map[string]bool {
	if !pf.stringMap {
		return nil
	}
	keys := map[string]bool{}
	for key, below := range tree {
		if below != nil {
			return nil
		}
		keys[key] = true
	}
	return keys
}
