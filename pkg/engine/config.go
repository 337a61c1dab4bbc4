package engine

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// InformerKind says which client and object form an informer uses.
type InformerKind int

const (
	// Typed informers decode protobuf into client-go's Go types; built-in
	// types only.
	Typed InformerKind = iota
	// Dynamic informers decode JSON into unstructured objects; any type,
	// custom resources included.
	Dynamic
	// Metadata informers fetch PartialObjectMetadata in protobuf: names,
	// labels, annotations and owners, a fraction of the bytes.
	Metadata
)

// String returns the kind's name as shown in -v logs and benchmarks.
func (k InformerKind) String() string {
	switch k {
	case Typed:
		return "typed"
	case Dynamic:
		return "dynamic"
	case Metadata:
		return "metadata"
	}
	return fmt.Sprintf("InformerKind(%d)", int(k))
}

// ManagedFields says what the transform keeps of metadata.managedFields
// before an object enters the cache.
type ManagedFields int

const (
	// DropManagedFields removes managedFields: they are often the largest
	// part of an object and no query reads them.
	DropManagedFields ManagedFields = iota
	// SummarizeManagedFields keeps each entry's manager, operation,
	// subresource and time, and drops the fieldsV1 sets: who wrote an object
	// and when, to the second, at a fraction of the memory, but not what
	// each owns (watch uses InternManagedFields for that).
	SummarizeManagedFields
	// KeepManagedFields keeps managedFields as the server sent them.
	KeepManagedFields
	// InternManagedFields keeps every entry with its fieldsV1 set, which
	// says what the entry's manager owns, so a watch can tell who changed
	// each field; identical sets share one copy across the cache (the pods of
	// one ReplicaSet, successive versions of one object). Sets so shared
	// must never be mutated.
	InternManagedFields
)

// Config says what the engine caches.
type Config struct {
	// Namespaces limits namespaced types to these namespaces, with one
	// informer per namespace, so that a user allowed only in them is
	// answered; none means all namespaces.
	Namespaces []string
	// LabelSelector and FieldSelector are sent to the server with every list
	// and watch, so the cache holds only what was asked.
	LabelSelector string
	FieldSelector string
	// Indexes are registered on every type's informer before it starts.
	Indexes []index.Definition
	// FullObjects asks the source for whole objects; when false, for
	// metadata only where the source can serve it, which is enough for
	// metadata indexes and tables.
	FullObjects bool
	// ManagedFields says what to keep of managedFields.
	ManagedFields ManagedFields
	// ShareValues makes the transform share the values a cached object
	// has in common with others (strings, label maps, resource lists,
	// container parts: internObject), which lowers the memory per object
	// of a long-lived cache at a CPU cost per object received. Only for a
	// source whose objects the engine owns (a live API server): sharing
	// writes into the object.
	ShareValues bool
	// Transforms adds a transform for the objects of one resource, run
	// after the engine's own (which sets apiVersion and kind and applies
	// ManagedFields), before the object enters the cache: capacity keeps
	// only what its measures read of each pod. Like any client-go
	// transform it must be idempotent, must not mutate an object it does
	// not return, and is called from the informer's goroutine. Types
	// naming the same resource share it.
	Transforms map[schema.GroupResource]toolscache.TransformFunc
	// Reduce, when set, is a transform for the objects of every type, run
	// last: a one-shot command's stored form (index.RecordPlan), which
	// keeps only what the command reads. It has the contract of Transforms.
	// Applied as objects arrive, also while a streaming initial list
	// (WatchListClient) is read, so a whole object is held only while it
	// is reduced. What it returns, unless the object it was given, must not
	// point into that object's struct (it may share the strings, maps and
	// slices the object points to): a streamed list decodes the next item
	// into the same struct.
	Reduce toolscache.TransformFunc
	// Reads, when set, is all a one-shot command reads of its objects
	// besides their metadata: field paths in JSON names ("spec.nodeName",
	// "status"; see protoskip.NewPlan). Typed feeds then decode from the
	// protobuf wire only the metadata, without managedFields, and those
	// paths; the objects the transforms see lack every other field. Nil
	// decodes whole objects; set it only with a Reduce that reads nothing
	// else (index.RecordPlan).
	Reads []string
	// PlainWatchStreams asks the server for watch streams without gzip,
	// the streaming initial list (WatchListClient) included, for a
	// long-running watch whose events then cost less CPU; lists stay
	// gzipped. A one-shot query leaves it off: its list, streamed or not, is
	// faster gzipped (figures in bench/README.md).
	PlainWatchStreams bool
	// SyncTimeout bounds the wait for the first sync; 0 means 60s.
	SyncTimeout time.Duration
	// Progress, when set, is called on Start's goroutine about five times a
	// second while Start waits for sync, and once more when it ends.
	Progress func(Progress)
	// OnWatchError, when set, is called after the type's cache has synced
	// for every failed list or watch attempt: errors the reflector hands its
	// watch error handler, and requests that never reached the server. The
	// informer keeps retrying on its own. It is called from the informers'
	// and the transport's goroutines, possibly concurrently, and must
	// return quickly.
	OnWatchError func(t *Type, err error)
	// OnWatchResumed, when set, is called once per outage, after
	// OnWatchError was called for a type, when its informer is live again:
	// a relist has been read, or a watch from the informer's
	// resourceVersion was accepted. The changes made meanwhile reach the
	// handlers after it. Like OnWatchError, it is called from any
	// goroutine.
	OnWatchResumed func(t *Type)
	// RequireWatch makes a type's first watch request that is forbidden a
	// failure of the engine (see Failed), even after sync: a user who may
	// list a type but not watch it gets an error instead of a watch that
	// retries forever. A watch forbidden after one has succeeded
	// (permission removed) still goes to OnWatchError. Queries, which only
	// need the list, leave it off.
	RequireWatch bool
}

// Progress is a snapshot of the initial sync.
type Progress struct {
	Elapsed time.Duration
	Types   []TypeProgress
	Done    bool
}

// TypeProgress is one type's part of a Progress.
type TypeProgress struct {
	Name     string
	Received int64
	Synced   bool
}
