package cacheserver

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

	"github.com/kubectl-informer/kubectl-informer/pkg/cache"
	"github.com/kubectl-informer/kubectl-informer/pkg/cacheproto"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// Pool holds the warm engines of one identity: one engine per resource
// type, namespace set, selectors and managedFields mode, created on first
// use and kept until Shutdown. Commands lease the engines they need
// (Acquire) and share their informers; indexes a command needs are added to
// the running informers (client-go indexes the objects already cached).
// All methods are safe for concurrent use.
type Pool struct {
	clients *cache.Clients
	ctx     context.Context
	cancel  context.CancelFunc

	mu      sync.Mutex
	entries map[entryKey]*entry
}

// NewPool returns an empty pool whose engines list and watch with clients.
func NewPool(clients *cache.Clients) *Pool {
	ctx, cancel := context.WithCancel(context.Background())
	return &Pool{clients: clients, ctx: ctx, cancel: cancel, entries: map[entryKey]*entry{}}
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
	managedFields cache.ManagedFields
	forceDynamic  bool
	requireWatch  bool
}

// keyFor returns the entry key of mapping's type under cfg; the order of
// cfg.Namespaces does not matter.
func keyFor(mapping *meta.RESTMapping, cfg cache.Config) entryKey {
	return entryKey{
		resource:      mapping.Resource.String(),
		namespaces:    strings.Join(slices.Sorted(slices.Values(cfg.Namespaces)), ","),
		labelSelector: cfg.LabelSelector,
		fieldSelector: cfg.FieldSelector,
		managedFields: cfg.ManagedFields,
		forceDynamic:  cfg.ForceDynamic,
		requireWatch:  cfg.RequireWatch,
	}
}

// entry is one warm engine of one type.
type entry struct {
	key    entryKey
	engine *cache.Engine
	ready  chan struct{} // closed when Start has returned; err is then set
	err    error

	// Guarded by Pool.mu.
	users   int
	removed bool

	// mu guards what follows, and serialises adding indexes.
	mu sync.Mutex
	// indexes are the names of the indexes registered on the engine's
	// informers. The pool never reads the informers' own indexer map:
	// client-go returns it unlocked while AddIndexers writes it.
	indexes      map[string]struct{}
	failingSince time.Time
	lastErr      string
	// denied is set while the type's latest list or watch was refused
	// (401 or 403): the identity may no longer read what the cache holds.
	denied bool
	leases map[*Lease]struct{}
}

// Options are what one command asks of its lease besides the engine config.
type Options struct {
	// Queue, when set, gets the leased types' events, starting with every
	// cached object as an initial Added event (a watch).
	Queue *cache.Queue
}

