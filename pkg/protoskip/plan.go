package protoskip

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"google.golang.org/protobuf/encoding/protowire"
)

// Plan is what a command reads of the objects it decodes: of each object,
// its metadata without managedFields, and the fields its paths name. Build
// it with [NewPlan]. A Plan is immutable and safe for concurrent use; it
// compiles and caches one filter per Go type.
type Plan struct {
	paths []string
	tree  pathTree

	filters sync.Map // reflect.Type → *filter (nil: decode everything)
}

// NewPlan returns the plan that keeps, of every object, its metadata but
// managedFields, and paths: field paths in JSON names separated by dots,
// e.g. "spec.nodeName" or "status". An empty path, or one with an empty
// name, is an error.
func NewPlan(paths []string) (*Plan, error) {
	p := &Plan{tree: pathTree{}}
	for _, path := range paths {
		names := strings.Split(path, ".")
		if slices.Contains(names, "") {
			return nil, fmt.Errorf("field path %q: empty field name", path)
		}
		p.tree.add(names)
	}
	p.paths = append([]string(nil), paths...)
	slices.Sort(p.paths)
	p.paths = slices.Compact(p.paths)
	return p, nil
}

// Key returns a string that is the same for plans of the same paths.
func (p *Plan) Key() string { return strings.Join(p.paths, ",") }

// Paths returns the plan's paths, sorted, without duplicates.
func (p *Plan) Paths() []string { return append([]string(nil), p.paths...) }

// filterFor returns the filter of the objects of Go type typ (a struct
// type, or a pointer to one), or of the items of a list of them; nil when
// the plan keeps all of typ.
func (p *Plan) filterFor(typ reflect.Type) *filter {
	if typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	if cached, ok := p.filters.Load(typ); ok {
		return cached.(*filter)
	}
	var f *filter
	if typ.Kind() == reflect.Struct {
		f = p.compileFor(typ)
		f.index(0)
	}
	cached, _ := p.filters.LoadOrStore(typ, f)
	return cached.(*filter)
}

func (p *Plan) compileFor(typ reflect.Type) *filter {
	fields := protoFields(typ)
	if items, ok := fields["items"]; ok && items.message != nil {
		if _, ok := fields["metadata"]; ok {
			// A list: its metadata, and each item filtered.
			sub := p.objectFilter(items.message)
			if sub == nil {
				return nil
			}
			return &filter{rest: true, fields: map[protowire.Number]fieldFilter{items.num: {keep: true, sub: sub}}}
		}
	}
	return p.objectFilter(typ)
}

// objectFilter returns the filter of one object of struct type typ.
func (p *Plan) objectFilter(typ reflect.Type) *filter {
	f := compile(typ, p.tree, 0)
	if f == nil {
		// A path typ cannot follow: keep all but managedFields.
		f = &filter{rest: true, fields: map[protowire.Number]fieldFilter{}}
	}
	fields := protoFields(typ)
	meta, ok := fields["metadata"]
	if !ok || meta.message == nil {
		if f.rest {
			return nil
		}
		return f
	}
	managed, ok := protoFields(meta.message)["managedFields"]
	if !ok {
		f.fields[meta.num] = fieldFilter{keep: true}
		if f.rest && len(f.fields) == 1 {
			return nil
		}
		return f
	}
	f.fields[meta.num] = fieldFilter{keep: true, sub: &filter{rest: true, fields: map[protowire.Number]fieldFilter{managed.num: {}}}}
	return f
}
