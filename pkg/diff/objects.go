package diff

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubectl-informer/kubectl-informer/pkg/object"
)

// This file converts Kubernetes objects, unstructured or typed, into the
// maps the package compares.

// UpdateMaps returns the two sides of an update, oldObj and newObj, as the
// maps Compare, Changed, JSONPatch and Unified take, and never changes the
// objects.
//
// Unstructured objects are maps already, and are returned as they are.
// Typed objects (what protobuf informers hold) are converted by reflection,
// the costly part, without managedFields (DefaultIgnore leaves them out in
// any case). Unless whole is set (Unified needs the unchanged lines for
// context), only the fields that differ are converted (see changedParts).
// What is left out is left out of both maps, and a path absent from both
// sides yields no change in Compare, Changed or JSONPatch, whatever the Only
// and Ignore paths: the changes are those of the whole objects.
func UpdateMaps(oldObj, newObj interface{}, whole bool) (old, new map[string]interface{}, err error) {
	ou, ok1 := oldObj.(*unstructured.Unstructured)
	nu, ok2 := newObj.(*unstructured.Unstructured)
	if ok1 && ok2 {
		return ou.Object, nu.Object, nil
	}
	oc, ok1 := shallowCopy(oldObj)
	nc, ok2 := shallowCopy(newObj)
	if ok1 && ok2 && oc.Type() == nc.Type() {
		dropManagedFields(oc)
		dropManagedFields(nc)
		if !whole {
			old, new = map[string]interface{}{}, map[string]interface{}{}
			if err := changedParts(oc.Elem(), nc.Elem(), old, new, maxPartsDepth); err == nil {
				return old, new, nil
			}
		}
		oldObj, newObj = oc.Interface(), nc.Interface()
	}
	if old, err = object.Content(oldObj); err != nil {
		return nil, nil, err
	}
	new, err = object.Content(newObj)
	return old, new, err
}

// WithoutManagedFields returns obj without metadata.managedFields, as kubectl
// prints objects, and never changes obj. An unstructured object becomes its
// map (copied only where managedFields is dropped); a typed object stays
// typed (a shallow copy when it has managedFields), so encoding/json can
// render it straight from the struct, which costs a fraction of converting
// it to a map first.
func WithoutManagedFields(obj interface{}) (interface{}, error) {
	switch o := obj.(type) {
	case *unstructured.Unstructured:
		return withoutManagedFields(o.Object), nil
	case runtime.Object:
		if a, err := meta.Accessor(o); err != nil || a.GetManagedFields() == nil {
			return o, nil
		}
		if c, ok := shallowCopy(o); ok {
			dropManagedFields(c)
			return c.Interface(), nil
		}
		return withoutManagedFieldsMap(o)
	}
	return nil, fmt.Errorf("cannot print %T", obj)
}

// withoutManagedFields returns obj without metadata.managedFields, as kubectl
// prints objects; it copies only the maps it changes.
func withoutManagedFields(obj map[string]interface{}) map[string]interface{} {
	md, ok := obj["metadata"].(map[string]interface{})
	if !ok {
		return obj
	}
	if _, ok := md["managedFields"]; !ok {
		return obj
	}
	mdCopy := make(map[string]interface{}, len(md))
	for k, v := range md {
		if k != "managedFields" {
			mdCopy[k] = v
		}
	}
	out := make(map[string]interface{}, len(obj))
	for k, v := range obj {
		out[k] = v
	}
	out["metadata"] = mdCopy
	return out
}

func withoutManagedFieldsMap(obj interface{}) (map[string]interface{}, error) {
	m, err := object.Content(obj)
	if err != nil {
		return nil, err
	}
	return withoutManagedFields(m), nil
}

// shallowCopy returns a new pointer to a copy of the struct obj points to,
// so fields of the copy can be set without touching the cache's object. The
// copy shares every pointer, slice and map with obj: only its own fields may
// be set.
func shallowCopy(obj interface{}) (reflect.Value, bool) {
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return reflect.Value{}, false
	}
	c := reflect.New(v.Elem().Type())
	c.Elem().Set(v.Elem())
	return c, true
}

// dropManagedFields clears managedFields in c, a shallow copy: SetManagedFields
// sets the copy's own ObjectMeta field.
func dropManagedFields(c reflect.Value) {
	if a, err := meta.Accessor(c.Interface()); err == nil && a.GetManagedFields() != nil {
		a.SetManagedFields(nil)
	}
}

