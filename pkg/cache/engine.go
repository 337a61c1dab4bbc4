// Package cache is kubectl-informer's informer engine: it starts one shared
// informer per requested resource type, registers the indexes a query needs,
// waits until every cache has synced, and answers lookups from the synced
// caches. It knows nothing of cobra or printing; pkg/plugin drives it.
//
// Guarantees:
//   - Every informer and every index is created before any informer starts,
//     so no informer is left unstarted and no indexer is added too late.
//   - Start returns only when every cache has synced, when the sync deadline
//     passes, when the context ends, or as soon as a list or watch fails in a
//     way retrying cannot fix (forbidden, unauthorized, type not served, bad
//     selector, server unreachable). It never waits forever.
//   - Objects handed out are the cache's own: callers must not mutate them.
package cache

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

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
	// subresource and time, and drops the fieldsV1 sets, so a watch can tell
	// who changed an object at a fraction of the memory.
	SummarizeManagedFields
	// KeepManagedFields keeps managedFields as the server sent them.
	KeepManagedFields
)

// Config says what the engine caches.
type Config struct {
	// Namespace limits namespaced types to one namespace; "" means all.
	Namespace string
	// LabelSelector and FieldSelector are sent to the server with every list
	// and watch, so the cache holds only what was asked.
	LabelSelector string
	FieldSelector string
	// Indexes are registered on every type's informer before it starts.
	Indexes []index.Definition
	// FullObjects asks for whole objects; when false, metadata-only
	// informers are used, which is enough for metadata indexes and tables.
	FullObjects bool
	// ForceDynamic uses dynamic (JSON) informers even for built-in types.
	// Benchmarks use it to compare informer kinds.
	ForceDynamic bool
	// ManagedFields says what to keep of managedFields.
	ManagedFields ManagedFields
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
	// OnWatchResumed, when set, is called when a watch request of a type
	// succeeds after OnWatchError was called for it, once per outage; like
	// OnWatchError, from any goroutine.
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

// Type is one resolved resource type with its informer. Its exported
// fields are set by New and not changed after; its methods are safe for
// concurrent use.
type Type struct {
	// Mapping is the type's REST mapping: resource, kind, scope.
	Mapping *meta.RESTMapping
	// Kind is the informer kind chosen for the type.
	Kind InformerKind
	// Informer is the type's shared informer; its indexer holds the cache.
	Informer toolscache.SharedIndexInformer

	received            atomic.Int64
	consecutiveConnErrs atomic.Int64
	failing             atomic.Bool
	// watched is set once a watch request of the type has succeeded.
	watched atomic.Bool
}

// Name is the type's resource name, group-qualified for non-core groups:
// "pods", "deployments.apps", "widgets.example.com".
func (t *Type) Name() string {
	return t.Mapping.Resource.GroupResource().String()
}

// Namespaced reports whether the type's objects live in namespaces.
func (t *Type) Namespaced() bool {
	return t.Mapping.Scope.Name() == meta.RESTScopeNameNamespace
}

// Engine owns the informers of one kubectl-informer run. New builds it,
// SendEvents (optional) and Start are called once each, in that order, and
// Shutdown ends it; Types, Failed and Err are safe for concurrent use at any
// time.
type Engine struct {
	cfg   Config
	types []*Type

	// informers holds one informer per namespace and resource, shared by
	// types that name the same resource.
	informers map[informerKey]toolscache.SharedIndexInformer
	running   sync.WaitGroup

	// requests is what the engine's list and watch requests carry on their
	// context to the clients' transports.
	requests requestOptions

	failOnce sync.Once
	failed   chan struct{}
	failErr  error
	stop     chan struct{}
	stopOnce sync.Once
}

// New creates the informers for mappings, with cfg's indexes, transform and
// error handling, without starting them. It does not change clients: several
// engines may share one Clients, each seeing only its own requests.
func New(clients *Clients, mappings []*meta.RESTMapping, cfg Config) (*Engine, error) {
	if cfg.SyncTimeout == 0 {
		cfg.SyncTimeout = 60 * time.Second
	}
	e := &Engine{
		cfg:       cfg,
		informers: map[informerKey]toolscache.SharedIndexInformer{},
		failed:    make(chan struct{}),
		stop:      make(chan struct{}),
	}
	e.requests = requestOptions{observe: e.observeRequest, plainWatches: cfg.PlainWatchStreams}
	indexers := toolscache.Indexers{}
	for _, def := range cfg.Indexes {
		indexers[def.Name] = def.Func
	}
	for _, mapping := range mappings {
		t := &Type{Mapping: mapping}
		namespace := cfg.Namespace
		if !t.Namespaced() {
			namespace = metav1.NamespaceAll
		}
		var err error
		if t.Kind, t.Informer, err = e.informerFor(clients, mapping, namespace); err != nil {
			return nil, fmt.Errorf("creating the informer of %s: %w", t.Name(), err)
		}
		if missing := missingIndexers(t.Informer, indexers); len(missing) > 0 {
			if err := t.Informer.AddIndexers(missing); err != nil {
				return nil, fmt.Errorf("adding indexes to %s: %w", t.Name(), err)
			}
		}
		if err := t.Informer.SetTransform(e.transform(t)); err != nil {
			return nil, fmt.Errorf("setting transform on %s: %w", t.Name(), err)
		}
		if err := t.Informer.SetWatchErrorHandlerWithContext(e.watchErrorHandler(t)); err != nil {
			return nil, fmt.Errorf("setting watch error handler on %s: %w", t.Name(), err)
		}
		klog.V(2).InfoS("created informer", "type", t.Name(), "kind", t.Kind, "namespace", namespace)
		e.types = append(e.types, t)
	}
	return e, nil
}

// observeRequest gets the outcome of every list and watch request of the
// engine's informers, from the clients' transport, and reports watch
// outages and recoveries of synced types. It may be called from any
// goroutine, once Start has begun.
func (e *Engine) observeRequest(path string, watch bool, err error) {
	for _, t := range e.types {
		if !t.matchesPath(path) {
			continue
		}
		if watch && err == nil {
			t.watched.Store(true)
		}
		if !t.Informer.HasSynced() {
			continue
		}
		switch {
		case err != nil:
			e.watchFailed(t, err)
		case watch && t.failing.CompareAndSwap(true, false) && e.cfg.OnWatchResumed != nil:
			e.cfg.OnWatchResumed(t)
		}
	}
}

func (e *Engine) watchFailed(t *Type, err error) {
	t.failing.Store(true)
	if e.cfg.OnWatchError != nil {
		e.cfg.OnWatchError(t, err)
	}
}

// Types returns the engine's types in the order they were requested.
func (e *Engine) Types() []*Type { return e.types }

// missingIndexers leaves out indexers the informer already has: every
// informer starts with client-go's "namespace" index, which indexes the same
// value as ours, and types naming the same resource share an informer.
func missingIndexers(informer toolscache.SharedIndexInformer, indexers toolscache.Indexers) toolscache.Indexers {
	existing := informer.GetIndexer().GetIndexers()
	missing := toolscache.Indexers{}
	for name, fn := range indexers {
		if _, ok := existing[name]; !ok {
			missing[name] = fn
		}
	}
	return missing
}

type informerKey struct {
	namespace string
	gvr       schema.GroupVersionResource
}

// informerFor returns the informer of mapping's resource in namespace (""
// for all): metadata-only unless cfg.FullObjects, typed (protobuf, Go types)
// for built-in types, dynamic (JSON, unstructured) for the others. They are
// the informers client-go's factories would build, without linking the
// factory packages' informer for every built-in type.
func (e *Engine) informerFor(clients *Clients, mapping *meta.RESTMapping, namespace string) (InformerKind, toolscache.SharedIndexInformer, error) {
	gvr := mapping.Resource
	var (
		kind    InformerKind
		source  listerWatcher
		example runtime.Object
	)
	switch {
	case !e.cfg.FullObjects:
		kind, example = Metadata, &metav1.PartialObjectMetadata{}
		source = clientListerWatcher[*metav1.PartialObjectMetadataList]{clients.Metadata.Resource(gvr).Namespace(namespace)}
	case !e.cfg.ForceDynamic && clients.Typed != nil && clients.Typed.Serves(mapping.GroupVersionKind):
		var err error
		if source, example, err = clients.Typed.listerWatcher(mapping, namespace); err != nil {
			return 0, nil, err
		}
		kind = Typed
	default:
		kind, example = Dynamic, &unstructured.Unstructured{}
		source = clientListerWatcher[*unstructured.UnstructuredList]{clients.Dynamic.Resource(gvr).Namespace(namespace)}
	}
	key := informerKey{namespace: namespace, gvr: gvr}
	if informer, ok := e.informers[key]; ok {
		return kind, informer, nil
	}
	tweak := func(opts *metav1.ListOptions) {
		opts.LabelSelector = e.cfg.LabelSelector
		opts.FieldSelector = e.cfg.FieldSelector
	}
	lw := &toolscache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			ctx = withRequestOptions(ctx, &e.requests)
			tweak(&opts)
			return source.List(ctx, opts)
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			ctx = withRequestOptions(ctx, &e.requests)
			tweak(&opts)
			return source.Watch(ctx, opts)
		},
	}
	informer := toolscache.NewSharedIndexInformerWithOptions(lw, example, toolscache.SharedIndexInformerOptions{
		Indexers:          toolscache.Indexers{toolscache.NamespaceIndex: toolscache.MetaNamespaceIndexFunc},
		ObjectDescription: gvr.String(),
	})
	e.informers[key] = informer
	return kind, informer, nil
}

