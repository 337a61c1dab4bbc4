package printing

import (
	"bufio"
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/runtime"

	"k8s.io/cli-runtime/pkg/printers"

	"github.com/kubectl-informer/kubectl-informer/pkg/object"
)

// ContextsField is the field of a -o json|yaml List of several contexts
// that names each item's context: contexts[i] is the context of items[i].
// The items themselves are what one context alone prints: the objects as
// the API server sent them (query, tree), a context's capacity object
// (capacity).
const ContextsField = "contexts"

// ContextList is what a command prints of its objects with -o json, yaml,
// name or a template: the v1 List of the items, and, across several
// contexts, beside them contexts (ContextsField), of the same length; -o
// name prints each item's name, after CONTEXT/ across several contexts.
type ContextList struct {
	// One is set when the command asked one context: the List is then
	// kubectl's, without contexts, and names have no context.
	One             bool
	items, contexts []interface{}
}

// Add appends item, which came from context name: an object (printed as
// its content, object.Content) or a value whose JSON is the item.
func (l *ContextList) Add(name string, item interface{}) {
	l.items = append(l.items, item)
	l.contexts = append(l.contexts, name)
}

// Write prints the List to w, in format with printer.
func (l *ContextList) Write(w io.Writer, format string, printer printers.ResourcePrinter) error {
	if format == "name" {
		// One write for many names, not one each.
		bw := bufio.NewWriterSize(w, 64<<10)
		for i, item := range l.items {
			ro, ok := item.(runtime.Object)
			if !ok {
				continue
			}
			if !l.One {
				fmt.Fprintf(bw, "%s/", l.contexts[i])
			}
			if err := printer.PrintObj(ro, bw); err != nil {
				_ = bw.Flush() // the names before it, as printed
				return err
			}
		}
		return bw.Flush()
	}
	items := make([]interface{}, len(l.items))
	for i, item := range l.items {
		m, err := object.Content(item)
		if err != nil {
			return err
		}
		items[i] = m
	}
	if l.One {
		return printListObject(w, printer, format, items, "", nil)
	}
	contexts := l.contexts
	if contexts == nil {
		contexts = []interface{}{}
	}
	return printListObject(w, printer, format, items, ContextsField, contexts)
}
