package diff

import (
	"fmt"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubectl-informer/kubectl-informer/internal/testpods"
	"github.com/kubectl-informer/kubectl-informer/pkg/object"
)

// BenchmarkUpdateMaps measures the conversion of a typed pod update into the
// maps the differ compares, in parts and whole.
func BenchmarkUpdateMaps(b *testing.B) {
	for _, whole := range []bool{false, true} {
		for _, edit := range testpods.Edits[:4] {
			b.Run(fmt.Sprintf("whole=%v/%s", whole, edit.Name), func(b *testing.B) {
				old, new := testpods.Pair(edit.Edit)
				b.ReportAllocs()
				for b.Loop() {
					if _, _, err := UpdateMaps(old, new, whole); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// TestUpdateMapsOfTypedObjects checks that the maps UpdateMaps makes of typed
// objects, in parts or whole, yield the changes of the whole objects as
// unstructured maps, and leave the objects as they were.
func TestUpdateMapsOfTypedObjects(t *testing.T) {
	for _, edit := range testpods.Edits {
		for _, whole := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/whole=%v", edit.Name, whole), func(t *testing.T) {
				old, new := testpods.Pair(edit.Edit)
				oldCopy, newCopy := old.DeepCopy(), new.DeepCopy()
				om, nm, err := UpdateMaps(old, new, whole)
				if err != nil {
					t.Fatal(err)
				}
				ou, err := object.Content(old)
				if err != nil {
					t.Fatal(err)
				}
				nu, err := object.Content(new)
				if err != nil {
					t.Fatal(err)
				}
				opts := Options{Ignore: DefaultIgnore()}
				if got, want := Compare(om, nm, opts), Compare(ou, nu, opts); !reflect.DeepEqual(got, want) {
					t.Errorf("Compare(UpdateMaps) = %v, want %v", got, want)
				}
				if got, want := JSONPatch(om, nm, opts), JSONPatch(ou, nu, opts); !reflect.DeepEqual(got, want) {
					t.Errorf("JSONPatch(UpdateMaps) = %v, want %v", got, want)
				}
				if !reflect.DeepEqual(old, oldCopy) || !reflect.DeepEqual(new, newCopy) {
					t.Errorf("UpdateMaps changed the objects")
				}
			})
		}
	}
}

func TestValuesEqualAgreesWithDeepEqual(t *testing.T) {
	one, otherOne, two := 1, 1, 2
	var nilMap map[string]string
	tests := []struct {
		name string
		a, b interface{}
	}{
		{"equal strings", "a", "a"},
		{"different strings", "a", "b"},
		{"nil and empty slice", []string(nil), []string{}},
		{"equal slices", []string{"a", "b"}, []string{"a", "b"}},
		{"slices of different length", []string{"a"}, []string{"a", "b"}},
		{"nil and empty map", nilMap, map[string]string{}},
		{"maps with different keys", map[string]string{"a": "1"}, map[string]string{"b": "1"}},
		{"maps with different values", map[string]string{"a": "1"}, map[string]string{"a": "2"}},
		{"equal maps", map[string]string{"a": "1", "b": "2"}, map[string]string{"b": "2", "a": "1"}},
		{"pointers to equal values", &one, &otherOne},
		{"pointers to different values", &one, &two},
		{"nil and non-nil pointer", (*int)(nil), &one},
		{"equal bytes", []byte("abc"), []byte("abc")},
		{"different bytes", []byte("abc"), []byte("abd")},
		{"interfaces of different types", []interface{}{int64(1)}, []interface{}{1}},
		{"equal pods", testpods.Pod(), testpods.Pod()},
		{"pods with another label", testpods.Pod(), func() *corev1.Pod { p := testpods.Pod(); p.Labels["x"] = "y"; return p }()},
		{"quantities", resource.MustParse("1"), resource.MustParse("1000m")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := reflect.DeepEqual(tt.a, tt.b)
			if got := valuesEqual(reflect.ValueOf(tt.a), reflect.ValueOf(tt.b)); got != want {
				t.Errorf("valuesEqual(%v, %v) = %v, want %v (reflect.DeepEqual)", tt.a, tt.b, got, want)
			}
		})
	}
}
