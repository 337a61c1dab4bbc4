package server

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// TestAddIndexesConcurrently adds different indexes to one entry from many
// goroutines, as concurrent commands acquiring one warm type do, while others
// query the indexes and read the entry's index list. Under -race it fails if
// anything reads client-go's indexers map unlocked.
func TestAddIndexesConcurrently(t *testing.T) {
	informer := toolscache.NewSharedIndexInformer(&toolscache.ListWatch{}, &corev1.Pod{}, 0,
		toolscache.Indexers{toolscache.NamespaceIndex: toolscache.MetaNamespaceIndexFunc})
	if err := informer.GetIndexer().Add(&corev1.Pod{}); err != nil {
		t.Fatal(err)
	}
	typ := &engine.Type{Informers: []toolscache.SharedIndexInformer{informer}}
	e := &entry{indexes: map[string]struct{}{toolscache.NamespaceIndex: {}}}
	set := (*index.Set)(nil)
	const workers = 8
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 10 {
				name := fmt.Sprintf("label:k%d", (w+i)%12)
				def, err := set.Lookup(name)
				if err != nil {
					t.Error(err)
					return
				}
				if _, err := e.addIndexes(typ, []index.Definition{def}); err != nil {
					t.Errorf("addIndexes(%s) = %v", name, err)
					return
				}
				if _, err := index.Keys(informer.GetIndexer(), []index.Selector{{Name: name, Operator: index.Exists}}); err != nil {
					t.Errorf("Keys(%s) = %v", name, err)
				}
				e.mu.Lock()
				_ = len(e.indexes)
				e.mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if got, want := len(e.indexes), 13; got != want {
		t.Errorf("entry has %d indexes, want %d (namespace and label:k0..11)", got, want)
	}
}

// TestDeniedWatch checks that a 401 or 403 marks the entry denied — what
// makes the lease decline — and a second one in a row evicts it, and that
// other errors and a resumed watch do not.
func TestDeniedWatch(t *testing.T) {
	gr := schema.GroupResource{Resource: "pods"}
	tests := []struct {
		name       string
		err        error
		wantDenied bool
	}{
		{"forbidden", apierrors.NewForbidden(gr, "", errors.New(`User "u" cannot watch resource "pods"`)), true},
		{"unauthorized", fmt.Errorf("failed to list: %w", apierrors.NewUnauthorized("token expired")), true},
		{"connection refused", errors.New("dial tcp 127.0.0.1:6443: connect: connection refused"), false},
		{"server error", apierrors.NewInternalError(errors.New("etcd")), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := &entry{leases: map[*Lease]struct{}{}}
			l := &Lease{entries: []*entry{e}}
			if evict := e.watchFailed(nil, tt.err); evict {
				t.Errorf("watchFailed(%v) once: evict", tt.err)
			}
			if _, _, got := l.denied(); got != tt.wantDenied {
				t.Errorf("lease denied = %v, want %v", got, tt.wantDenied)
			}
			if evict := e.watchFailed(nil, tt.err); evict != tt.wantDenied {
				t.Errorf("watchFailed(%v) twice in a row: evict = %v, want %v", tt.err, evict, tt.wantDenied)
			}
			e.watchResumed(nil)
			if _, _, got := l.denied(); got {
				t.Errorf("lease denied after the watch resumed")
			}
			// A refusal after the watch ran again is a first one again.
			if evict := e.watchFailed(nil, tt.err); evict {
				t.Errorf("watchFailed(%v) after a resumed watch: evict", tt.err)
			}
		})
	}
}

// TestRefusalsInARow checks that another error between two refusals starts
// the count again: only refusals in a row evict.
func TestRefusalsInARow(t *testing.T) {
	forbidden := apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", errors.New("no"))
	e := &entry{leases: map[*Lease]struct{}{}}
	for i, step := range []struct {
		err       error
		wantEvict bool
	}{
		{forbidden, false},
		{errors.New("connection refused"), false},
		{forbidden, false},
		{forbidden, true},
	} {
		if got := e.watchFailed(nil, step.err); got != step.wantEvict {
			t.Errorf("failure %d (%v): evict = %v, want %v", i, step.err, got, step.wantEvict)
		}
	}
}

func TestKeyForSortsNamespaces(t *testing.T) {
	pods := &meta.RESTMapping{Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"}}
	ab := keyFor(pods, engine.Config{Namespaces: []string{"a", "b"}})
	ba := keyFor(pods, engine.Config{Namespaces: []string{"b", "a"}})
	if ab != ba {
		t.Errorf("-n a,b and -n b,a get different entries: %+v, %+v", ab, ba)
	}
	if ab.namespaces != "a,b" {
		t.Errorf("namespaces = %q, want a,b", ab.namespaces)
	}
	if keyFor(pods, engine.Config{Namespaces: []string{"a"}}) == ab {
		t.Error("-n a and -n a,b share an entry")
	}
}

// TestKeyForClusterScopedTypes checks that namespaces do not split the
// entries of a cluster-scoped type: its informer lists every object anyway.
func TestKeyForClusterScopedTypes(t *testing.T) {
	nodes := &meta.RESTMapping{Resource: schema.GroupVersionResource{Version: "v1", Resource: "nodes"}, Scope: meta.RESTScopeRoot}
	if a, all := keyFor(nodes, engine.Config{Namespaces: []string{"a"}}), keyFor(nodes, engine.Config{}); a != all {
		t.Errorf("nodes with -n a and with -A get different entries: %+v, %+v", a, all)
	}
	pods := &meta.RESTMapping{Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"}, Scope: meta.RESTScopeNamespace}
	if keyFor(pods, engine.Config{Namespaces: []string{"a"}}) == keyFor(pods, engine.Config{}) {
		t.Error("pods with -n a and with -A get the same entry")
	}
	if got := keyFor(pods, engine.Config{Namespaces: []string{"a", "a"}}).namespaces; got != "a" {
		t.Errorf("-n a,a has namespaces %q, want a", got)
	}
}
