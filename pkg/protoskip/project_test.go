package protoskip

import (
	"reflect"
)

// project zeroes, in the Go value v (a pointer to a struct), every field f
// drops, and projects every field f filters: what a partial decode of v's
// bytes must give. It is the oracle of the tests, independent of the wire
// walker.
func project(v reflect.Value, f *filter) {
	if f == nil {
		return
	}
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return
		}
		v = v.Elem()
	}
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		num, ok := tagNumber(t.Field(i).Tag.Get("protobuf"))
		if !ok {
			continue
		}
		field := v.Field(i)
		ff := f.fieldOf(num)
		keep, sub := ff.keep, ff.sub
		switch {
		case !keep:
			field.Set(reflect.Zero(field.Type()))
		case ff.keys != nil && field.Kind() == reflect.Map && !field.IsNil():
			kept := reflect.MakeMap(field.Type())
			for _, k := range field.MapKeys() {
				if ff.keys[k.String()] {
					kept.SetMapIndex(k, field.MapIndex(k))
				}
			}
			if kept.Len() == 0 && field.Len() > 0 {
				// Every entry dropped: one empty entry in their place.
				kept.SetMapIndex(reflect.Zero(field.Type().Key()), reflect.Zero(field.Type().Elem()))
			}
			field.Set(kept)
		case sub != nil:
			switch field.Kind() {
			case reflect.Slice:
				for j := 0; j < field.Len(); j++ {
					project(field.Index(j).Addr(), sub)
				}
			case reflect.Pointer:
				project(field, sub)
			case reflect.Struct:
				project(field.Addr(), sub)
			}
		}
	}
}
