package server

import (
	"reflect"
	"testing"
	"time"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
)

// planKeys returns, per recorded type, the namespaces/selector/mode of
// each source entry.
func planKeys(plan []recType) map[string][]entryKey {
	out := map[string][]entryKey{}
	for _, rt := range plan {
		for _, src := range rt.sources {
			out[rt.mapping.Resource.Resource] = append(out[rt.mapping.Resource.Resource], src.id.(*entry).key)
		}
	}
	return out
}

// TestRecordPlan: narrower entries are each recorded until an entry of
// all namespaces without selectors comes, which is then recorded alone;
// of several such, the one keeping the most managedFields. Each change of
// the entries is signalled.
func TestRecordPlan(t *testing.T) {
	fp := newFakePool(t, 0)
	changed := func() bool {
		select {
		case <-fp.changes:
			return true
		default:
			return false
		}
	}
	key := func(ns, sel string, mf engine.ManagedFields) entryKey {
		return entryKey{resource: podsMapping.Resource.String(), namespaces: ns, labelSelector: sel, managedFields: mf}
	}
	if plan := fp.recordPlan(); len(plan) != 0 {
		t.Fatalf("empty pool: plan %v", planKeys(plan))
	}
	t.Cleanup(fp.acquire(t, engine.Config{Namespaces: []string{"a"}}).Shutdown)
	t.Cleanup(fp.acquire(t, engine.Config{Namespaces: []string{"b"}, LabelSelector: "app=web"}).Shutdown)
	waitChanged(t, changed)
	want := map[string][]entryKey{"pods": {key("a", "", 0), key("b", "app=web", 0)}}
	if got := planKeys(fp.recordPlan()); !reflect.DeepEqual(got, want) {
		t.Errorf("narrow entries: plan %v, want %v", got, want)
	}
	t.Cleanup(fp.acquire(t, engine.Config{}).Shutdown)
	t.Cleanup(fp.acquire(t, engine.Config{ManagedFields: engine.InternManagedFields}).Shutdown)
	waitChanged(t, changed)
	want = map[string][]entryKey{"pods": {key("", "", engine.InternManagedFields)}}
	if got := planKeys(fp.recordPlan()); !reflect.DeepEqual(got, want) {
		t.Errorf("with wide entries: plan %v, want %v", got, want)
	}
}

func waitChanged(t *testing.T, changed func() bool) {
	t.Helper()
	for range 200 {
		if changed() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("no change signalled")
}
