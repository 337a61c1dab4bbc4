// Package object says what the project knows of any Kubernetes object,
// typed or unstructured, whatever its type: its storage key (Key), by which
// the engine, the indexes, the expressions and the commands all name it and
// sort it; and its content: the JSON-like map (map[string]interface{}, []interface{}, string,
// int64, float64, bool, nil) that the API server returns and that
// unstructured.Unstructured holds. Indexers, measures, the differ and the
// printers all read objects in that form, through Content.
//
// The package imports no other package of kubectl-informer.
package object
