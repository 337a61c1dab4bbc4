package protocol

import "time"

// Hello is the server's greeting.
type Hello struct {
	// Version is the server's protocol version.
	Version int `json:"version"`
	// Pid is the cache process's id.
	Pid int `json:"pid"`
	// Build is the server's kubectl-informer version, for messages.
	Build string `json:"build,omitempty"`
	// BuildID identifies the server's executable (version.BuildID): a
	// client of another build does not send it a Request, even when
	// Build, the version string, is the same.
	BuildID string `json:"buildID,omitempty"`
}

// RequestKind says what a Request asks.
type RequestKind string

// Request kinds.
const (
	// Run runs a query or watch command in the cache process and streams
	// its output back.
	Run RequestKind = "run"
	// StatusRequest asks for the cache's Status.
	StatusRequest RequestKind = "status"
	// Stop ends the cache process.
	Stop RequestKind = "stop"
)

// Request is the client's one message on a connection.
type Request struct {
	Kind RequestKind `json:"kind"`
	// Args are the command's arguments after the program name ("query",
	// "pods", "-n", "shop", ...), with every kubeconfig and credential flag
	// removed and the namespace made explicit by the client.
	Args []string `json:"args,omitempty"`
	// TZ is the client's TZ environment variable, nil when it is unset: the
	// cache prints local times (watch --timestamps) in the client's time
	// zone, resolved from TZ as Go resolves its own (unset: /etc/localtime;
	// empty or unknown: UTC), not in the cache process's.
	TZ *string `json:"tz,omitempty"`
	// WarningColor says the client prints the API server's warnings in
	// colour, as kubectl does when stderr is a terminal.
	WarningColor bool `json:"warningColor,omitempty"`
}

// Exit is how a Run or Stop ended.
type Exit struct {
	// Code is the exit code the command would have had.
	Code int `json:"code"`
	// Error is the error message main prints after "error: ", if any.
	Error string `json:"error,omitempty"`
}

// Fallback says why the cache declined a Run.
type Fallback struct {
	// Reason says why, for -v logs.
	Reason string `json:"reason"`
	// Warning, when set, is printed on the client's stderr before it answers
	// the command itself (a stale cache, not a query it does not serve).
	Warning string `json:"warning,omitempty"`
}

// Status describes one running cache.
type Status struct {
	Pid     int    `json:"pid"`
	Server  string `json:"server"`
	User    string `json:"user"`
	Context string `json:"context,omitempty"`
	Socket  string `json:"socket"`
	Build   string `json:"build,omitempty"`
	// Started is when the process began; LastRequest when the last Run
	// ended (or Started); Active how many Runs are in progress.
	Started     time.Time `json:"started"`
	LastRequest time.Time `json:"lastRequest"`
	Active      int       `json:"active"`
	IdleTimeout Duration  `json:"idleTimeout"`
	// RSSBytes is the process's resident memory, 0 where unknown.
	RSSBytes int64        `json:"rssBytes"`
	Caches   []TypeStatus `json:"caches"`
}

// TypeStatus is one cached type: one informer per namespace of Namespaces
// (one for all namespaces when empty).
type TypeStatus struct {
	Type          string   `json:"type"`
	Namespaces    []string `json:"namespaces,omitempty"`
	LabelSelector string   `json:"labelSelector,omitempty"`
	FieldSelector string   `json:"fieldSelector,omitempty"`
	// Purpose is "query" or "watch": the two keep different parts of
	// managedFields, so they do not share an informer.
	Purpose string   `json:"purpose"`
	Objects int      `json:"objects"`
	Indexes []string `json:"indexes,omitempty"`
	// Users is how many commands hold the cache now (running watches),
	// those reading it through a narrower view included.
	Users int `json:"users"`
	// IdleSince is when the last user left, unset while it has users; the
	// cache evicts the type --evict-after later.
	IdleSince *time.Time `json:"idleSince,omitempty"`
	// Synced reports whether the initial list has completed.
	Synced bool `json:"synced"`
	// FailingSince is set while the type's watch fails; LastError says why.
	FailingSince *time.Time `json:"failingSince,omitempty"`
	LastError    string     `json:"lastError,omitempty"`
}
