package object

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// Content returns obj's content, the form the API server returns it in.
//
// An *unstructured.Unstructured (or any runtime.Unstructured) gives its own
// map, and a map[string]interface{} is taken as it is: the result is then
// the cache's object itself, which callers must only read. A typed object
// (a pointer to a struct, such as *corev1.Pod) is converted with
// runtime.DefaultUnstructuredConverter, which follows the JSON tags
// (omitempty fields left out, quantities and times as their JSON strings,
// int64 and float64 numbers) without encoding JSON; the result is a new map
// that shares nothing with obj, and callers may change it.
//
// Content never mutates obj. It returns an error, and no map, for nil (a nil
// map, or an unstructured object without content) and for a value that is
// not an object (not a non-nil pointer to a struct).
func Content(obj interface{}) (map[string]interface{}, error) {
	switch o := obj.(type) {
	case nil:
		return nil, fmt.Errorf("no object")
	case map[string]interface{}:
		if o == nil {
			return nil, fmt.Errorf("no object")
		}
		return o, nil
	case *unstructured.Unstructured:
		if o == nil || o.Object == nil {
			return nil, fmt.Errorf("no object")
		}
		return o.Object, nil
	case runtime.Unstructured:
		return o.UnstructuredContent(), nil
	}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, fmt.Errorf("converting %T to unstructured: %w", obj, err)
	}
	return content, nil
}
