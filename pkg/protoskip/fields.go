package protoskip

import (
	"reflect"
	"strconv"
	"strings"
	"sync"

	"google.golang.org/protobuf/encoding/protowire"
)

// protoField is one field of a Go type that has a protobuf number.
type protoField struct {
	num protowire.Number
	// message is the struct type of the field's value, or of each element
	// of a list, when that value is a message the filter can descend into;
	// nil for scalars, strings, bytes, maps and inline fields.
	message reflect.Type
	// stringMap says the field is a map with string keys (on the wire, a
	// repeated entry message of key 1 and value 2).
	stringMap bool
}

// protoFields returns the fields of struct type t by JSON name, from their
// protobuf struct tags; cached per type.
func protoFields(t reflect.Type) map[string]protoField {
	if cached, ok := fieldCache.Load(t); ok {
		return cached.(map[string]protoField)
	}
	fields := map[string]protoField{}
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		num, ok := tagNumber(sf.Tag.Get("protobuf"))
		if !ok {
			continue
		}
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			// Inline (",inline") fields have no JSON name of their
			// own: a path cannot name them.
			continue
		}
		stringMap := sf.Type.Kind() == reflect.Map && sf.Type.Key().Kind() == reflect.String
		fields[name] = protoField{num: num, message: messageType(sf.Type), stringMap: stringMap}
	}
	cached, _ := fieldCache.LoadOrStore(t, fields)
	return cached.(map[string]protoField)
}

// fieldCache holds protoFields' results by reflect.Type.
var fieldCache sync.Map

// tagNumber returns the field number of a protobuf struct tag such as
// "bytes,17,rep,name=managedFields".
func tagNumber(tag string) (protowire.Number, bool) {
	parts := strings.Split(tag, ",")
	if len(parts) < 2 {
		return 0, false
	}
	n, err := strconv.Atoi(parts[1])
	if err != nil || n < int(protowire.MinValidNumber) || n > int(protowire.MaxValidNumber) {
		return 0, false
	}
	return protowire.Number(n), true
}

// messageType returns the struct type a field of type t holds as a
// protobuf message: T, *T, []T or []*T for a struct T; nil otherwise.
func messageType(t reflect.Type) reflect.Type {
	if t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8 {
		t = t.Elem()
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	return t
}
