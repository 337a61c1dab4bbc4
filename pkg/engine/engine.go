// Package engine is kubectl-informer's informer engine: it starts one shared
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
package engine

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/protoskip"
)

// Type is one resolved resource type with its informers. Its exported
// fields are set by New and not changed after; its methods are safe for
// concurrent use.
type Type struct {
	// Mapping is the type's REST mapping: resource, kind, scope.
	Mapping *meta.RESTMapping
	// Kind is the informer kind chosen for the type.
	Kind InformerKind
	// Informers are the type's shared informers, one per namespace of
	// Config.Namespaces (one for all namespaces, and one for a
	// cluster-scoped type); their indexers hold disjoint parts of the cache.
	Informers []toolscache.SharedIndexInformer

	received atomic.Int64
	// listed counts the items of streamed lists as they arrive, before
	// the informer's transform sees them all at once (see Received).
	listed              atomic.Int64
	consecutiveConnErrs atomic.Int64
	failing             atomic.Bool
	// watched is set once a watch request of the type has succeeded.
	watched atomic.Bool
	// relations, on a Type withRelations derived, holds its relation indexes, one
	// index.RelationIndex per informer; nil on an engine's own type.
	relations []*index.RelationIndex
	// view, when set, restricts what the type's methods see of its
	// informers (see Restrict).
	view *view
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
	source Source
	cfg    Config
	types  []*Type

	// informers holds one informer per namespace and resource, shared by
	// types that name the same resource.
	informers map[informerKey]toolscache.SharedIndexInformer
	// listTransforms holds, per informer that reduces its objects (see
	// reducesLists), the transform its list pages, or the items of a
	// streamed list, go through as they arrive. Written by New only.
	listTransforms map[informerKey]listTransform
	running        sync.WaitGroup

	// requests is what the engine's list and watch requests carry on their
	// context to the clients' transports.
	requests requestOptions

	// server is the API server the engine's feeds name (Feed.Server), ""
	// when they read something else; answered is set once it has answered
	// one of the engine's requests.
	server   string
	answered atomic.Bool

	failOnce sync.Once
	failed   chan struct{}
	failErr  error
	stop     chan struct{}
	stopOnce sync.Once
}

// New creates the informers for mappings, fed by source, with cfg's indexes,
// transform and error handling, without starting them. It does not change
// source: several engines may share one, each seeing only its own requests.
func New(source Source, mappings []*meta.RESTMapping, cfg Config) (*Engine, error) {
	if cfg.SyncTimeout == 0 {
		cfg.SyncTimeout = 60 * time.Second
	}
	e := &Engine{
		source:         source,
		cfg:            cfg,
		informers:      map[informerKey]toolscache.SharedIndexInformer{},
		listTransforms: map[informerKey]listTransform{},
		failed:         make(chan struct{}),
		stop:           make(chan struct{}),
	}
	e.requests = requestOptions{observe: e.observeRequest, answered: func() { e.answered.Store(true) }, plainWatches: cfg.PlainWatchStreams, dropsManagedFields: cfg.ManagedFields == DropManagedFields,
		feed: FeedRequest{ManagedFields: cfg.ManagedFields, RequireWatch: cfg.RequireWatch, SyncTimeout: cfg.SyncTimeout}}
	if cfg.Reads != nil {
		plan, err := protoskip.NewPlan(cfg.Reads)
		if err != nil {
			return nil, fmt.Errorf("the fields the command reads: %w", err)
		}
		e.requests.reads = plan
	}
	indexers := toolscache.Indexers{}
	for _, def := range cfg.Indexes {
		indexers[def.Name] = def.Func
	}
	for _, mapping := range mappings {
		t := &Type{Mapping: mapping}
		namespaces := cfg.Namespaces
		if len(namespaces) == 0 || !t.Namespaced() {
			namespaces = []string{metav1.NamespaceAll}
		}
		for _, namespace := range namespaces {
			kind, informer, err := e.informerFor(mapping, namespace)
			if err != nil {
				return nil, fmt.Errorf("creating the informer of %s: %w", t.Name(), err)
			}
			if missing := missingIndexers(informer, indexers); len(missing) > 0 {
				if err := informer.AddIndexers(missing); err != nil {
					return nil, fmt.Errorf("adding indexes to %s: %w", t.Name(), err)
				}
			}
			if err := informer.SetTransform(e.transform(t)); err != nil {
				return nil, fmt.Errorf("setting transform on %s: %w", t.Name(), err)
			}
			if e.reducesLists(t) {
				e.listTransforms[informerKey{namespace: namespace, gvr: mapping.Resource}] = listTransform{transform: e.pipeline(t), t: t}
			}
			if err := informer.SetWatchErrorHandlerWithContext(e.watchErrorHandler(t)); err != nil {
				return nil, fmt.Errorf("setting watch error handler on %s: %w", t.Name(), err)
			}
			klog.V(2).InfoS("created informer", "type", t.Name(), "kind", kind, "namespace", namespace)
			t.Kind = kind
			t.Informers = append(t.Informers, informer)
		}
		e.types = append(e.types, t)
	}
	return e, nil
}

