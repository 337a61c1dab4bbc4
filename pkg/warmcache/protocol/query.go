package protocol

// Query is a query as data: what `kubectl informer query` answers, as the
// client completed it from its flags for one context. A Collect request
// carries one; its fields are the query command's flags of the same names.
type Query struct {
	// Types is the TYPE[,TYPE...] argument.
	Types string `json:"types"`
	// Namespace is the namespace (several joined by commas) the client
	// resolved from -n or its kubeconfig context; ignored with
	// AllNamespaces.
	Namespace     string `json:"namespace,omitempty"`
	AllNamespaces bool   `json:"allNamespaces,omitempty"`
	LabelSelector string `json:"labelSelector,omitempty"`
	FieldSelector string `json:"fieldSelector,omitempty"`
	// Indexers are the --indexer NAME=EXPR definitions.
	Indexers []string `json:"indexers,omitempty"`
	QueryFlags
	// SyncTimeout and MaxStaleness are --sync-timeout and --max-staleness.
	SyncTimeout  Duration `json:"syncTimeout,omitempty"`
	MaxStaleness Duration `json:"maxStaleness,omitempty"`
}

// QueryFlags are the flags of a Query that the query command holds itself
// (the others are those every command that reads a cluster has), bound
// to the command's flags as they are.
type QueryFlags struct {
	// Index are the --index NAME=VALUE selectors, ANDed.
	Index []string `json:"index,omitempty"`
	// GroupBy and Sums make the answer a table of groups (Answer.Table).
	GroupBy []string `json:"groupBy,omitempty"`
	Sums    []string `json:"sums,omitempty"`
	Filter  string   `json:"filter,omitempty"`
	// SortBy is --sort-by of a query of objects, which may name an
	// --indexer index whose values the answer then carries.
	SortBy string `json:"sortBy,omitempty"`
	// Output is the -o format the client prints the answer in: it decides
	// what the answer's objects hold (whole objects or metadata). A file
	// it names (jsonpath-file=PATH) is read by the client.
	Output     string `json:"output,omitempty"`
	ShowEvents bool   `json:"showEvents,omitempty"`
}
