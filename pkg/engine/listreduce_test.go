package engine

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// pagingSource serves its pods in pages of the size the reflector asks for
// (limit and continue, as kube-apiserver does without the streaming initial
// list) and records, at each page, how many pods of the earlier pages the
// engine's Reduce had seen by then.
type pagingSource struct {
	memorySource
	reduced *countingReduce

	mu        sync.Mutex
	limits    []int64
	seenAtGet []int64
}

func (s *pagingSource) Feed(mapping *meta.RESTMapping, namespace string, full bool) (Feed, error) {
	lw := &toolscache.ListWatch{
		ListWithContextFunc: func(_ context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			from := 0
			if opts.Continue != "" {
				var err error
				if from, err = strconv.Atoi(opts.Continue); err != nil {
					return nil, err
				}
			}
			s.mu.Lock()
			s.limits = append(s.limits, opts.Limit)
			s.seenAtGet = append(s.seenAtGet, s.reduced.count())
			s.mu.Unlock()
			to := len(s.pods)
			if opts.Limit > 0 {
				to = min(from+int(opts.Limit), to)
			}
			list := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: strconv.Itoa(len(s.pods))}}
			if to < len(s.pods) {
				list.Continue = strconv.Itoa(to)
			}
			for _, p := range s.pods[from:to] {
				list.Items = append(list.Items, *p.DeepCopy())
			}
			return list, nil
		},
		WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) {
			return watch.NewRaceFreeFake(), nil
		},
	}
	return Feed{ListerWatcherWithContext: lw, Kind: Typed, Example: &corev1.Pod{}, NoWatchList: true}, nil
}

// countingReduce reduces a pod to its metadata (name, namespace, node as a
// label) and counts the pods it reduced.
type countingReduce struct {
	mu   sync.Mutex
	seen map[string]bool
}

func (r *countingReduce) reduce(obj interface{}) (interface{}, error) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return obj, nil
	}
	r.mu.Lock()
	r.seen[pod.Name] = true
	r.mu.Unlock()
	return &metav1.PartialObjectMetadata{TypeMeta: pod.TypeMeta, ObjectMeta: metav1.ObjectMeta{
		Name: pod.Name, Namespace: pod.Namespace, ResourceVersion: pod.ResourceVersion,
		Labels: map[string]string{"node": pod.Spec.NodeName},
	}}, nil
}

func (r *countingReduce) count() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return int64(len(r.seen))
}

// TestEngineReducesEachPage lists 1,234 pods in pages: each page is reduced
// before the next is asked for, so the whole objects of earlier pages are
// not held while later ones arrive, and the cache ends with every pod
// reduced, once each.
func TestEngineReducesEachPage(t *testing.T) {
	r := &countingReduce{seen: map[string]bool{}}
	src := &pagingSource{reduced: r}
	const n = 1234
	for i := range n {
		src.pods = append(src.pods, memoryPod(fmt.Sprintf("p-%04d", i), fmt.Sprintf("node-%d", i%7), "web", strconv.Itoa(i+1)))
	}
	mappings, err := Resolve(src.RESTMapper(), []string{"pods"})
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(src, mappings, Config{FullObjects: true, Reduce: r.reduce, Indexes: []index.Definition{labelIndex("node", "node")}, SyncTimeout: 30 * time.Second})
	if err != nil {
		t.Fatalf("New() = %v", err)
	}
	t.Cleanup(e.Shutdown)
	if err := e.Start(t.Context()); err != nil {
		t.Fatalf("Start() = %v", err)
	}
	src.mu.Lock()
	limits, seen := src.limits, src.seenAtGet
	src.mu.Unlock()
	if len(limits) < 3 || limits[0] <= 0 {
		t.Fatalf("the reflector asked for limits %v; want a paginated list of several pages", limits)
	}
	for i := range seen {
		if want := min(int64(i)*limits[0], n); seen[i] != want {
			t.Errorf("page %d was asked for with %d pods reduced, want %d (every pod of the pages before)", i, seen[i], want)
		}
	}
	objs, err := e.Types()[0].Lookup(nil)
	if err != nil || len(objs) != n {
		t.Fatalf("Lookup(nil) = %d objects, %v; want %d", len(objs), err, n)
	}
	for _, obj := range objs {
		if _, ok := obj.(*metav1.PartialObjectMetadata); !ok {
			t.Fatalf("cached %T, want every pod reduced", obj)
		}
	}
	on3, err := e.Types()[0].Lookup([]index.Selector{{Name: "node", Operator: index.Equals, Values: []string{"node-3"}}})
	if want := (n + 7 - 1 - 3) / 7; err != nil || len(on3) != want {
		t.Errorf("Lookup(node=node-3) = %d objects, %v; want %d", len(on3), err, want)
	}
	if got := e.Types()[0].received.Load(); got != n {
		t.Errorf("received %d objects, want %d: each counted once although transformed on its page and in the store", got, n)
	}
}

// TestReduceListKeepsTheListMeta reduces one page and keeps what the pager
// and the reflector read of the list besides its items.
func TestReduceListKeepsTheListMeta(t *testing.T) {
	remaining := int64(7)
	page := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "42", Continue: "next", RemainingItemCount: &remaining},
		Items: []corev1.Pod{*memoryPod("a", "n1", "web", "1"), *memoryPod("b", "n2", "web", "2")}}
	r := &countingReduce{seen: map[string]bool{}}
	out, err := reduceList(page, r.reduce)
	if err != nil {
		t.Fatal(err)
	}
	m, err := meta.ListAccessor(out)
	if err != nil {
		t.Fatal(err)
	}
	if m.GetResourceVersion() != "42" || m.GetContinue() != "next" || m.GetRemainingItemCount() == nil || *m.GetRemainingItemCount() != 7 {
		t.Errorf("list meta = rv %q continue %q remaining %v, want 42, next, 7", m.GetResourceVersion(), m.GetContinue(), m.GetRemainingItemCount())
	}
	items, err := meta.ExtractList(out)
	if err != nil || len(items) != 2 {
		t.Fatalf("ExtractList = %d items, %v; want 2", len(items), err)
	}
	for i, name := range []string{"a", "b"} {
		if p, ok := items[i].(*metav1.PartialObjectMetadata); !ok || p.Name != name {
			t.Errorf("item %d = %#v, want the reduced %s", i, items[i], name)
		}
	}
	bad := func(interface{}) (interface{}, error) { return "not an object", nil }
	if _, err := reduceList(page, bad); err == nil {
		t.Errorf("reduceList with a transform returning a string succeeded, want an error")
	}
}
