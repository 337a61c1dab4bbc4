// Package object says what the project knows of any Kubernetes object,
// typed or unstructured, whatever its type: its storage key (Key), by which
// the engine, the indexes, the expressions and the commands all name it and
// sort it; and its content: the JSON-like map (map[string]interface{}, []interface{}, string,
// int64, float64, bool, nil) that the API server returns and that
// unstructured.Unstructured holds. Indexers, measures, the differ and the
// printers all read objects in that form, through Content.
//
// One type has two forms: an events.k8s.io/v1 Event is the core/v1 Event
// the API server stores (CoreEvent), which the event indexes and the event
// table both read.
//
// The package imports no other package of kubectl-informer.
package object
