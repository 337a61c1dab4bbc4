package printing

import (
	"io"

	"k8s.io/cli-runtime/pkg/printers"
)

// ContextsField is the field of a -o json|yaml List of several contexts
// that names each item's context: contexts[i] is the context of items[i].
// The items themselves are what one context alone prints: the objects as
// the API server sent them (query, tree), a context's capacity object
// (capacity).
const ContextsField = "contexts"

// ContextList is the v1 List of a command's -o json|yaml: items, and,
// across several contexts, beside them contexts (ContextsField), of the
// same length.
type ContextList struct {
	// One is set when the command asked one context: the List is then
	// kubectl's, without contexts.
	One             bool
	items, contexts []interface{}
}

// Add appends item, which came from context name.
func (l *ContextList) Add(name string, item interface{}) {
	l.items = append(l.items, item)
	l.contexts = append(l.contexts, name)
}

// Write prints the List to w.
func (l *ContextList) Write(w io.Writer, format string, printer printers.ResourcePrinter) error {
	items, contexts := l.items, l.contexts
	if items == nil {
		items, contexts = []interface{}{}, []interface{}{}
	}
	if l.One {
		return printListObject(w, printer, format, items, "", nil)
	}
	return printListObject(w, printer, format, items, ContextsField, contexts)
}
