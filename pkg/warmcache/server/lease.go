package server

import (
	"sync"
	"time"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
)

// Lease is one command's hold on the pool's engines of its types. It has
// what the command reads of an engine — Types, Failed, Err — and Shutdown
// ends the hold, not the engines: they stay warm for the next command, and
// the pool evicts those that stay without users.
type Lease struct {
	pool     *Pool
	entries  []*entry
	types    []*engine.Type
	removers []func()

	// forKept is set on the lease of a kept set of relation indexes
	// (Options.forKept), once acquired.
	forKept bool

	onWatchError   func(*engine.Type, error)
	onWatchResumed func(*engine.Type)

	failOnce sync.Once
	failed   chan struct{}
	failErr  error
	done     chan struct{}
	doneOnce sync.Once
}

// Types returns the leased types, in the order of Acquire's mappings: an
// engine's own type, or a view of a wider one (see engine.Type.Restrict).
func (l *Lease) Types() []*engine.Type { return l.types }

// Failed is closed when an engine of the lease has failed for good (a watch
// the identity may not make); Err then says why.
func (l *Lease) Failed() <-chan struct{} { return l.failed }

// Err returns why an engine of the lease failed, or nil.
func (l *Lease) Err() error {
	select {
	case <-l.failed:
		return l.failErr
	default:
		return nil
	}
}

func (l *Lease) watchFailure(e *entry) {
	select {
	case <-e.eng.Failed():
		l.failOnce.Do(func() {
			l.failErr = e.eng.Err()
			close(l.failed)
		})
	case <-l.done:
	}
}

// Stale returns the type of the lease whose watch has been failing the
// longest, since when, and the last error; ok is false when every watch is
// healthy.
func (l *Lease) Stale() (t *engine.Type, since time.Time, lastErr string, ok bool) {
	for i, e := range l.entries {
		e.mu.Lock()
		s, msg := e.failingSince, e.lastErr
		e.mu.Unlock()
		if !s.IsZero() && (!ok || s.Before(since)) {
			t, since, lastErr, ok = l.typeOf(i), s, msg, true
		}
	}
	return t, since, lastErr, ok
}

// Denied returns a type of the lease whose latest list or watch the API
// server refused (401 or 403), and that error; ok is false when there is
// none. Such a cache must not answer: the identity may have lost access.
func (l *Lease) Denied() (t *engine.Type, lastErr string, ok bool) {
	i, lastErr, ok := l.denied()
	if !ok {
		return nil, "", false
	}
	return l.typeOf(i), lastErr, true
}

// denied returns the index of the first entry of the lease that is denied.
func (l *Lease) denied() (int, string, bool) {
	for i, e := range l.entries {
		e.mu.Lock()
		denied, msg := e.denied, e.lastErr
		e.mu.Unlock()
		if denied {
			return i, msg, true
		}
	}
	return 0, "", false
}

// typeOf returns the lease's type of entry i: the entry's own, or the view
// the lease reads it through.
func (l *Lease) typeOf(i int) *engine.Type {
	if i < len(l.types) {
		return l.types[i]
	}
	return l.entries[i].eng.Types()[0]
}

// Shutdown removes the lease's event handlers and ends its hold on the
// engines. It may be called more than once.
func (l *Lease) Shutdown() {
	l.doneOnce.Do(func() {
		close(l.done)
		for _, remove := range l.removers {
			remove()
		}
		for _, e := range l.entries {
			e.mu.Lock()
			delete(e.leases, l)
			e.mu.Unlock()
			if l.forKept {
				l.pool.mu.Lock()
				e.keptUsers--
				l.pool.mu.Unlock()
			}
			l.pool.release(e)
		}
	})
}