// Acquire returns a lease on a synced engine per mapping, configured as
// cfg says (namespaces, selectors, managedFields mode, indexes; whole
// objects always), creating and starting the engines the pool does not hold
// yet. cfg.OnWatchError and cfg.OnWatchResumed are called for the leased
// types' watch outages while the lease is held, and OnWatchError once
// right away for a type whose watch is failing already. It returns the
// engine's error when a new engine fails to sync (as cache.Engine.Start
// does), or ctx's error.
func (p *Pool) Acquire(ctx context.Context, mappings []*meta.RESTMapping, cfg cache.Config, opts Options) (*Lease, error) {
	l := &Lease{pool: p, failed: make(chan struct{}), done: make(chan struct{}),
		onWatchError: cfg.OnWatchError, onWatchResumed: cfg.OnWatchResumed}
	for _, mapping := range mappings {
		e, err := p.entry(mapping, cfg)
		if err != nil {
			l.Shutdown()
			return nil, err
		}
		l.entries = append(l.entries, e)
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
	for _, e := range l.entries {
		t := e.engine.Types()[0]
		if err := e.addIndexes(t, cfg.Indexes); err != nil {
			l.Shutdown()
			return nil, err
		}
		l.types = append(l.types, t)
	}
	for _, e := range l.entries {
		e.mu.Lock()
		e.leases[l] = struct{}{}
		failing, lastErr := !e.failingSince.IsZero(), e.lastErr
		e.mu.Unlock()
		if failing && l.onWatchError != nil {
			l.onWatchError(e.engine.Types()[0], fmt.Errorf("%s", lastErr))
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
	return l, nil
}

// entry returns the pool's entry for mapping and cfg, creating and starting
// it if needed, with one more user.
func (p *Pool) entry(mapping *meta.RESTMapping, cfg cache.Config) (*entry, error) {
	key := keyFor(mapping, cfg)
	p.mu.Lock()
	defer p.mu.Unlock()
	if e, ok := p.entries[key]; ok {
		e.users++
		return e, nil
	}
	e := &entry{key: key, ready: make(chan struct{}), leases: map[*Lease]struct{}{}, users: 1,
		indexes: map[string]struct{}{}}
	for _, def := range cfg.Indexes {
		e.indexes[def.Name] = struct{}{}
	}
	ecfg := cache.Config{
		Namespaces:        cfg.Namespaces,
		LabelSelector:     cfg.LabelSelector,
		FieldSelector:     cfg.FieldSelector,
		Indexes:           cfg.Indexes,
		FullObjects:       true,
		ForceDynamic:      cfg.ForceDynamic,
		ManagedFields:     cfg.ManagedFields,
		PlainWatchStreams: cfg.ManagedFields == cache.InternManagedFields,
		SyncTimeout:       cfg.SyncTimeout,
		OnWatchError: func(t *cache.Type, err error) {
			if e.watchFailed(t, err) {
				// Access revoked: no new command reads this cache; a fresh
				// entry lists again, and fails as a direct command would.
				p.remove(e)
			}
		},
		OnWatchResumed: e.watchResumed,
		RequireWatch:   cfg.RequireWatch,
	}
	engine, err := cache.New(p.clients, []*meta.RESTMapping{mapping}, ecfg)
	if err != nil {
		return nil, err
	}
	e.engine = engine
	p.entries[key] = e
	go func() {
		e.err = engine.Start(p.ctx)
		close(e.ready)
		if e.err != nil {
			p.remove(e)
			return
		}
		select {
		case <-engine.Failed():
			p.remove(e)
		case <-p.ctx.Done():
		}
	}()
	return e, nil
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
	if e.users == 0 {
		go e.engine.Shutdown()
	}
}

// release drops one user of e.
func (p *Pool) release(e *entry) {
	p.mu.Lock()
	defer p.mu.Unlock()
	e.users--
	if e.removed && e.users == 0 {
		go e.engine.Shutdown()
	}
}

// addIndexes registers on t's running informers the indexes of defs they
// do not have yet.
func (e *entry) addIndexes(t *cache.Type, defs []index.Definition) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	var missing []index.Definition
	for _, def := range defs {
		if _, ok := e.indexes[def.Name]; !ok {
			missing = append(missing, def)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	if err := t.AddIndexes(missing...); err != nil {
		return fmt.Errorf("adding indexes to the cache: %w", err)
	}
	for _, def := range missing {
		e.indexes[def.Name] = struct{}{}
	}
	return nil
}

// watchFailed records a failed list or watch of t and tells the leases; it
// reports whether the API server refused it (401 or 403).
func (e *entry) watchFailed(t *cache.Type, err error) (denied bool) {
	denied = cache.IsForbidden(err)
	e.mu.Lock()
	if e.failingSince.IsZero() {
		e.failingSince = time.Now()
	}
	e.lastErr = err.Error()
	e.denied = denied
	leases := e.leaseList()
	e.mu.Unlock()
	for _, l := range leases {
		if l.onWatchError != nil {
			l.onWatchError(t, err)
		}
	}
	return denied
}

func (e *entry) watchResumed(t *cache.Type) {
	e.mu.Lock()
	e.failingSince = time.Time{}
	e.lastErr = ""
	e.denied = false
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

// Status describes every engine of the pool, sorted by type.
func (p *Pool) Status() []cacheproto.TypeStatus {
	p.mu.Lock()
	entries := make([]*entry, 0, len(p.entries))
	users := map[*entry]int{}
	for _, e := range p.entries {
		entries = append(entries, e)
		users[e] = e.users
	}
	p.mu.Unlock()
	out := make([]cacheproto.TypeStatus, 0, len(entries))
	for _, e := range entries {
		t := e.engine.Types()[0]
		st := cacheproto.TypeStatus{
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
		if e.key.managedFields == cache.InternManagedFields {
			st.Purpose = "watch"
		}
		if st.Synced {
			st.Objects = t.Len()
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

// Shutdown stops every engine.
func (p *Pool) Shutdown() {
	p.cancel()
	p.mu.Lock()
	entries := p.entries
	p.entries = map[entryKey]*entry{}
	p.mu.Unlock()
	for _, e := range entries {
		e.engine.Shutdown()
	}
}
