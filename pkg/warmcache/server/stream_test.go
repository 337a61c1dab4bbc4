package server

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/client"
)

// memorySource serves config maps from memory: a list of what it holds,
// and watches the test feeds through push.
type memorySource struct {
	mu       sync.Mutex
	objs     []corev1.ConfigMap
	watchers []*watch.FakeWatcher
	lists    int
}

func (s *memorySource) RESTMapper() meta.RESTMapper {
	m := meta.NewDefaultRESTMapper(nil)
	m.Add(configMapsMapping.GroupVersionKind, meta.RESTScopeNamespace)
	return m
}

func (s *memorySource) Feed(*meta.RESTMapping, string, bool) (engine.Feed, error) {
	lw := &toolscache.ListWatch{
		ListWithContextFunc: func(context.Context, metav1.ListOptions) (runtime.Object, error) {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.lists++
			return &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}, Items: append([]corev1.ConfigMap(nil), s.objs...)}, nil
		},
		WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) {
			w := watch.NewFakeWithChanSize(100, false)
			s.mu.Lock()
			defer s.mu.Unlock()
			s.watchers = append(s.watchers, w)
			return w, nil
		},
	}
	return engine.Feed{ListerWatcherWithContext: lw, Kind: engine.Typed, Example: &corev1.ConfigMap{}, NoWatchList: true}, nil
}

// push sends ev to every watch open on the source.
func (s *memorySource) push(ev watch.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, w := range s.watchers {
		w.Action(ev.Type, ev.Object)
	}
}

func configMap(name, rv, value string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: name, ResourceVersion: rv}, Data: map[string]string{"k": value}}
}

// TestStreamFeedsAnEngine runs an engine of the client's whose source is a
// warm cache (client.Source over StreamHandler over a Pool): it syncs with
// the objects the cache holds, gets each later change with the state
// before and after, and hears the cache's watch outages as its own.
func TestStreamFeedsAnEngine(t *testing.T) {
	upstream := &memorySource{objs: []corev1.ConfigMap{*configMap("one", "1", "a"), *configMap("two", "1", "b")}}
	pool := NewPool(upstream, PoolOptions{})
	defer pool.Shutdown()
	socket := serveWith(t, &Server{Stream: StreamHandler(pool, NewWarnings(), upstream)})

	direct := &memorySource{}
	var mu sync.Mutex
	var outages []string
	cfg := engine.Config{FullObjects: true, SyncTimeout: 10 * time.Second,
		OnWatchError: func(_ *engine.Type, err error) {
			mu.Lock()
			outages = append(outages, "failed: "+err.Error())
			mu.Unlock()
		},
		OnWatchResumed: func(*engine.Type) { mu.Lock(); outages = append(outages, "resumed"); mu.Unlock() },
	}
	eng, err := engine.New(&client.Source{Socket: socket, Direct: direct}, []*meta.RESTMapping{configMapsMapping}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Shutdown()
	queue := engine.NewQueue(100)
	if err := eng.SendEvents(queue); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := eng.Start(ctx); err != nil {
		t.Fatal(err)
	}
	pop := func() *engine.Event {
		t.Helper()
		ev, ok := queue.Pop(ctx)
		if !ok {
			t.Fatal("no event")
		}
		return ev
	}
	for _, want := range []string{"a/one", "a/two"} {
		if ev := pop(); ev.Type != engine.Added || ev.Key != want || !ev.Initial {
			t.Fatalf("initial event = %+v, want the cached %s as initial Added", ev, want)
		}
	}
	if direct.lists != 0 {
		t.Errorf("the engine listed its API server %d times, want 0: the cache answers", direct.lists)
	}

	waitForWatch(t, upstream)
	upstream.push(watch.Event{Type: watch.Modified, Object: configMap("one", "2", "changed")})
	ev := pop()
	if ev.Type != engine.Modified || ev.Key != "a/one" {
		t.Fatalf("event = %+v, want one modified", ev)
	}
	if before, after := ev.Old.(*corev1.ConfigMap).Data["k"], ev.New.(*corev1.ConfigMap).Data["k"]; before != "a" || after != "changed" {
		t.Errorf("modified from %q to %q, want from a to changed", before, after)
	}
	upstream.push(watch.Event{Type: watch.Deleted, Object: configMap("two", "3", "b")})
	if ev := pop(); ev.Type != engine.Deleted || ev.Key != "a/two" {
		t.Fatalf("event = %+v, want two deleted", ev)
	}

	// An outage of the cache's watch reaches the client's engine.
	pool.mu.Lock()
	var e *entry
	for _, entry := range pool.entries {
		e = entry
	}
	pool.mu.Unlock()
	e.watchFailed(e.eng.Types()[0], errors.New("connection refused"))
	e.watchResumed(e.eng.Types()[0])
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		got := append([]string(nil), outages...)
		mu.Unlock()
		if len(got) == 2 {
			if got[0] != "failed: connection refused" || got[1] != "resumed" {
				t.Errorf("outages = %q, want the failure, then resumed", got)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("outages = %q, want the failure, then resumed", got)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitForWatch waits until the pool's engine watches s.
func waitForWatch(t *testing.T, s *memorySource) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		s.mu.Lock()
		n := len(s.watchers)
		s.mu.Unlock()
		if n > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the cache's engine never watched")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestStreamDeclinedReadsDirectly: a type the cache declines is read from
// the client's API server, its note printed once.
func TestStreamDeclinedReadsDirectly(t *testing.T) {
	socket := serveWith(t, &Server{})
	direct := &memorySource{objs: []corev1.ConfigMap{*configMap("direct", "1", "a")}}
	var notes strings.Builder
	eng, err := engine.New(&client.Source{Socket: socket, Direct: direct, ErrOut: &notes}, []*meta.RESTMapping{configMapsMapping},
		engine.Config{FullObjects: true, SyncTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Shutdown()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := eng.Start(ctx); err != nil {
		t.Fatal(err)
	}
	objs, err := eng.Types()[0].Lookup(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 1 || objs[0].(*corev1.ConfigMap).Name != "direct" || direct.lists != 1 {
		t.Errorf("objects %v after %d direct lists, want the direct one, listed once", objs, direct.lists)
	}
	if notes.String() != "" {
		t.Errorf("notes = %q, want none: the cache declined without a warning", notes.String())
	}
}