// maxPartsDepth bounds how deep changedParts descends into structs; four
// levels reach e.g. spec.securityContext.seLinuxOptions.
const maxPartsDepth = 4

// errNotPartable says changedParts met a struct it cannot convert in parts;
// the caller converts the whole objects instead.
var errNotPartable = errors.New("not convertible in parts")

// changedParts adds to old and new what runtime.DefaultUnstructuredConverter
// would put there for the structs a and b (one type), leaving out every
// field that is deeply equal on both sides. It descends into structs and
// non-nil pointers to structs, and compares and converts the other fields
// whole: lists (whose elements the differ may match by name), maps,
// scalars, and types that render themselves (times, quantities) or are left
// out when zero (omitzero); see partField.convert for how.
func changedParts(a, b reflect.Value, old, new map[string]interface{}, depth int) error {
	plan := partsPlanOf(a.Type())
	if !plan.ok {
		return errNotPartable
	}
	for i := range plan.fields {
		f := &plan.fields[i]
		fa, fb := a.Field(f.index), b.Field(f.index)
		if f.inline {
			// Inlined, as TypeMeta is: its fields go into this map.
			if err := changedParts(fa, fb, old, new, depth); err != nil {
				return err
			}
			continue
		}
		if depth > 0 && f.descend != descendNo {
			sa, sb := fa, fb
			if f.descend == descendPointer && !fa.IsNil() && !fb.IsNil() {
				sa, sb = fa.Elem(), fb.Elem()
			}
			if sa.Kind() == reflect.Struct && partsPlanOf(sa.Type()).ok {
				// No DeepEqual of the whole struct first: its fields are
				// compared one by one, and an equal struct leaves both
				// maps empty.
				om, nm := map[string]interface{}{}, map[string]interface{}{}
				if err := changedParts(sa, sb, om, nm, depth-1); err != nil {
					return err
				}
				if len(om) > 0 || len(nm) > 0 {
					old[f.name], new[f.name] = om, nm
				}
				continue
			}
		}
		if f.equal(fa, fb) {
			continue
		}
		if err := f.convert(fa, old); err != nil {
			return err
		}
		if err := f.convert(fb, new); err != nil {
			return err
		}
	}
	return nil
}

// partsPlan is how changedParts takes a struct type apart, worked out once
// per type.
type partsPlan struct {
	// ok is false when the type cannot be taken apart: it has unexported
	// fields, or it or its pointer renders itself.
	ok     bool
	fields []partField
}

// Whether changedParts descends into a field.
const (
	descendNo      = iota
	descendStruct  // a struct, if it can be taken apart
	descendPointer // a pointer to one, when neither side is nil
)

// partField is one field of a partsPlan, with its JSON name and options
// read as runtime.DefaultUnstructuredConverter reads them (Go 1.26: an
// anonymous struct field without a JSON name is inlined).
type partField struct {
	index     int
	name      string
	omitempty bool
	omitzero  bool
	inline    bool
	descend   int
	kind      reflect.Kind // the field's kind, for the scalar fast paths
	wrapper   reflect.Type // a struct with this field alone, for convert
}

var (
	partsPlans    sync.Map // reflect.Type → *partsPlan
	selfRendering = []reflect.Type{
		reflect.TypeFor[json.Marshaler](),
		reflect.TypeFor[encoding.TextMarshaler](),
		reflect.TypeFor[interface{ ToUnstructured() interface{} }](),
	}
)

