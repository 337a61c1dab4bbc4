package server

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// customIndexes returns the Definitions of --indexer flags, as a command
// compiles them.
func customIndexes(t *testing.T, flags ...string) []index.Definition {
	t.Helper()
	var customs []index.Custom
	for _, f := range flags {
		c, err := index.ParseCustom(f)
		if err != nil {
			t.Fatalf("ParseCustom(%q) = %v", f, err)
		}
		customs = append(customs, c)
	}
	set, err := index.NewSet(customs...)
	if err != nil {
		t.Fatal(err)
	}
	return set.Custom()
}

// TestPoolSharesCustomIndexesByDefinition leases the pool's one entry of
// pods (a/web app=web, a/db app=db, b/web app=web) from commands that
// define --indexer indexes, one after the other, each held while the next
// acquires: every command reads its index under its own name with its own
// definition's values, and the entry holds one index per distinct
// definition.
func TestPoolSharesCustomIndexesByDefinition(t *testing.T) {
	type command struct {
		indexer string // one --indexer flag
		counts  map[string]int
	}
	tests := []struct {
		name        string
		commands    []command
		wantIndexes []string // the entry's, as cache status lists them (a pods entry's have node)
	}{
		{
			name: "one name, two definitions",
			commands: []command{
				{"team={.metadata.labels.app}", map[string]int{"web": 2, "db": 1}},
				{"team={.metadata.namespace}", map[string]int{"a": 2, "b": 1}},
				{"team=.metadata.labels.app", map[string]int{"web": 2, "db": 1}},
			},
			wantIndexes: []string{"custom:jsonpath:{.metadata.labels.app}", "custom:jsonpath:{.metadata.namespace}", "node"},
		},
		{
			name: "one definition, two names",
			commands: []command{
				{"app={.metadata.labels.app}", map[string]int{"web": 2, "db": 1}},
				{"app-of=metadata.labels.app", map[string]int{"web": 2, "db": 1}},
			},
			wantIndexes: []string{"custom:jsonpath:{.metadata.labels.app}", "node"},
		},
		{
			name: "CEL: one name, two definitions",
			commands: []command{
				{"k=object.metadata.name + '@' + object.metadata.namespace", map[string]int{"web@a": 1, "db@a": 1, "web@b": 1}},
				{"k=object.metadata.labels.app", map[string]int{"web": 2, "db": 1}},
			},
			wantIndexes: []string{"custom:cel:object.metadata.labels.app", "custom:cel:object.metadata.name + '@' + object.metadata.namespace", "node"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fp := newFakePool(t, 0)
			var leases []*Lease
			for i, c := range tt.commands {
				defs := customIndexes(t, c.indexer)
				l := fp.acquire(t, engine.Config{Indexes: defs})
				leases = append(leases, l)
				got, err := l.Types()[0].Count(defs[0].Name)
				if err != nil {
					t.Fatalf("command %d (--indexer %s): Count(%s) = %v", i, c.indexer, defs[0].Name, err)
				}
				if !maps.Equal(got, c.counts) {
					t.Errorf("command %d (--indexer %s): Count(%s) = %v, want %v", i, c.indexer, defs[0].Name, got, c.counts)
				}
			}
			// Every command still reads its own values once all are held.
			for i, c := range tt.commands {
				name, _, _ := strings.Cut(c.indexer, "=")
				if got, _ := leases[i].Types()[0].Count(name); !maps.Equal(got, c.counts) {
					t.Errorf("command %d (--indexer %s) after the others: Count(%s) = %v, want %v", i, c.indexer, name, got, c.counts)
				}
			}
			if got := fp.created(); got != 1 {
				t.Errorf("the pool created %d engines, want 1", got)
			}
			if got := fp.Status()[0].Indexes; !slices.Equal(got, tt.wantIndexes) {
				t.Errorf("status indexes = %q, want %q", got, tt.wantIndexes)
			}
			for _, l := range leases {
				l.Shutdown()
			}
		})
	}
}

// TestPoolCustomIndexLookupInAView checks that a command reading the entry
// of all namespaces through a view (-n a) looks its custom index up under
// its own name and sees only its namespace.
func TestPoolCustomIndexLookupInAView(t *testing.T) {
	fp := newFakePool(t, 0)
	all := fp.acquire(t, engine.Config{Indexes: customIndexes(t, "img={.metadata.namespace}")})
	defer all.Shutdown()
	defs := customIndexes(t, "img={.metadata.labels.app}")
	l := fp.acquire(t, engine.Config{Namespaces: []string{"a"}, Indexes: defs})
	defer l.Shutdown()
	objs, err := l.Types()[0].Lookup([]index.Selector{{Name: "img", Operator: index.Equals, Values: []string{"web"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 1 {
		t.Errorf("Lookup(img=web) in -n a = %d objects, want 1 (a/web)", len(objs))
	}
}

// TestPoolCustomIndexFailures checks that what a command reports of its
// computed index's evaluations is its own: each command's guard counts the
// objects the expression fails on, as its own informer's index would, and
// an index that reads now is not shared.
func TestPoolCustomIndexFailures(t *testing.T) {
	fp := newFakePool(t, 0)
	for i := range 2 {
		defs := customIndexes(t, "tier=object.metadata.labels.tier")
		l := fp.acquire(t, engine.Config{Indexes: defs})
		if got := defs[0].Expr.Count(); got != 3 {
			t.Errorf("command %d: its guard counted %d failures, want 3 (no pod has label tier)", i, got)
		}
		if err := defs[0].Expr.Err(); err == nil || !strings.Contains(err.Error(), "first, on a/db") {
			t.Errorf("command %d: its guard's error = %v, want the first failure on a/db", i, err)
		}
		l.Shutdown()
	}
	defs := customIndexes(t, "age=now - object.metadata.creationTimestamp")
	_, err := fp.Acquire(t.Context(), []*meta.RESTMapping{podsMapping}, engine.Config{Indexes: defs}, Options{})
	var notShared *NotSharedError
	if !errors.As(err, &notShared) {
		t.Errorf("Acquire(--indexer age reading now) = %v, want a NotSharedError", err)
	}
}
