package server

import (
	"slices"
	"testing"
	"time"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/protocol"
)

// TestPoolSharesTheEntryOfAllNamespaces checks which commands a synced
// entry of all namespaces without a label selector answers (through a
// view), and which get an entry of their own.
func TestPoolSharesTheEntryOfAllNamespaces(t *testing.T) {
	fp := newFakePool(t, 0)
	all := fp.acquire(t, engine.Config{})
	byNamespace, err := (*index.Set)(nil).Lookup("namespace")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		cfg       engine.Config
		wantNew   bool
		wantKeys  []string
		wantUsers int // of the entry of all namespaces, this lease included
	}{
		{"one namespace", engine.Config{Namespaces: []string{"a"}}, false, []string{"a/db", "a/web"}, 2},
		{"two namespaces", engine.Config{Namespaces: []string{"b", "a"}}, false, []string{"a/db", "a/web", "b/web"}, 2},
		{"a label selector", engine.Config{LabelSelector: "app=web"}, false, []string{"a/web", "b/web"}, 2},
		// client-go's own namespace index is every informer's already.
		{"a label selector and the namespace index", engine.Config{LabelSelector: "app=web", Indexes: []index.Definition{byNamespace}}, false, []string{"a/web", "b/web"}, 2},
		{"a namespace and a label selector", engine.Config{Namespaces: []string{"a"}, LabelSelector: "app=web"}, false, []string{"a/web"}, 2},
		{"a field selector", engine.Config{Namespaces: []string{"a"}, FieldSelector: "metadata.name=web"}, true, nil, 1},
		{"other managedFields", engine.Config{ManagedFields: engine.InternManagedFields}, true, nil, 1},
		{"a watch", engine.Config{Namespaces: []string{"a"}, RequireWatch: true}, true, nil, 1},
		{"a label selector the server refuses", engine.Config{LabelSelector: "app in (web"}, true, nil, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := fp.created()
			l := fp.acquire(t, tt.cfg)
			defer l.Shutdown()
			if got := fp.created() > before; got != tt.wantNew {
				t.Fatalf("Acquire(%+v) created an engine: %v, want %v", tt.cfg, got, tt.wantNew)
			}
			if !tt.wantNew && l.entries[0] != all.entries[0] {
				t.Errorf("Acquire(%+v) leased another entry than the one of all namespaces", tt.cfg)
			}
			if tt.wantKeys != nil {
				if got := leasedKeys(t, l); !slices.Equal(got, tt.wantKeys) {
					t.Errorf("the lease's type holds %v, want %v", got, tt.wantKeys)
				}
			}
			if got := wideStatus(fp.Status()).Users; got != tt.wantUsers {
				t.Errorf("the entry of all namespaces has %d users, want %d", got, tt.wantUsers)
			}
		})
	}
	all.Shutdown()
}

// TestPoolPrefersTheEntryOfAllNamespaces checks that once an entry of all
// namespaces exists, a command that had an entry of its own reads the wider
// one, and its own entry, without users, is evicted.
func TestPoolPrefersTheEntryOfAllNamespaces(t *testing.T) {
	fp := newFakePool(t, 50*time.Millisecond)
	narrow := fp.acquire(t, engine.Config{Namespaces: []string{"a"}})
	all := fp.acquire(t, engine.Config{})
	defer all.Shutdown()
	again := fp.acquire(t, engine.Config{Namespaces: []string{"a"}})
	defer again.Shutdown()
	if again.entries[0] != all.entries[0] {
		t.Errorf("-n a leased its own entry again while one of all namespaces exists")
	}
	narrow.Shutdown()
	waitUntil(t, "the entry of namespace a to be evicted", func() bool { return len(fp.Status()) == 1 })
	if st := fp.Status()[0]; len(st.Namespaces) != 0 || st.Users != 2 {
		t.Errorf("the entry left = %+v, want the one of all namespaces with 2 users", st)
	}
	if !fp.engines[0].shutdown.Load() {
		t.Error("the evicted entry's engine was not shut down")
	}
}

// wideStatus returns the status of the query entry of all namespaces
// without selectors.
func wideStatus(st []protocol.TypeStatus) protocol.TypeStatus {
	for _, s := range st {
		if len(s.Namespaces) == 0 && s.LabelSelector == "" && s.FieldSelector == "" && s.Purpose == "query" {
			return s
		}
	}
	return protocol.TypeStatus{}
}
