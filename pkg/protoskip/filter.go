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
}

// field reports whether field num is kept and, if it is filtered, by what.
func (f *filter) field(num protowire.Number) (keep bool, sub *filter) {
	if int(num) < len(f.byNumber) {
		if ff := f.byNumber[num]; ff.decided {
			return ff.keep, ff.sub
		}
		return f.rest, nil
	}
	if ff, ok := f.fields[num]; ok {
		return ff.keep, ff.sub
	}
	return f.rest, nil
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
			// A map or a scalar: what is below cannot be split.
			f.fields[pf.num] = fieldFilter{keep: true}
			continue
		}
		f.fields[pf.num] = fieldFilter{keep: true, sub: compile(pf.message, sub, depth+1)}
	}
	return f
}
