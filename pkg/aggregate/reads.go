package aggregate

// builtinMeasureReads is what every built-in measure (requests.*, limits.*,
// restarts, containers) reads of a pod besides its metadata: its spec
// (containers, init containers, overhead, pod-level resources) and its
// status (resized resources, container statuses, phase).
var builtinMeasureReads = []string{"spec", "status"}

// FieldsRead returns the fields ms read of an object besides its metadata,
// as field paths in JSON names, and true; false when one of them may read
// any field (a custom JSONPath measure). See index.FieldsRead.
func FieldsRead(ms []Measure) ([]string, bool) {
	paths := []string{}
	for _, m := range ms {
		if m.JSONPath != "" {
			return nil, false
		}
		paths = append(paths, builtinMeasureReads...)
	}
	return paths, true
}