// listerWatcher is the List and Watch of one resource in one namespace or
// all, as client-go's ListerWatcher names it (a client-go lister reads a
// cache instead).
type listerWatcher interface {
	List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error)
	Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
}

// clientListerWatcher adapts the dynamic and metadata clients, whose List
// returns their own list type, to listerWatcher.
type clientListerWatcher[L runtime.Object] struct {
	r interface {
		List(ctx context.Context, opts metav1.ListOptions) (L, error)
		Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
	}
}

func (l clientListerWatcher[L]) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	return l.r.List(ctx, opts)
}

func (l clientListerWatcher[L]) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return l.r.Watch(ctx, opts)
}

// transform runs on every object before it enters the cache. It must be
// idempotent: client-go may hand it an object it has already transformed.
func (e *Engine) transform(t *Type) toolscache.TransformFunc {
	gvk := t.Mapping.GroupVersionKind
	mode := e.cfg.ManagedFields
	return func(obj interface{}) (interface{}, error) {
		t.received.Add(1)
		ro, ok := obj.(runtime.Object)
		if !ok {
			return obj, nil
		}
		if t.Kind != Dynamic {
			// Typed objects decoded from a list carry no apiVersion/kind,
			// and metadata-only ones say PartialObjectMetadata; printers
			// and JSONPath expect the type's own.
			ro.GetObjectKind().SetGroupVersionKind(gvk)
		}
		accessor, err := meta.Accessor(ro)
		if err != nil {
			return obj, nil
		}
		switch mode {
		case DropManagedFields:
			if accessor.GetManagedFields() != nil {
				accessor.SetManagedFields(nil)
			}
		case SummarizeManagedFields:
			if fields := accessor.GetManagedFields(); fields != nil {
				summary := make([]metav1.ManagedFieldsEntry, len(fields))
				for i, f := range fields {
					f.FieldsV1 = nil
					summary[i] = f
				}
				accessor.SetManagedFields(summary)
			}
		}
		return obj, nil
	}
}

