package engine

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// memorySource is a Source of pods held in memory, the shape of a source
// over files: whole typed objects only, label selectors applied, no
// streaming initial list, and a watch that stays open with nothing to say
// until the test sends an event.
type memorySource struct {
	mu      sync.Mutex
	pods    []*corev1.Pod
	watches []*watch.RaceFreeFakeWatcher
}

func (s *memorySource) RESTMapper() meta.RESTMapper {
	m := meta.NewDefaultRESTMapper(nil)
	m.Add(podsMapping.GroupVersionKind, meta.RESTScopeNamespace)
	return m
}

func (s *memorySource) Feed(mapping *meta.RESTMapping, namespace string, _ bool) (Feed, error) {
	lw := &toolscache.ListWatch{
		ListWithContextFunc: func(_ context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			selector, err := labels.Parse(opts.LabelSelector)
			if err != nil {
				return nil, err
			}
			s.mu.Lock()
			defer s.mu.Unlock()
			list := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: strconv.Itoa(len(s.pods))}}
			for _, p := range s.pods {
				if (namespace == "" || p.Namespace == namespace) && selector.Matches(labels.Set(p.Labels)) {
					list.Items = append(list.Items, *p.DeepCopy())
				}
			}
			return list, nil
		},
		WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) {
			s.mu.Lock()
			defer s.mu.Unlock()
			w := watch.NewRaceFreeFake()
			s.watches = append(s.watches, w)
			return w, nil
		},
	}
	return Feed{ListerWatcherWithContext: lw, Kind: Typed, Example: &corev1.Pod{}, NoWatchList: true}, nil
}

// send delivers an event on every open watch.
func (s *memorySource) send(t watch.EventType, obj runtime.Object) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, w := range s.watches {
		w.Action(t, obj.DeepCopyObject())
	}
}

func memoryPod(name, node, app, rv string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name, Labels: map[string]string{"app": app}, ResourceVersion: rv},
		Spec:       corev1.PodSpec{NodeName: node},
	}
}

// TestEngineOverAnotherSource proves the seam: an engine fed by a source
// that is not an API server syncs, applies its selector, answers index
// lookups, and sends the source's watch events.
func TestEngineOverAnotherSource(t *testing.T) {
	src := &memorySource{pods: []*corev1.Pod{
		memoryPod("web-1", "worker-1", "web", "1"),
		memoryPod("web-2", "worker-2", "web", "2"),
		memoryPod("db-1", "worker-1", "db", "3"),
	}}
	mappings, err := Resolve(src.RESTMapper(), []string{"pods"})
	if err != nil {
		t.Fatalf("Resolve(pods) = %v", err)
	}
	node, err := (*index.Set)(nil).Lookup("node")
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(src, mappings, Config{LabelSelector: "app=web", Indexes: []index.Definition{node}, FullObjects: true, SyncTimeout: 10 * time.Second})
	if err != nil {
		t.Fatalf("New() = %v", err)
	}
	t.Cleanup(e.Shutdown)
	q := NewQueue(0)
	if err := e.SendEvents(q); err != nil {
		t.Fatalf("SendEvents() = %v", err)
	}
	if err := e.Start(t.Context()); err != nil {
		t.Fatalf("Start() = %v", err)
	}
	objs, err := e.Types()[0].Lookup([]index.Selector{{Name: "node", Operator: index.Equals, Values: []string{"worker-1"}}})
	if err != nil {
		t.Fatalf("Lookup(node=worker-1) = %v", err)
	}
	if len(objs) != 1 || objs[0].(*corev1.Pod).Name != "web-1" {
		t.Fatalf("Lookup(node=worker-1) = %v, want [web-1]", objs)
	}
	for _, want := range []string{"shop/web-1", "shop/web-2"} {
		if ev := popEvent(t, q); ev.Type != Added || ev.Key != want {
			t.Fatalf("initial event = %s %s, want ADDED %s", ev.Type, ev.Key, want)
		}
	}
	src.send(watch.Added, memoryPod("web-3", "worker-1", "web", "4"))
	if ev := popEvent(t, q); ev.Type != Added || ev.Key != "shop/web-3" {
		t.Fatalf("watch event = %s %s, want ADDED shop/web-3", ev.Type, ev.Key)
	}
}

// popEvent pops one event from q, failing the test after a few seconds.
func popEvent(t *testing.T, q *Queue) *Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	ev, ok := q.Pop(ctx)
	if !ok {
		t.Fatal("no event within 5s")
	}
	return ev
}
