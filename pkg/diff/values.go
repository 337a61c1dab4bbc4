package diff

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"
)

// isContainer reports whether v is a JSON object or array.
func isContainer(v interface{}) bool {
	switch v.(type) {
	case map[string]interface{}, []interface{}:
		return true
	}
	return false
}

// scalarEqual reports whether two values that are not both containers are
// equal as JSON: numbers compare by value whatever their Go type.
func scalarEqual(a, b interface{}) bool {
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case nil:
		return b == nil
	case int64:
		if y, ok := b.(int64); ok {
			return x == y
		}
	case float64:
		if y, ok := b.(float64); ok {
			return x == y || x != x && y != y // NaN equals NaN, so a NaN does not change forever
		}
	case map[string]interface{}, []interface{}:
		return false
	}
	switch b.(type) {
	case string, bool, nil, map[string]interface{}, []interface{}:
		return false
	}
	an, aok := toNumber(a)
	bn, bok := toNumber(b)
	if aok || bok {
		return aok && bok && an.equal(bn)
	}
	return reflect.DeepEqual(a, b)
}

// number is a JSON number held as an integer when it is one.
type number struct {
	i     int64
	f     float64
	isInt bool
}

func (a number) equal(b number) bool {
	switch {
	case a.isInt && b.isInt:
		return a.i == b.i
	case a.isInt:
		return floatIsInt(b.f, a.i)
	case b.isInt:
		return floatIsInt(a.f, b.i)
	}
	return a.f == b.f || a.f != a.f && b.f != b.f
}

// canonical returns n as an integer if it is one, so that equal numbers are
// identical map keys.
func (n number) canonical() number {
	if !n.isInt && floatIsInt(n.f, int64(n.f)) {
		return number{i: int64(n.f), isInt: true}
	}
	if n.isInt {
		return number{i: n.i, isInt: true}
	}
	return number{f: n.f}
}

// floatIsInt reports whether f is exactly the integer i.
func floatIsInt(f float64, i int64) bool {
	return f >= -(1<<63) && f < 1<<63 && f == math.Trunc(f) && int64(f) == i
}

// toNumber converts the Go numeric types to a number.
func toNumber(v interface{}) (number, bool) {
	switch x := v.(type) {
	case int64:
		return number{i: x, isInt: true}, true
	case float64:
		return number{f: x}, true
	case int:
		return number{i: int64(x), isInt: true}, true
	case int32:
		return number{i: int64(x), isInt: true}, true
	case int16:
		return number{i: int64(x), isInt: true}, true
	case int8:
		return number{i: int64(x), isInt: true}, true
	case uint:
		return unsignedNumber(uint64(x)), true
	case uint64:
		return unsignedNumber(x), true
	case uint32:
		return number{i: int64(x), isInt: true}, true
	case uint16:
		return number{i: int64(x), isInt: true}, true
	case uint8:
		return number{i: int64(x), isInt: true}, true
	case float32:
		return number{f: float64(x)}, true
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return number{i: i, isInt: true}, true
		}
		if f, err := strconv.ParseFloat(string(x), 64); err == nil {
			return number{f: f}, true
		}
	}
	return number{}, false
}

func unsignedNumber(u uint64) number {
	if u > math.MaxInt64 {
		return number{f: float64(u)}
	}
	return number{i: int64(u), isInt: true}
}

// appendNumber appends n as JSON writes it: integers in decimal, floats in the
// shortest form that round-trips, with an exponent only for very small or
// large magnitudes (as encoding/json does).
func appendNumber(b []byte, n number) []byte {
	if n.isInt {
		return strconv.AppendInt(b, n.i, 10)
	}
	f := n.f
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return strconv.AppendFloat(b, f, 'g', -1, 64)
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// Clean up e-09 to e-9, as encoding/json does.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// isKeyScalar reports whether v can identify a list element: a string or a number.
func isKeyScalar(v interface{}) bool {
	switch v.(type) {
	case string:
		return true
	case nil, bool, map[string]interface{}, []interface{}:
		return false
	}
	_, ok := toNumber(v)
	return ok
}

// formatKeyScalar returns a string or number as written in a [field=value]
// path segment.
func formatKeyScalar(v interface{}) (string, bool) {
	if s, ok := v.(string); ok {
		return s, true
	}
	if n, ok := toNumber(v); ok {
		var buf [32]byte
		return string(appendNumber(buf[:0], n)), true
	}
	return "", false
}