func (e *Engine) watchErrorHandler(t *Type) toolscache.WatchErrorHandlerWithContext {
	return func(ctx context.Context, r *toolscache.Reflector, err error) {
		klog.V(2).InfoS("list or watch failed", "type", t.Name(), "err", err)
		if isWatchForbidden(err) && !t.watched.Load() {
			// The list worked (or this would be its error), the watch may
			// not: fatal for a watch, harmless for a query, whose cache
			// syncs from the list.
			if e.cfg.RequireWatch {
				e.fail(fmt.Errorf("watching %s: %w", t.Name(), apiCause(err)))
			}
			return
		}
		if !t.Informer.HasSynced() {
			if isConnectionError(err) {
				if t.consecutiveConnErrs.Add(1) >= maxConnErrorsBeforeSync {
					e.fail(fmt.Errorf("listing %s: %w", t.Name(), apiCause(err)))
				}
				return
			}
			t.consecutiveConnErrs.Store(0)
			if isFatal(err) {
				e.fail(fmt.Errorf("listing %s: %w", t.Name(), apiCause(err)))
			}
			return
		}
		e.watchFailed(t, err)
	}
}

// Failed is closed when the engine has failed for good, before or after
// sync; Err then says why. The informers keep running until Shutdown.
func (e *Engine) Failed() <-chan struct{} { return e.failed }

