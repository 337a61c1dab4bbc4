package columns

import (
	"slices"
	"testing"
)

func TestSortKeyOrder(t *testing.T) {
	obj := func(name string, spec map[string]interface{}) map[string]interface{} {
		return map[string]interface{}{"metadata": map[string]interface{}{"name": name}, "spec": spec}
	}
	tests := []struct {
		name     string
		path     string
		contents []map[string]interface{}
		want     []int
	}{
		{"strings byte-wise", "{.metadata.name}", []map[string]interface{}{obj("b", nil), obj("a", nil), obj("B", nil)}, []int{2, 1, 0}},
		{"numbers by value", ".spec.replicas", []map[string]interface{}{
			obj("a", map[string]interface{}{"replicas": int64(10)}),
			obj("b", map[string]interface{}{"replicas": int64(9)}),
		}, []int{1, 0}},
		{"quantities by quantity", "spec.cpu", []map[string]interface{}{
			obj("a", map[string]interface{}{"cpu": "1"}),
			obj("b", map[string]interface{}{"cpu": "100m"}),
			obj("c", map[string]interface{}{"cpu": "2Gi"}),
		}, []int{1, 0, 2}},
		{"missing field first", "{.spec.node}", []map[string]interface{}{
			obj("a", map[string]interface{}{"node": "n1"}),
			obj("b", nil),
		}, []int{1, 0}},
		{"ties keep their order", "{.spec.zone}", []map[string]interface{}{
			obj("a", map[string]interface{}{"zone": "z"}),
			obj("b", map[string]interface{}{"zone": "y"}),
			obj("c", map[string]interface{}{"zone": "z"}),
			obj("d", map[string]interface{}{"zone": "y"}),
		}, []int{1, 3, 0, 2}},
		{"timestamps as RFC 3339 strings", "{.metadata.creationTimestamp}", []map[string]interface{}{
			{"metadata": map[string]interface{}{"creationTimestamp": "2026-11-23T10:00:00Z"}},
			{"metadata": map[string]interface{}{"creationTimestamp": "2026-11-22T10:00:00Z"}},
		}, []int{1, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			key, err := ParseSortKey(tt.path)
			if err != nil {
				t.Fatal(err)
			}
			got, err := key.Order(tt.contents)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Order(%s) = %v, want %v", tt.path, got, tt.want)
			}
		})
	}
}

func TestSortKeyErrors(t *testing.T) {
	if _, err := ParseSortKey("{.spec[}"); err == nil {
		t.Error("ParseSortKey of a bad JSONPath succeeded")
	}
	key, err := ParseSortKey(".spec.none")
	if err != nil {
		t.Fatal(err)
	}
	_, err = key.Order([]map[string]interface{}{{"spec": map[string]interface{}{}}})
	if want := `couldn't find any field with path "{.spec.none}" in the list of objects`; err == nil || err.Error() != want {
		t.Errorf("Order without the field: %v, want %s", err, want)
	}
	mixed, _ := ParseSortKey(".spec.x")
	if _, err := mixed.Order([]map[string]interface{}{{"spec": map[string]interface{}{"x": "a"}}, {"spec": map[string]interface{}{"x": int64(1)}}}); err == nil {
		t.Error("Order of a string and a number succeeded")
	}
}
