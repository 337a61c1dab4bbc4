package server

import (
	"time"

	"k8s.io/klog/v2"
)

// This file holds the eviction of entries without users: the last user
// leaving starts a timer of the pool's EvictAfter; a user coming back stops
// it; when it fires, the entry is removed from the pool and its engine shut
// down, so a later command lists the type again.

// hold adds a user to e, which stops its eviction; p.mu must be held.
func (p *Pool) hold(e *entry) {
	e.users++
	e.idleSince = time.Time{}
	if e.evict != nil {
		e.evict.Stop()
		e.evict = nil
	}
}

// release drops one user of e; the last one leaving starts the eviction
// clock.
func (p *Pool) release(e *entry) {
	p.mu.Lock()
	defer p.mu.Unlock()
	e.users--
	if e.users > 0 {
		return
	}
	if e.removed {
		go e.shutdown()
		return
	}
	e.idleSince = time.Now()
	if p.evictAfter > 0 && !p.closed {
		e.evict = time.AfterFunc(p.evictAfter, func() { p.evictIdle(e) })
	}
}

// evictIdle shuts e down and removes it if it still has no users.
func (p *Pool) evictIdle(e *entry) {
	p.mu.Lock()
	if e.removed || p.closed || e.users > 0 || e.idleSince.IsZero() || time.Since(e.idleSince) < p.evictAfter {
		p.mu.Unlock()
		return
	}
	if p.entries[e.key] == e {
		delete(p.entries, e.key)
	}
	e.removed, e.evict = true, nil
	idle := time.Since(e.idleSince).Round(time.Millisecond)
	p.mu.Unlock()
	klog.V(1).InfoS("evicting an idle informer", "resource", e.key.resource, "namespaces", e.key.namespaces,
		"labelSelector", e.key.labelSelector, "idle", idle)
	e.shutdown()
	p.changed()
}

// shutdown stops e's engine, once.
func (e *entry) shutdown() {
	e.stopOnce.Do(func() {
		if e.stop != nil {
			e.stop()
		}
		if e.kept != nil {
			e.kept.Drop(e.eng.Types()[0].Informers)
		}
		e.eng.Shutdown()
	})
}
