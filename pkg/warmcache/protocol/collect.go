package protocol

import (
	"encoding/json"

	corev1 "k8s.io/api/core/v1"
)

// Collect asks the cache to run a query command and send its answer as
// data, one Answer, instead of printed text: a fleet query merges the
// answers of several contexts (warm or read directly) in one printer on
// the client. The Request's Args are those of a Run of the query. The
// server answers as a Run: Stdout frames whose bytes, joined, are the
// Answer as JSON, Stderr frames (the query's warnings), and Exit or
// Fallback. A cache of an older protocol Version never gets it (Dial
// refuses another Version).
const Collect RequestKind = "collect"

// Answer is one context's answer to a query, as a Collect sends it: per
// type, the matching objects in the order the query prints them, and what
// the printer reads besides the objects that depends on the context's
// other caches.
type Answer struct {
	// Indexes names the index values each AnswerObject carries, in order:
	// every index the query prints or groups by, and the --sort-by index.
	// Relationship indexes (owner-root, uses, selected-by, …) read the
	// cache's other types: their values are those of the cache.
	Indexes []string `json:"indexes,omitempty"`
	// Types are the query's types, in the order it asked them.
	Types []AnswerType `json:"types"`
}

// Object forms: how an AnswerObject's Object is decoded.
const (
	// FormTyped objects are client-go Go types of the kubernetes scheme,
	// of the type's Group, Version and Kind.
	FormTyped = "typed"
	// FormUnstructured objects are unstructured JSON (apiVersion and kind
	// included).
	FormUnstructured = "unstructured"
	// FormMetadata objects are metav1.PartialObjectMetadata.
	FormMetadata = "metadata"
)

// AnswerType is one type of an Answer: its REST mapping and its objects.
type AnswerType struct {
	Group      string `json:"group,omitempty"`
	Version    string `json:"version"`
	Resource   string `json:"resource"`
	Kind       string `json:"kind"`
	Namespaced bool   `json:"namespaced,omitempty"`
	// Form is how every object of the type is decoded (FormTyped, …).
	Form    string         `json:"form"`
	Objects []AnswerObject `json:"objects,omitempty"`
}

// AnswerObject is one object of an AnswerType.
type AnswerObject struct {
	// Object is the cached object as JSON.
	Object json.RawMessage `json:"object"`
	// Values are its values of each of Answer.Indexes, in order.
	Values [][]string `json:"values,omitempty"`
	// Event, with --show-events, is the latest Event about the object,
	// nil when there is none.
	Event *corev1.Event `json:"event,omitempty"`
}
