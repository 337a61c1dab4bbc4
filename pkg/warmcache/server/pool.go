package server

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/protocol"
)

// Pool holds the warm engines of one identity: one engine per resource
// type, namespace set, selectors and managedFields mode, created on first
// use. Commands lease the engines they need (Acquire) and share their
// informers; indexes a command needs are added to the running informers
// (client-go indexes the objects already cached), an --indexer index once
// per definition, under a name of its definition, which each command reads
// under its own name (see entry.resolveIndexes).
//
// A command that asks for some namespaces or a label selector is answered
// from a synced engine of all namespaces without a label selector, when the
// pool holds one of the same type, field selector and managedFields mode,
// through a view restricted to what the command asked (engine.Type.Restrict);
// only without one does it get an engine of its own. An engine without
// users for EvictAfter is shut down and removed; a later command starts it
// again. All methods are safe for concurrent use.
type Pool struct {
	source     engine.Source
	evictAfter time.Duration
	// newEngine creates the engine of one type; tests replace it.
	newEngine func(mapping *meta.RESTMapping, cfg engine.Config) (poolEngine, error)
	ctx       context.Context
	cancel    context.CancelFunc

	// changes gets a token whenever an entry syncs or leaves the pool
	// (what a Recorder records).
	changes chan struct{}

	mu      sync.Mutex
	entries map[entryKey]*entry
	closed  bool

	// kept are the relation indexes of the one-shot commands, kept and
	// followed between them (PoolTypes.KeptRelations); a set leaves with
	// an engine it indexes, or after EvictAfter without a command.
	kept *engine.KeptRelations

	// encoded are the objects the streams sent last, encoded once for
	// every stream that sends them.
	encoded encodedObjects
}

// poolEngine is what the pool uses of a *engine.Engine.
type poolEngine interface {
	Types() []*engine.Type
	Start(ctx context.Context) error
	Failed() <-chan struct{}
	Err() error
	Shutdown()
}

// PoolOptions configure a Pool.
type PoolOptions struct {
	// EvictAfter is how long an engine may go without users before the
	// pool shuts it down; 0 keeps every engine until Shutdown.
	EvictAfter time.Duration
}

// NewPool returns an empty pool whose engines are fed by source.
func NewPool(source engine.Source, opts PoolOptions) *Pool {
	ctx, cancel := context.WithCancel(context.Background())
	p := &Pool{source: source, evictAfter: opts.EvictAfter, ctx: ctx, cancel: cancel, entries: map[entryKey]*entry{},
		changes: make(chan struct{}, 1), kept: engine.NewKeptRelations(opts.EvictAfter)}
	p.newEngine = func(mapping *meta.RESTMapping, cfg engine.Config) (poolEngine, error) {
		return engine.New(p.source, []*meta.RESTMapping{mapping}, cfg)
	}
	return p
}

// entryKey is what makes two commands' informers of one type differ: what
// the server sends (namespaces, selectors) and what the cache keeps of each
// object (managedFields). Everything else — indexes, transforms, whether
// whole objects are needed — is served by one informer of whole objects.
type entryKey struct {
	resource      string
	namespaces    string
	labelSelector string
	fieldSelector string
	managedFields engine.ManagedFields
	requireWatch  bool
}

// keyFor returns the entry key of mapping's type under cfg; the order of
// cfg.Namespaces does not matter, and a cluster-scoped type has none.
func keyFor(mapping *meta.RESTMapping, cfg engine.Config) entryKey {
	namespaces := cfg.Namespaces
	if mapping.Scope != nil && mapping.Scope.Name() == meta.RESTScopeNameRoot {
		namespaces = nil
	}
	return entryKey{
		resource:      mapping.Resource.String(),
		namespaces:    strings.Join(slices.Compact(slices.Sorted(slices.Values(namespaces))), ","),
		labelSelector: cfg.LabelSelector,
		fieldSelector: cfg.FieldSelector,
		managedFields: cfg.ManagedFields,
		requireWatch:  cfg.RequireWatch,
	}
}

