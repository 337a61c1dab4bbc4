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
	// StatusRequest asks for the cache's Status.
	StatusRequest RequestKind = "status"
	// Stop ends the cache process.
	Stop RequestKind = "stop"
)

// Request is the client's one message on a connection.
type Request struct {
	Kind RequestKind `json:"kind"`
	// Query is a Collect's query.
	Query *Query `json:"query,omitempty"`
	// Stream is a Stream's type.
	Stream *StreamRequest `json:"stream,omitempty"`
}

// Exit is how a Collect, Stream or Stop ended.
type Exit struct {
	// Code is 0, or 1 when the request failed.
	Code int `json:"code"`
	// Error says why it failed.
	Error string `json:"error,omitempty"`
}

// Fallback says why the cache declined a Collect or Stream: the client
// then reads its API server itself.
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
	// Started is when the process began; LastRequest when the last
	// Collect or Stream ended (or Started); Active how many are in
	// progress (a running watch holds a Stream per type).
	Started     time.Time `json:"started"`
	LastRequest time.Time `json:"lastRequest"`
	Active      int       `json:"active"`
	IdleTimeout Duration  `json:"idleTimeout"`
	// RSSBytes is the process's resident memory, 0 where unknown.
	RSSBytes int64        `json:"rssBytes"`
	Caches   []TypeStatus `json:"caches"`
	// Recording is set when the cache keeps a rolling recording.
	Recording *RecordingStatus `json:"recording,omitempty"`

	// Answered counts the requests (Collect, Stream) that ended with an
	// exit (the cache answered), Declined those that ended with a
	// Fallback, since Started.
	Answered int64 `json:"answered"`
	Declined int64 `json:"declined"`

	// Usage are the metrics API's samples the cache keeps for the
	// usage its commands ask about: one entry per reader.
	Usage []UsageStatus `json:"usage,omitempty"`
}

// UsageStatus is one reader of the metrics API a warm cache keeps: what it
// reads, how often it has read it, and its latest sample.
type UsageStatus struct {
	Pods  bool `json:"pods"`
	Nodes bool `json:"nodes"`
	// Namespace is the pods' namespace, "" for all.
	Namespace string `json:"namespace,omitempty"`
	// Readings counts the readings that sent their LISTs.
	Readings int64 `json:"readings"`
	// Newest is the time of the newest sample read, zero before one was;
	// Error the latest reading's error, if it failed.
	Newest time.Time `json:"newest,omitzero"`
	Error  string    `json:"error,omitempty"`
}

// RecordingStatus is what a cache started with --record records.
type RecordingStatus struct {
	// Dir holds the segment files; Retain is how far back they reach.
	Dir    string   `json:"dir"`
	Retain Duration `json:"retain"`
	// Types are the recorded types (resource names).
	Types []string `json:"types,omitempty"`
	// Segment is the file written now, SegmentStarted when it started and
	// SegmentBytes its size; unset while nothing is recorded.
	Segment        string     `json:"segment,omitempty"`
	SegmentStarted *time.Time `json:"segmentStarted,omitempty"`
	SegmentBytes   int64      `json:"segmentBytes,omitempty"`
	// Files counts the segment files in Dir; Segments the segments
	// started by this process.
	Files    int `json:"files"`
	Segments int `json:"segments"`
	// Events counts the changes recorded after the segments' initial
	// states; Dropped the events dropped when the writer fell behind, and
	// Overflows the segments started because of it.
	Events    int64 `json:"events"`
	Dropped   int64 `json:"dropped,omitempty"`
	Overflows int   `json:"overflows,omitempty"`
	// LastError is the last write error, cleared by the next segment.
	LastError string `json:"lastError,omitempty"`
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
