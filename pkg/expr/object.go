package expr

import "github.com/kubectl-informer/kubectl-informer/pkg/object"

// ToObject returns obj as the API returns it, the value of the variable
// object: object.Content, whose contract it keeps (an unstructured object's
// own map, which evaluation only reads; a new map for a typed object; an
// error for what is not an object).
func ToObject(obj any) (map[string]any, error) { return object.Content(obj) }