// entry is one warm engine of one type.
type entry struct {
	key   entryKey
	eng   poolEngine
	ready chan struct{} // closed when Start has returned; err is then set
	err   error

	// Guarded by Pool.mu.
	users   int
	removed bool
	// keptUsers are the users among users that are kept relation
	// indexes (see PoolTypes.KeptRelations), not commands.
	keptUsers int
	// idleSince is when users last fell to 0 (zero while it has users);
	// evict fires EvictAfter later.
	idleSince time.Time
	evict     *time.Timer

	// kept are the pool's kept relation indexes, those over the engine
	// dropped when it shuts down.
	kept *engine.KeptRelations

	// stop ends the engine's start and its watch for failure; stopOnce
	// shuts the engine down once.
	stop     context.CancelFunc
	stopOnce sync.Once

	// mu guards what follows, and serialises adding indexes.
	mu sync.Mutex
	// indexes are the names of the indexes registered on the engine's
	// informers. The pool never reads the informers' own indexer map:
	// client-go returns it unlocked while AddIndexers writes it.
	indexes map[string]struct{}
	// shared are the custom indexes among indexes, by SharedName (see
	// entry.resolveIndexes).
	shared       map[string]*index.Shared
	failingSince time.Time
	lastErr      string
	// denied is set while the type's latest list or watch was refused
	// (401 or 403): the identity may no longer read what the cache holds.
	denied bool
	// refusals counts the refusals in a row since the watch last ran.
	refusals int
	leases   map[*Lease]struct{}
}

// Options are what one command asks of its lease besides the engine config.
type Options struct {
	// Queue, when set, gets the leased types' events, starting with every
	// cached object as an initial Added event (a watch).
	Queue *engine.Queue
	// forKept marks the lease of a kept set of relation indexes, which
	// Status does not count among the users.
	forKept bool
}

// Acquire returns a lease on a synced engine per mapping, configured as
// cfg says (namespaces, selectors, managedFields mode, indexes; whole
// objects always), creating and starting the engines the pool does not hold
// yet (the garbage of a new engine's list collected before it is leased);
// a type the pool holds for all namespaces without a label selector is
// leased as a view of that engine (see Pool). cfg.OnWatchError and
// cfg.OnWatchResumed are called for the leased types' watch outages while
// the lease is held, and OnWatchError once right away for a type whose
// watch is failing already. It returns the engine's error when a new engine
// fails to sync (as engine.Engine.Start does), or ctx's error.
func (p *Pool) Acquire(ctx context.Context, mappings []*meta.RESTMapping, cfg engine.Config, opts Options) (*Lease, error) {
	if err := checkShareable(cfg.Indexes); err != nil {
		return nil, err
	}
	l := &Lease{pool: p, failed: make(chan struct{}), done: make(chan struct{}),
		onWatchError: cfg.OnWatchError, onWatchResumed: cfg.OnWatchResumed}
	var views []*restriction
	for _, mapping := range mappings {
		e, view, err := p.entry(mapping, cfg)
		if err != nil {
			l.Shutdown()
			return nil, err
		}
		l.entries = append(l.entries, e)
		views = append(views, view)
	}
	for _, e := range l.entries {
		select {
		case <-e.ready:
		case <-ctx.Done():
			l.Shutdown()
			return nil, ctx.Err()
		}
		if e.err != nil {
			l.Shutdown()
			return nil, e.err
		}
	}
	for i, e := range l.entries {
		t := e.eng.Types()[0]
		shared, err := e.addIndexes(t, cfg.Indexes)
		if err != nil {
			l.Shutdown()
			return nil, err
		}
		if len(shared) > 0 {
			t = renamed(t, shared)
		}
		if views[i] != nil {
			t = t.Restrict(views[i].namespaces, views[i].selector)
		}
		if err := replayFailures(t, cfg.Indexes, shared); err != nil {
			l.Shutdown()
			return nil, err
		}
		l.types = append(l.types, t)
	}
	for i, e := range l.entries {
		e.mu.Lock()
		e.leases[l] = struct{}{}
		failing, lastErr := !e.failingSince.IsZero(), e.lastErr
		e.mu.Unlock()
		if failing && l.onWatchError != nil {
			l.onWatchError(l.types[i], fmt.Errorf("%s", lastErr))
		}
		go l.watchFailure(e)
	}
	if opts.Queue != nil {
		for _, t := range l.types {
			remove, err := t.SendEvents(opts.Queue)
			if err != nil {
				l.Shutdown()
				return nil, err
			}
			l.removers = append(l.removers, remove)
		}
	}
	if opts.forKept {
		p.mu.Lock()
		for _, e := range l.entries {
			e.keptUsers++
		}
		l.forKept = true
		p.mu.Unlock()
	}
	return l, nil
}