// HasSynced reports whether every informer of t has synced.
func (t *Type) HasSynced() bool {
	for _, informer := range t.Informers {
		if !informer.HasSynced() {
			return false
		}
	}
	return true
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
		if !t.HasSynced() {
			if err != nil && !e.answered.Load() && isConnectionError(err) {
				// The server has answered nothing yet and cannot be
				// reached: a reflector would retry its list (a streamed
				// one without telling the watch error handler) where
				// discovery would have failed at once.
				e.fail(fmt.Errorf("listing %s: %w", t.Name(), err))
			}
			continue
		}
		switch {
		case err != nil:
			e.watchFailed(t, err)
		case !watch:
			// A relist by LIST: the informer is live again once it is
			// read. A watch request resumes only once its stream shows
			// it can (Engine.resumeWatch).
			e.resumed(t)
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
		if !t.HasSynced() {
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
	stopWaiting := make(chan struct{})
	defer close(stopWaiting)
	syncedNow := e.syncedSignal(stopWaiting)
	lastProgress := time.Time{}
	for {
		synced := e.synced()
		if e.cfg.Progress != nil && e.heard() && (synced || time.Since(lastProgress) >= 200*time.Millisecond) {
			lastProgress = time.Now()
			e.cfg.Progress(e.progress(time.Since(start), synced))
		}
		if synced {
			klog.V(1).InfoS("caches synced", "elapsed", time.Since(start))
			return nil
		}
		select {
		case <-poll.C:
		case <-syncedNow:
			syncedNow = nil
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

// syncedSignal returns a channel closed as soon as every informer of the
// engine has synced, so that a wait for sync returns when the last list is
// in the cache rather than at its next poll; it gives up when stop closes.
func (e *Engine) syncedSignal(stop <-chan struct{}) <-chan struct{} {
	all := make(chan struct{})
	go func() {
		for _, informer := range e.informers {
			select {
			case <-informer.HasSyncedChecker().Done():
			case <-stop:
				return
			}
		}
		close(all)
	}()
	return all
}

// heard reports whether the engine's API server, if it reads one, has
// answered: until then there is no progress to report, and a command shows
// it is still resolving its types, as it would while reading discovery.
func (e *Engine) heard() bool {
	return e.server == "" || e.answered.Load()
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
		if !t.HasSynced() {
			return false
		}
	}
	return true
}

func (e *Engine) progress(elapsed time.Duration, done bool) Progress {
	p := Progress{Elapsed: elapsed, Done: done}
	for _, t := range e.types {
		p.Types = append(p.Types, TypeProgress{Name: t.Name(), Received: t.receivedSoFar(), Synced: t.HasSynced()})
	}
	return p
}

func (e *Engine) timeoutError() error {
	err := &SyncTimeoutError{Timeout: e.cfg.SyncTimeout}
	if !e.heard() {
		err.Silent = e.server
	}
	for _, t := range e.types {
		if !t.HasSynced() {
			err.Pending = append(err.Pending, TypeProgress{Name: t.Name(), Received: t.receivedSoFar()})
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