// partsPlanOf returns the plan of struct type t.
func partsPlanOf(t reflect.Type) *partsPlan {
	if p, ok := partsPlans.Load(t); ok {
		return p.(*partsPlan)
	}
	plan := &partsPlan{ok: true}
	for _, m := range selfRendering {
		if t.Implements(m) || reflect.PointerTo(t).Implements(m) {
			plan.ok = false
		}
	}
	for i := 0; plan.ok && i < t.NumField(); i++ {
		sf := t.Field(i)
		if !sf.IsExported() {
			plan.ok = false
			break
		}
		name, opts, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "-" && opts == "" {
			continue
		}
		f := partField{index: i, name: name, kind: sf.Type.Kind()}
		for _, o := range strings.Split(opts, ",") {
			f.omitempty = f.omitempty || o == "omitempty"
			f.omitzero = f.omitzero || o == "omitzero"
		}
		if name == "" && sf.Anonymous {
			if sf.Type.Kind() != reflect.Struct {
				plan.ok = false
				break
			}
			f.inline = true
			plan.fields = append(plan.fields, f)
			continue
		}
		if name == "" {
			f.name = sf.Name
		}
		// Whether the struct can be taken apart is asked when a value
		// calls for it, not here: a type may contain itself.
		if !f.omitzero {
			switch {
			case sf.Type.Kind() == reflect.Struct:
				f.descend = descendStruct
			case sf.Type.Kind() == reflect.Pointer && sf.Type.Elem().Kind() == reflect.Struct:
				f.descend = descendPointer
			}
		}
		f.wrapper = reflect.StructOf([]reflect.StructField{{Name: sf.Name, Type: sf.Type, Tag: sf.Tag}})
		plan.fields = append(plan.fields, f)
	}
	p, _ := partsPlans.LoadOrStore(t, plan)
	return p.(*partsPlan)
}

// equal reports whether the field holds the same value in a and b.
func (f *partField) equal(a, b reflect.Value) bool {
	switch f.kind {
	case reflect.String:
		return a.String() == b.String()
	case reflect.Bool:
		return a.Bool() == b.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return a.Int() == b.Int()
	}
	return valuesEqual(a, b)
}

// valuesEqual is reflect.DeepEqual for the trees that API objects are: it
// keeps no record of visited pointers (an object decoded from the wire has
// no cycles), which is most of DeepEqual's cost. Where it is unsure
// (functions, channels) it says false: a field found unequal is only
// converted and compared, never lost.
func valuesEqual(a, b reflect.Value) bool {
	switch a.Kind() {
	case reflect.String:
		return a.String() == b.String()
	case reflect.Bool:
		return a.Bool() == b.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return a.Int() == b.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return a.Uint() == b.Uint()
	case reflect.Float32, reflect.Float64:
		return a.Float() == b.Float()
	case reflect.Complex64, reflect.Complex128:
		return a.Complex() == b.Complex()
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return a.Pointer() == b.Pointer() || valuesEqual(a.Elem(), b.Elem())
	case reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return a.Elem().Type() == b.Elem().Type() && valuesEqual(a.Elem(), b.Elem())
	case reflect.Struct:
		for i := range a.NumField() {
			if !valuesEqual(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Slice:
		// A nil and an empty slice differ, as in DeepEqual: JSON null and [].
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return false
		}
		if a.Pointer() == b.Pointer() {
			return true
		}
		if a.Type().Elem().Kind() == reflect.Uint8 {
			return bytes.Equal(a.Bytes(), b.Bytes())
		}
		fallthrough
	case reflect.Array:
		for i := range a.Len() {
			if !valuesEqual(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Map:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return false
		}
		if a.Pointer() == b.Pointer() {
			return true
		}
		for it := a.MapRange(); it.Next(); {
			bv := b.MapIndex(it.Key())
			if !bv.IsValid() || !valuesEqual(it.Value(), bv) {
				return false
			}
		}
		return true
	}
	return false
}

// convert puts the field's value v into m as the whole struct's conversion
// would: strings, bools and integers directly, as structToUnstructured
// writes them (by kind, marshalers or not), and anything else through a
// struct with this field alone, so omitempty, omitzero, marshalers and the
// field's JSON name apply exactly as in the whole conversion.
func (f *partField) convert(v reflect.Value, m map[string]interface{}) error {
	if !f.omitzero {
		switch f.kind {
		case reflect.String:
			if !f.omitempty || v.Len() > 0 {
				m[f.name] = v.String()
			}
			return nil
		case reflect.Bool:
			if !f.omitempty || v.Bool() {
				m[f.name] = v.Bool()
			}
			return nil
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			if !f.omitempty || v.Int() != 0 {
				m[f.name] = v.Int()
			}
			return nil
		}
	}
	w := reflect.New(f.wrapper)
	w.Elem().Field(0).Set(v)
	part, err := runtime.DefaultUnstructuredConverter.ToUnstructured(w.Interface())
	if err != nil {
		return err
	}
	for k, v := range part {
		m[k] = v
	}
	return nil
}