// entry returns the entry that answers mapping under cfg, with one more
// user: a wider entry and the restriction to read it through, or the
// entry of cfg's own key (restriction nil), created and started if needed.
func (p *Pool) entry(mapping *meta.RESTMapping, cfg engine.Config) (*entry, *restriction, error) {
	key := keyFor(mapping, cfg)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, nil, fmt.Errorf("the warm cache is shutting down")
	}
	if e, view := p.wider(key, cfg); e != nil {
		p.hold(e)
		return e, view, nil
	}
	if e, ok := p.entries[key]; ok {
		p.hold(e)
		return e, nil, nil
	}
	// Every informer has client-go's namespace index, which indexes the
	// same value as ours: adding it again would conflict.
	e := &entry{key: key, ready: make(chan struct{}), leases: map[*Lease]struct{}{}, users: 1, kept: p.kept,
		indexes: map[string]struct{}{toolscache.NamespaceIndex: {}}, shared: map[string]*index.Shared{}}
	// Registered before the informers start: custom indexes under their
	// SharedName, as addIndexes registers them later.
	indexes, added, _, err := e.resolveIndexes(withNodeIndex(mapping, cfg.Indexes))
	if err != nil {
		return nil, nil, err
	}
	e.registered(indexes, added)
	ecfg := engine.Config{
		Namespaces:        cfg.Namespaces,
		LabelSelector:     cfg.LabelSelector,
		FieldSelector:     cfg.FieldSelector,
		Indexes:           indexes,
		FullObjects:       true,
		ManagedFields:     cfg.ManagedFields,
		ShareValues:       true,
		PlainWatchStreams: cfg.ManagedFields == engine.InternManagedFields,
		SyncTimeout:       cfg.SyncTimeout,
		OnWatchError: func(t *engine.Type, err error) {
			if e.watchFailed(t, err) {
				// Access revoked: no new command reads this cache; a fresh
				// entry lists again, and fails as a direct command would.
				p.remove(e)
			}
		},
		OnWatchResumed: e.watchResumed,
		RequireWatch:   cfg.RequireWatch,
	}
	eng, err := p.newEngine(mapping, ecfg)
	if err != nil {
		return nil, nil, err
	}
	e.eng = eng
	p.entries[key] = e
	ctx, stop := context.WithCancel(p.ctx)
	e.stop = stop
	go func() {
		e.err = eng.Start(ctx)
		if e.err == nil {
			settle()
		}
		close(e.ready)
		if e.err != nil {
			p.remove(e)
			return
		}
		p.changed()
		select {
		case <-eng.Failed():
			p.remove(e)
		case <-ctx.Done():
		}
	}()
	return e, nil, nil
}

// remove takes a failed entry out of the pool; its engine is shut down when
// its last user leaves. Removing an entry twice does nothing more.
func (p *Pool) remove(e *entry) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e.removed {
		return
	}
	if p.entries[e.key] == e {
		delete(p.entries, e.key)
	}
	e.removed = true
	if e.evict != nil {
		e.evict.Stop()
		e.evict = nil
	}
	if e.users == 0 {
		go e.shutdown()
	}
	p.changed()
}

// changed tells a Recorder, if any, that the entries changed; it never
// blocks.
func (p *Pool) changed() {
	select {
	case p.changes <- struct{}{}:
	default:
	}
}

// addIndexes registers on t's running informers the indexes of defs they
// do not have yet, custom ones under their SharedName, and returns the
// shared index of each custom def by the command's name for it.
func (e *entry) addIndexes(t *engine.Type, defs []index.Definition) (map[string]*index.Shared, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	missing, added, shared, err := e.resolveIndexes(defs)
	if err != nil {
		return nil, err
	}
	if len(missing) == 0 {
		return shared, nil
	}
	// EnsureIndexes: the relations of other commands may have added the
	// indexes they find objects by (node, owner-uid) without the pool.
	if err := t.EnsureIndexes(missing...); err != nil {
		return nil, fmt.Errorf("adding indexes to the cache: %w", err)
	}
	e.registered(missing, added)
	return shared, nil
}

