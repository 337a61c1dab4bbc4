package plugin

import (
	"io"

	"k8s.io/cli-runtime/pkg/printers"
)

// fleetContextsField is the field of a fleet command's -o json|yaml List
// that names each item's context: contexts[i] is the context of items[i].
// The items themselves are what one context alone prints: the objects as
// the API server sent them (query, tree), a context's capacity object
// (capacity).
const fleetContextsField = "contexts"

// fleetList is the v1 List of a fleet's -o json|yaml: items, and beside
// them contexts (fleetContextsField), of the same length.
type fleetList struct {
	items, contexts []interface{}
}

// add appends item, which came from context name.
func (l *fleetList) add(name string, item interface{}) {
	l.items = append(l.items, item)
	l.contexts = append(l.contexts, name)
}

// write prints the List to w (printListObject).
func (l *fleetList) write(w io.Writer, format string, printer printers.ResourcePrinter) error {
	items, contexts := l.items, l.contexts
	if items == nil {
		items, contexts = []interface{}{}, []interface{}{}
	}
	return printListObject(w, printer, format, map[string]interface{}{
		"apiVersion":       "v1",
		"kind":             "List",
		"metadata":         map[string]interface{}{"resourceVersion": ""},
		"items":            items,
		fleetContextsField: contexts,
	})
}