// Err returns why the engine failed, or nil if it has not.
func (e *Engine) Err() error {
	select {
	case <-e.failed:
		return e.failErr
	default:
		return nil
	}
}

func (e *Engine) fail(err error) {
	e.failOnce.Do(func() {
		e.failErr = err
		close(e.failed)
	})
}

// Start starts every informer and waits until all caches have synced. It
// returns an error naming the type and the cause when a list fails for good,
// a *SyncTimeoutError when cfg.SyncTimeout passes, or ctx's error when ctx
// ends. The informers keep running until Shutdown.
func (e *Engine) Start(ctx context.Context) error {
	for _, informer := range e.informers {
		e.running.Go(func() { informer.Run(e.stop) })
	}
	return e.waitForSync(ctx)
}

func (e *Engine) waitForSync(ctx context.Context) error {
	start := time.Now()
	deadline := time.NewTimer(e.cfg.SyncTimeout)
	defer deadline.Stop()
	poll := time.NewTicker(20 * time.Millisecond)
	defer poll.Stop()
	lastProgress := time.Time{}
	for {
		synced := e.synced()
		if e.cfg.Progress != nil && (synced || time.Since(lastProgress) >= 200*time.Millisecond) {
			lastProgress = time.Now()
			e.cfg.Progress(e.progress(time.Since(start), synced))
		}
		if synced {
			klog.V(1).InfoS("caches synced", "elapsed", time.Since(start))
			return nil
		}
		select {
		case <-poll.C:
		case <-e.failed:
			e.reportDone(start)
			return e.failErr
		case <-ctx.Done():
			e.reportDone(start)
			return ctx.Err()
		case <-deadline.C:
			e.reportDone(start)
			return e.timeoutError()
		}
	}
}

func (e *Engine) reportDone(start time.Time) {
	if e.cfg.Progress != nil {
		p := e.progress(time.Since(start), false)
		p.Done = true
		e.cfg.Progress(p)
	}
}

func (e *Engine) synced() bool {
	for _, t := range e.types {
		if !t.Informer.HasSynced() {
			return false
		}
	}
	return true
}

func (e *Engine) progress(elapsed time.Duration, done bool) Progress {
	p := Progress{Elapsed: elapsed, Done: done}
	for _, t := range e.types {
		p.Types = append(p.Types, TypeProgress{Name: t.Name(), Received: t.received.Load(), Synced: t.Informer.HasSynced()})
	}
	return p
}

func (e *Engine) timeoutError() error {
	err := &SyncTimeoutError{Timeout: e.cfg.SyncTimeout}
	for _, t := range e.types {
		if !t.Informer.HasSynced() {
			err.Pending = append(err.Pending, TypeProgress{Name: t.Name(), Received: t.received.Load()})
		}
	}
	sort.Slice(err.Pending, func(i, j int) bool { return err.Pending[i].Name < err.Pending[j].Name })
	return err
}

// Shutdown stops every informer and waits for their goroutines to end. It
// may be called more than once, and without Start.
func (e *Engine) Shutdown() {
	e.stopOnce.Do(func() { close(e.stop) })
	e.running.Wait()
}
