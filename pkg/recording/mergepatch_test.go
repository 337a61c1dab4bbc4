package recording

import (
	"reflect"
	"testing"

	utiljson "k8s.io/apimachinery/pkg/util/json"
)

func decode(t *testing.T, s string) map[string]interface{} {
	t.Helper()
	var m map[string]interface{}
	if err := utiljson.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("decoding %s: %v", s, err)
	}
	return m
}

func TestMergePatch(t *testing.T) {
	tests := []struct {
		name, prev, cur, patch string
		exact                  bool
	}{
		{"equal", `{"a":1,"b":{"c":"x"}}`, `{"a":1,"b":{"c":"x"}}`, `{}`, true},
		{"changed scalar", `{"a":1}`, `{"a":2}`, `{"a":2}`, true},
		{"removed field", `{"a":1,"b":2}`, `{"a":1}`, `{"b":null}`, true},
		{"nested change", `{"m":{"x":1,"y":2}}`, `{"m":{"x":1,"y":3}}`, `{"m":{"y":3}}`, true},
		{"array replaced whole", `{"l":[1,2,3]}`, `{"l":[1,2]}`, `{"l":[1,2]}`, true},
		{"null in an array is kept", `{"l":[1]}`, `{"l":[null]}`, `{"l":[null]}`, true},
		{"map replaces scalar", `{"a":1}`, `{"a":{"b":1}}`, `{"a":{"b":1}}`, true},
		{"set to null is not expressible", `{"a":1}`, `{"a":null}`, `{"a":null}`, false},
		{"added object with a null", `{}`, `{"a":{"b":null}}`, `{"a":{"b":null}}`, false},
		{"int and float differ", `{"a":1}`, `{"a":1.5}`, `{"a":1.5}`, true},
		{"big integer kept", `{"a":1}`, `{"a":9007199254740993}`, `{"a":9007199254740993}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			patch, exact := createMergePatch(decode(t, tt.prev), decode(t, tt.cur))
			if want := decode(t, tt.patch); !reflect.DeepEqual(patch, want) || exact != tt.exact {
				t.Fatalf("createMergePatch(%s, %s) = %v, %v, want %v, %v", tt.prev, tt.cur, patch, exact, want, tt.exact)
			}
			got := applyMergePatch(decode(t, tt.prev), patch)
			if equal := reflect.DeepEqual(got, decode(t, tt.cur)); equal != tt.exact {
				t.Fatalf("applyMergePatch(%s, %v) = %v; equal to %s: %v, want %v", tt.prev, patch, got, tt.cur, equal, tt.exact)
			}
		})
	}
}
