package server

import (
	"testing"
	"time"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
)

// TestPoolEvictsIdleEntries checks that an entry is shut down and removed
// EvictAfter after its last user left, not while it has users, and that a
// later command starts it again; with EvictAfter 0 it stays.
func TestPoolEvictsIdleEntries(t *testing.T) {
	const evictAfter = 100 * time.Millisecond
	fp := newFakePool(t, evictAfter)
	l := fp.acquire(t, engine.Config{Namespaces: []string{"a"}})
	time.Sleep(3 * evictAfter)
	if st := fp.Status(); len(st) != 1 || st[0].Users != 1 || st[0].IdleSince != nil {
		t.Fatalf("with a user, status = %+v, want the entry with 1 user, not idle", st)
	}
	l.Shutdown()
	st := fp.Status()
	if len(st) != 1 || st[0].Users != 0 || st[0].IdleSince == nil {
		t.Fatalf("after its user left, status = %+v, want the entry idle with 0 users", st)
	}
	left := time.Now()
	waitUntil(t, "the idle entry to be evicted", func() bool { return len(fp.Status()) == 0 })
	if waited := time.Since(left); waited < evictAfter/2 {
		t.Errorf("the entry was evicted %s after its last user left, want about %s", waited, evictAfter)
	}
	if !fp.engines[0].shutdown.Load() {
		t.Error("the evicted entry's engine was not shut down")
	}

	l = fp.acquire(t, engine.Config{Namespaces: []string{"a"}})
	if fp.created() != 2 {
		t.Fatalf("the pool created %d engines, want a second one after the eviction", fp.created())
	}
	l.Shutdown()

	// A user coming back well before the bound keeps it.
	slow := newFakePool(t, time.Second)
	slow.acquire(t, engine.Config{}).Shutdown()
	time.Sleep(100 * time.Millisecond)
	l = slow.acquire(t, engine.Config{})
	time.Sleep(1500 * time.Millisecond)
	if len(slow.Status()) != 1 || slow.engines[0].shutdown.Load() {
		t.Error("an entry that got a user again before EvictAfter was evicted")
	}
	l.Shutdown()

	never := newFakePool(t, 0)
	never.acquire(t, engine.Config{}).Shutdown()
	time.Sleep(3 * evictAfter)
	if len(never.Status()) != 1 {
		t.Error("with EvictAfter 0, an idle entry was evicted")
	}
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
