package object

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
)

// Paths are the parts of an object a reader needs, each a list of JSON
// field names from the object's root (status, phase). An empty path is the
// whole object.
type Paths [][]string

// Projection reads the parts of objects at some paths (NewProjection). It
// is safe for concurrent use.
type Projection struct {
	whole bool
	root  *trie
}

// NewProjection returns the projection of paths. A nil or empty paths, or
// one with an empty path, is the whole object.
func NewProjection(paths Paths) *Projection {
	if len(paths) == 0 || slices.ContainsFunc(paths, func(p []string) bool { return len(p) == 0 }) {
		return &Projection{whole: true}
	}
	return &Projection{root: newTrie(paths)}
}

// Content returns the parts of obj's content at the projection's paths:
// what Content(obj) holds at each path, with the maps on the way to it,
// and nothing else. Where Content has no key at a path, neither has the
// projection, and every value it holds is the value Content holds there
// (the same conversion, the same omitted empty fields). An object that is
// not a typed Go struct, or a projection of the whole object, gives
// Content(obj).
//
// For a typed object it converts only what the paths reach, which is what
// makes an expression that reads two fields of a pod cheap.
func (p *Projection) Content(obj interface{}) (map[string]interface{}, error) {
	if p == nil || p.whole {
		return Content(obj)
	}
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return Content(obj)
	}
	if _, ok := obj.(runtime.Unstructured); ok || converts(v.Elem().Type()) {
		return Content(obj)
	}
	return p.root.project(v.Elem())
}

// trie holds paths by their field names, and how it reads each struct
// type; a node with no children is the end of a path: its whole value is
// wanted.
type trie struct {
	children map[string]*trie
	names    []string // of children, sorted
	plans    sync.Map // reflect.Type → *plan
}

func newTrie(paths Paths) *trie {
	root := &trie{children: map[string]*trie{}}
	for _, p := range paths {
		n := root
		for i, name := range p {
			child, seen := n.children[name]
			if seen && len(child.children) == 0 {
				break // a shorter path wants the whole of it
			}
			if i == len(p)-1 {
				n.children[name] = &trie{} // the whole value, whatever longer paths asked
				break
			}
			if !seen {
				child = &trie{children: map[string]*trie{}}
				n.children[name] = child
			}
			n = child
		}
	}
	root.sortNames()
	return root
}

func (t *trie) sortNames() {
	for name, child := range t.children {
		t.names = append(t.names, name)
		child.sortNames()
	}
	slices.Sort(t.names)
}

// project converts the fields of the struct v that t names, each whole
// or, for a struct wanted in part, projected in turn.
func (t *trie) project(v reflect.Value) (map[string]interface{}, error) {
	plan := t.planFor(v.Type())
	// What the converter reads: the wanted fields with their own tags, so
	// that it omits and converts each as it would in the object.
	part := reflect.New(plan.partial).Elem()
	var deeper []int
	var absent []string
	for i, f := range plan.fields {
		src, err := v.FieldByIndexErr(f.index)
		if err != nil {
			// In a nil embedded struct: the object has no such field.
			absent = append(absent, f.name)
			continue
		}
		switch {
		case f.deeper && src.Kind() == reflect.Pointer && src.IsNil():
			part.Field(i).Set(src)
		case f.deeper:
			deeper = append(deeper, i)
		default:
			part.Field(i).Set(src)
		}
	}
	out, err := runtime.DefaultUnstructuredConverter.ToUnstructured(part.Addr().Interface())
	if err != nil {
		return nil, err
	}
	for _, name := range absent {
		delete(out, name)
	}
	for _, i := range deeper {
		f := plan.fields[i]
		src, _ := v.FieldByIndexErr(f.index)
		if src.Kind() == reflect.Pointer {
			src = src.Elem()
		}
		sub, err := t.children[f.name].project(src)
		if err != nil {
			return nil, err
		}
		out[f.name] = sub
	}
	return out, nil
}

// plan is how a trie node reads a struct type: the fields it wants, and a
// struct type of just those for the converter.
type plan struct {
	fields  []plannedField
	partial reflect.Type
}

// plannedField is one wanted field: its JSON name, where it is in the
// struct (through inline embedded structs), and whether it is a struct
// wanted in part (projected in turn, not converted whole; in the partial
// struct it is a nil pointer the converter leaves out or writes null,
// which the projection then replaces).
type plannedField struct {
	name   string
	index  []int
	deeper bool
}

func (t *trie) planFor(typ reflect.Type) *plan {
	if p, ok := t.plans.Load(typ); ok {
		return p.(*plan)
	}
	p := &plan{}
	var fields []reflect.StructField
	for _, name := range t.names {
		sf, ok := jsonField(typ, name)
		if !ok {
			continue // the object has no such field: the key is absent
		}
		ft := sf.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		deeper := len(t.children[name].children) > 0 && ft.Kind() == reflect.Struct && !converts(ft)
		p.fields = append(p.fields, plannedField{name: name, index: sf.Index, deeper: deeper})
		partialType := sf.Type
		if deeper {
			partialType = reflect.PointerTo(ft)
		}
		fields = append(fields, reflect.StructField{Name: fmt.Sprintf("F%d", len(fields)), Type: partialType, Tag: sf.Tag})
	}
	p.partial = reflect.StructOf(fields)
	actual, _ := t.plans.LoadOrStore(typ, p)
	return actual.(*plan)
}

// converts reports whether values of typ convert through their own JSON
// or unstructured methods (a quantity, a time), not field by field.
func converts(typ reflect.Type) bool {
	ptr := reflect.PointerTo(typ)
	for _, m := range []string{"MarshalJSON", "ToUnstructured", "MarshalQueryParameter"} {
		if _, ok := typ.MethodByName(m); ok {
			return true
		}
		if _, ok := ptr.MethodByName(m); ok {
			return true
		}
	}
	return false
}

// jsonField finds the field of struct type typ whose JSON name is name,
// looking into embedded structs whose fields are inlined, as encoding/json
// does: a field of typ itself before one promoted from an embedded struct.
func jsonField(typ reflect.Type, name string) (reflect.StructField, bool) {
	var inlined []int
	for i := range typ.NumField() {
		f := typ.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		tagName, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && tagName == "" || strings.Contains(","+opts+",", ",inline,") {
			inlined = append(inlined, i)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if tagName == "" {
			tagName = f.Name
		}
		if tagName == name {
			return f, true
		}
	}
	for _, i := range inlined {
		f := typ.Field(i)
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if ft.Kind() != reflect.Struct {
			continue
		}
		if inner, ok := jsonField(ft, name); ok {
			inner.Index = append([]int{i}, inner.Index...)
			return inner, true
		}
	}
	return reflect.StructField{}, false
}