// refusalsToEvict is how many refusals (401 or 403) in a row make the pool
// drop an entry. One is not enough: a kube-apiserver that has just started
// serves before its RBAC caches are loaded and refuses allowed requests for
// a fraction of a second, so the reflector's next try (0.8 s or more later)
// must be refused too. Until then the entry is denied: commands decline it.
const refusalsToEvict = 2

// watchFailed records a failed list or watch of t and tells the leases; it
// reports whether the entry is to be evicted: the API server refused
// (401 or 403) refusalsToEvict lists or watches in a row.
func (e *entry) watchFailed(t *engine.Type, err error) (evict bool) {
	denied := engine.IsForbidden(err)
	e.mu.Lock()
	if e.failingSince.IsZero() {
		e.failingSince = time.Now()
	}
	e.lastErr = err.Error()
	e.denied = denied
	if denied {
		e.refusals++
	} else {
		e.refusals = 0
	}
	evict = e.refusals >= refusalsToEvict
	leases := e.leaseList()
	e.mu.Unlock()
	for _, l := range leases {
		if l.onWatchError != nil {
			l.onWatchError(t, err)
		}
	}
	return evict
}

func (e *entry) watchResumed(t *engine.Type) {
	e.mu.Lock()
	e.failingSince = time.Time{}
	e.lastErr = ""
	e.denied = false
	e.refusals = 0
	leases := e.leaseList()
	e.mu.Unlock()
	for _, l := range leases {
		if l.onWatchResumed != nil {
			l.onWatchResumed(t)
		}
	}
}

// leaseList returns e's leases; e.mu must be held.
func (e *entry) leaseList() []*Lease {
	leases := make([]*Lease, 0, len(e.leases))
	for l := range e.leases {
		leases = append(leases, l)
	}
	return leases
}

// Status describes every engine of the pool, sorted by type: an engine
// that answers narrower commands through views is listed once, with every
// command that holds it among its users.
func (p *Pool) Status() []protocol.TypeStatus {
	p.mu.Lock()
	entries := make([]*entry, 0, len(p.entries))
	users := map[*entry]int{}
	idleSince := map[*entry]time.Time{}
	for _, e := range p.entries {
		entries = append(entries, e)
		users[e] = e.users - e.keptUsers
		idleSince[e] = e.idleSince
	}
	p.mu.Unlock()
	out := make([]protocol.TypeStatus, 0, len(entries))
	for _, e := range entries {
		t := e.eng.Types()[0]
		st := protocol.TypeStatus{
			Type:          t.Name(),
			LabelSelector: e.key.labelSelector,
			FieldSelector: e.key.fieldSelector,
			Purpose:       "query",
			Users:         users[e],
			Synced:        t.HasSynced(),
		}
		if e.key.namespaces != "" {
			st.Namespaces = strings.Split(e.key.namespaces, ",")
		}
		if e.key.managedFields == engine.InternManagedFields {
			st.Purpose = "watch"
		}
		if st.Synced {
			st.Objects = t.Len()
		}
		if since := idleSince[e]; !since.IsZero() {
			st.IdleSince = &since
		}
		e.mu.Lock()
		for name := range e.indexes {
			if name != toolscache.NamespaceIndex {
				st.Indexes = append(st.Indexes, name)
			}
		}
		sort.Strings(st.Indexes)
		if !e.failingSince.IsZero() {
			since := e.failingSince
			st.FailingSince = &since
			st.LastError = e.lastErr
		}
		e.mu.Unlock()
		out = append(out, st)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Type < out[j].Type })
	return out
}

// Shutdown stops every engine and the kept relation indexes; Acquire
// fails after it.
func (p *Pool) Shutdown() {
	p.kept.Shutdown()
	p.cancel()
	p.mu.Lock()
	p.closed = true
	entries := p.entries
	p.entries = map[entryKey]*entry{}
	for _, e := range entries {
		if e.evict != nil {
			e.evict.Stop()
			e.evict = nil
		}
	}
	p.mu.Unlock()
	for _, e := range entries {
		e.shutdown()
	}
}
