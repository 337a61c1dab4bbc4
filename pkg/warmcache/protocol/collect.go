package protocol

import (
	"encoding/json"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-informer/kubectl-informer/pkg/aggregate"
	"github.com/kubectl-informer/kubectl-informer/pkg/columns"
)

// Collect asks the cache to answer a query given as data (the Request's
// Query) and send its answer as data, one Answer: the client prints it,
// alone or merged with the answers of other contexts (warm or read
// directly). The server answers with Stdout frames whose bytes,
// joined, are the Answer as JSON, Stderr frames (the query's warnings),
// and Exit or Fallback. A cache of another protocol Version never gets it
// (Dial refuses another Version).
const Collect RequestKind = "collect"

// Answer is one context's answer to a query, as a Collect sends it: per
// type, the matching objects in the order the query prints them, and what
// the printer reads besides the objects that depends on the context's
// other caches or its API server; or, for a query with --group-by or
// --sum, the table of groups alone (Table), neither sorted nor cut. The
// client prints it as an answer it read itself.
type Answer struct {
	// Table is the answer of a grouped query: a row per group with its
	// count and sums, and the totals row.
	Table *aggregate.Table `json:"table,omitempty"`
	// Indexes names the index values each AnswerObject carries, in order:
	// every index the query prints or groups by, and the --sort-by index.
	// Relationship indexes (owner-root, uses, selected-by, …) read the
	// cache's other types: their values are those of the cache.
	Indexes []string `json:"indexes,omitempty"`
	// Types are the query's types, in the order it asked them.
	Types []AnswerType `json:"types,omitempty"`
	// Namespaces are the namespaces asked, none for all; Now, for an
	// output that prints ages, the instant they count from.
	Namespaces []string  `json:"namespaces,omitempty"`
	Now        time.Time `json:"now,omitzero"`
	// Warnings are the API server's warnings the answer's lists and
	// watches got, for the client to print as its own.
	Warnings []string `json:"warnings,omitempty"`
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
	// FormName objects carry no Object: only their Identity.
	FormName = "name"
	// FormRow objects carry no Object: their Identity, with labels, and
	// their Cells.
	FormRow = "row"
)

// AnswerType is one type of an Answer: its REST mapping and its objects.
type AnswerType struct {
	Group      string `json:"group,omitempty"`
	Version    string `json:"version"`
	Resource   string `json:"resource"`
	Kind       string `json:"kind"`
	Namespaced bool   `json:"namespaced,omitempty"`
	// Form is how every object of the type is decoded (FormTyped, …).
	Form string `json:"form"`
	// Columns are a custom resource's printer columns, as its definition
	// declares them, for a table output; none for a built-in type.
	Columns []columns.PrinterColumn `json:"columns,omitempty"`
	Objects []AnswerObject          `json:"objects,omitempty"`
}

// AnswerObject is one object of an AnswerType.
type AnswerObject struct {
	// Object is the cached object as JSON, of every form but FormName and
	// FormRow.
	Object json.RawMessage `json:"object,omitempty"`
	// Identity is a FormName or FormRow object's metadata.
	*Identity
	// Values are its values of each of Answer.Indexes, in order.
	Values [][]string `json:"values,omitempty"`
	// Event, with --show-events, is the latest Event about the object,
	// nil when there is none.
	Event *corev1.Event `json:"event,omitempty"`
	// Cells, of a FormRow object, are its cells of kubectl's table for its
	// type, every column (-o wide's too), at the Answer's Now: what a
	// table prints of it, as an API server's Table carries it.
	Cells []string `json:"cells,omitempty"`
}

// Identity is what an answer carries of an object printed by name or as
// a row: its name, namespace and UID, and for a row its labels (-L,
// --show-labels).
type Identity struct {
	Name      string            `json:"name"`
	Namespace string            `json:"namespace,omitempty"`
	UID       types.UID         `json:"uid,omitempty"`
	Labels    map[string]string `json:"labels,omitempty"`
}
