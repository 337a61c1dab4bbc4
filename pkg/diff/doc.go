// Package diff compares Kubernetes objects held as JSON-like maps (the content
// of unstructured.Unstructured) and renders what changed between two versions
// of one object: as a list of changed fields (Compare, WriteCompact), as an
// RFC 6902 JSON Patch (JSONPatch), or as a unified diff of the YAML (Unified).
// UpdateMaps turns the two versions of an object, unstructured or typed,
// into those maps (through object.Content), converting only the fields that
// differ for typed objects. An Update holds one update seen through one
// Options value, and computes each of those renderings once for all its
// readers.
//
// The package is pure: it does no I/O beyond writing to the io.Writer it is
// given, never mutates the objects it is handed, and its functions are safe
// for concurrent use (an Update is for one goroutine at a time). Values it
// returns (Change.Old, Change.New, PatchOp.Value) may share structure with
// the inputs, so callers must not mutate either afterwards.
//
// Values are expected to be what encoding/json or the Kubernetes unstructured
// decoder produce: map[string]interface{}, []interface{}, string, int64,
// float64, bool and nil. Other numeric types are compared by value; any other
// type is compared with reflect.DeepEqual as a last resort.
//
// # Filtering
//
// Options.Ignore and Options.Only select which parts of the objects count. The
// result of Compare and JSONPatch is defined against a target object: the old
// object with the Only paths (or everything, if Only is empty) taken from the
// new object, and then the Ignore paths taken back from the old object. Taking
// a value that is absent removes it; taking a value creates its missing parent
// maps. JSONPatch turns old into exactly that target.
//
// A list element matches a path segment such as [3] or [name=web] if it
// matches in either the old or the new object.
package diff
