// Package object turns Kubernetes objects, typed or unstructured, into their
// content: the JSON-like map (map[string]interface{}, []interface{}, string,
// int64, float64, bool, nil) that the API server returns and that
// unstructured.Unstructured holds. Indexers, measures, the differ and the
// printers all read objects in that form, through Content.
package object
