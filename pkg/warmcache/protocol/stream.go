package protocol

import "encoding/json"

// Stream asks the cache for one type's objects and their changes, as data:
// the objects its informer holds, then each change as it comes, which the
// client's own engine reads as it reads an API server's list and watch.
// The server answers with Stdout frames whose bytes, joined, are one
// StreamEvent in JSON per line, until the client goes away; an Exit when
// the cache's engine fails for good; or, before any event, a Fallback when
// the cache declines (the client then reads the type from its API server).
const Stream RequestKind = "stream"

// StreamRequest is what a Stream asks: one type, in one namespace or all,
// with the selectors and the managedFields mode of the client's engine.
type StreamRequest struct {
	Group    string `json:"group,omitempty"`
	Version  string `json:"version"`
	Resource string `json:"resource"`
	Kind     string `json:"kind"`
	// Namespace is "" for all namespaces or a cluster-scoped type.
	Namespace     string `json:"namespace,omitempty"`
	LabelSelector string `json:"labelSelector,omitempty"`
	FieldSelector string `json:"fieldSelector,omitempty"`
	// ManagedFields is the client engine's engine.ManagedFields mode.
	ManagedFields int  `json:"managedFields,omitempty"`
	RequireWatch  bool `json:"requireWatch,omitempty"`
	// SyncTimeout bounds the wait for the cache's informer to sync;
	// MaxStaleness is the client's --max-staleness.
	SyncTimeout  Duration `json:"syncTimeout,omitempty"`
	MaxStaleness Duration `json:"maxStaleness,omitempty"`
}

// StreamEvent types.
const (
	// StreamAdded, StreamModified and StreamDeleted carry an object: its
	// state after the change (the last known state for a delete).
	StreamAdded    = "ADDED"
	StreamModified = "MODIFIED"
	StreamDeleted  = "DELETED"
	// StreamListed follows the objects the cache held when the stream
	// began, each sent as StreamAdded; changes follow it.
	StreamListed = "LISTED"
	// StreamFailed says the cache's watch of the API server failed
	// (Message: why); StreamResumed that it is live again.
	StreamFailed  = "FAILED"
	StreamResumed = "RESUMED"
	// StreamWarning is a warning of the API server (Message), for the
	// client to print as its own warnings.
	StreamWarning = "WARNING"
)

// StreamEvent is one line of a Stream's answer.
type StreamEvent struct {
	Type string `json:"type"`
	// Object is the object of an added, modified or deleted event, as the
	// cache holds it, in JSON.
	Object json.RawMessage `json:"object,omitempty"`
	// FinalStateUnknown marks a delete the cache's informer inferred
	// after it listed again: Object is the last state it knew.
	FinalStateUnknown bool   `json:"finalStateUnknown,omitempty"`
	Message           string `json:"message,omitempty"`
}
