package engines

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestFilterObjectsKeepsOrder(t *testing.T) {
	guard, err := CompilePredicate("--filter", "int(object.metadata.name) % 3 == 0")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 1, 255, 256, 257, 1000} {
		var objs []interface{}
		var want []string
		for i := range n {
			name := fmt.Sprint(i)
			objs = append(objs, &unstructured.Unstructured{Object: map[string]interface{}{"metadata": map[string]interface{}{"name": name}}})
			if i%3 == 0 {
				want = append(want, name)
			}
		}
		var got []string
		for _, obj := range FilterObjects(context.Background(), guard, objs, time.Now()) {
			got = append(got, obj.(*unstructured.Unstructured).GetName())
		}
		if !slices.Equal(got, want) {
			t.Errorf("filterObjects over %d objects = %v, want %v", n, got, want)
		}
	}
}
