package expr

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// ToObject returns obj as the API returns it, the value of the variable
// object: an *unstructured.Unstructured (or any runtime.Unstructured) gives
// its content as it is, a map[string]any is taken as it is, and a typed object
// is converted with runtime.DefaultUnstructuredConverter, which follows the
// JSON tags (omitempty fields left out, quantities and times as their JSON
// strings, int64 and float64 numbers) without encoding JSON. The result shares
// nothing with a typed obj; for an unstructured obj it is obj's own map, which
// evaluation only reads.
func ToObject(obj any) (map[string]any, error) {
	switch o := obj.(type) {
	case map[string]any:
		return o, nil
	case *unstructured.Unstructured:
		if o == nil {
			return nil, fmt.Errorf("nil object")
		}
		return o.Object, nil
	case runtime.Unstructured:
		return o.UnstructuredContent(), nil
	case nil:
		return nil, fmt.Errorf("nil object")
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, fmt.Errorf("converting %T to the API's form: %w", obj, err)
	}
	return m, nil
}
