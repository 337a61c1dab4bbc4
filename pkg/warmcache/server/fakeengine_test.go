package server

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
)

// fakeEngine is an engine whose one type holds fixed pods in an informer
// that never runs: what the pool does with engines, without a server.
type fakeEngine struct {
	cfg      engine.Config
	types    []*engine.Type
	failed   chan struct{}
	shutdown atomic.Bool
}

func (f *fakeEngine) Types() []*engine.Type           { return f.types }
func (f *fakeEngine) Start(ctx context.Context) error { return nil }
func (f *fakeEngine) Failed() <-chan struct{}         { return f.failed }
func (f *fakeEngine) Err() error                      { return nil }
func (f *fakeEngine) Shutdown()                       { f.shutdown.Store(true) }

var podsMapping = &meta.RESTMapping{
	Resource:         schema.GroupVersionResource{Version: "v1", Resource: "pods"},
	GroupVersionKind: schema.GroupVersionKind{Version: "v1", Kind: "Pod"},
	Scope:            meta.RESTScopeNamespace,
}

// fakePool is a pool of fake engines; engines lists those it created.
type fakePool struct {
	*Pool
	mu      sync.Mutex
	engines []*fakeEngine
}

// newFakePool returns a pool with evictAfter whose engines hold pods a/web
// (app=web), a/db (app=db) and b/web (app=web), whatever their config
// asks: the tests check which engine answers, not what a server sends.
func newFakePool(t *testing.T, evictAfter time.Duration) *fakePool {
	t.Helper()
	fp := &fakePool{Pool: NewPool(nil, PoolOptions{EvictAfter: evictAfter})}
	fp.newEngine = func(mapping *meta.RESTMapping, cfg engine.Config) (poolEngine, error) {
		informer := toolscache.NewSharedIndexInformer(&toolscache.ListWatch{}, &corev1.Pod{}, 0,
			toolscache.Indexers{toolscache.NamespaceIndex: toolscache.MetaNamespaceIndexFunc})
		// The indexes an engine registers before it starts, as engine.New
		// does (client-go's namespace index is there already).
		indexers := toolscache.Indexers{}
		for _, def := range cfg.Indexes {
			if def.Name != toolscache.NamespaceIndex {
				indexers[def.Name] = def.Func
			}
		}
		if err := informer.AddIndexers(indexers); err != nil {
			t.Fatal(err)
		}
		for _, p := range []struct{ ns, name, app string }{{"a", "web", "web"}, {"a", "db", "db"}, {"b", "web", "web"}} {
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: p.ns, Name: p.name, Labels: map[string]string{"app": p.app}}}
			if err := informer.GetIndexer().Add(pod); err != nil {
				t.Fatal(err)
			}
		}
		f := &fakeEngine{cfg: cfg, failed: make(chan struct{}),
			types: []*engine.Type{{Mapping: mapping, Informers: []toolscache.SharedIndexInformer{informer}}}}
		fp.mu.Lock()
		fp.engines = append(fp.engines, f)
		fp.mu.Unlock()
		return f, nil
	}
	t.Cleanup(fp.Shutdown)
	return fp
}

// created returns how many engines the pool has created.
func (fp *fakePool) created() int {
	fp.mu.Lock()
	defer fp.mu.Unlock()
	return len(fp.engines)
}

func (fp *fakePool) acquire(t *testing.T, cfg engine.Config) *Lease {
	t.Helper()
	l, err := fp.Acquire(t.Context(), []*meta.RESTMapping{podsMapping}, cfg, Options{})
	if err != nil {
		t.Fatalf("Acquire(%+v) = %v", cfg, err)
	}
	return l
}

func leasedKeys(t *testing.T, l *Lease) []string {
	t.Helper()
	objs, err := l.Types()[0].Lookup(nil)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, obj := range objs {
		key, _ := toolscache.MetaNamespaceKeyFunc(obj)
		keys = append(keys, key)
	}
	return keys
}
