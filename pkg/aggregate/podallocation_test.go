package aggregate

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"
)

// The transform has the signature client-go's informers take, and its result is what their
// stores and key functions need.
var (
	_ cache.TransformFunc = NewPodAllocationTransform()
	_ runtime.Object      = &PodAllocation{}
)

// allocationPods are the fixture pods and a realistic one, with an orphan on a node that is gone.
func allocationPods() []*corev1.Pod {
	return append(allPods(), realisticPod(1), podOn("orphan", "gone", ctr("app", rl("cpu", "100m"), nil)))
}

func TestPodAllocationCountsAsThePod(t *testing.T) {
	transform := NewPodAllocationTransform()
	fromPods, fromAllocations := NewAllocationByNode(), NewAllocationByNode()
	measures := []Measure{mustMeasure(t, "requests.cpu"), mustMeasure(t, "requests.memory"), mustMeasure(t, "limits.cpu"),
		mustMeasure(t, "limits.memory"), mustMeasure(t, "requests.nvidia.com/gpu"), mustMeasure(t, "restarts"), mustMeasure(t, "containers")}
	for _, p := range allocationPods() {
		before := p.DeepCopy()
		obj, err := transform(p)
		if err != nil {
			t.Fatal(err)
		}
		u, ok := obj.(*PodAllocation)
		if !ok {
			t.Fatalf("transform(%s) = %T, want *PodAllocation", p.Name, obj)
		}
		if !equality.Semantic.DeepEqual(p, before) {
			t.Errorf("transform changed pod %s", p.Name)
		}
		if again, _ := transform(u); again != u {
			t.Errorf("transform(alloc of %s) = %v, want it unchanged", p.Name, again)
		}
		m, err := meta.Accessor(u)
		if err != nil || m.GetName() != p.Name || m.GetNamespace() != p.Namespace || m.GetResourceVersion() != p.ResourceVersion {
			t.Errorf("metadata of the allocation of %s = %v, %v", p.Name, m, err)
		}
		if key, _ := cache.MetaNamespaceKeyFunc(u); key != p.Namespace+"/"+p.Name {
			t.Errorf("storage key of the allocation of %s = %q", p.Name, key)
		}
		if got, _ := PodAllocationNodeIndex.Func(u); len(got) != 1 || got[0] != p.Spec.NodeName {
			t.Errorf("node index of the allocation of %s = %q, want [%q]", p.Name, got, p.Spec.NodeName)
		}
		if err := fromPods.Add(p); err != nil {
			t.Fatal(err)
		}
		if err := fromAllocations.Add(cache.DeletedFinalStateUnknown{Key: "k", Obj: u}); err != nil {
			t.Fatal(err)
		}
		got, err := Values(measures, u)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := Values(measures, p)
		for i := range want {
			if got[i].Cmp(want[i]) != 0 || got[i].String() != want[i].String() {
				t.Errorf("%s of the allocation of %s = %s, want %s", measures[i].Name, p.Name, got[i].String(), want[i].String())
			}
		}
	}
	if !reflect.DeepEqual(fromAllocations, fromPods) {
		t.Errorf("allocation by node from PodAllocations = %+v, want %+v (from pods)", fromAllocations, fromPods)
	}
	for _, group := range []string{"", "zone"} {
		opts := CapacityOptions{Nodes: capacityNodes(), NodesKnown: true, Sums: []Measure{mustMeasure(t, "requests.nvidia.com/gpu")}}
		if group != "" {
			opts.GroupBy, opts.GroupValue = group, NodeLabel(corev1.LabelTopologyZone)
		}
		a, _ := Capacity(fromAllocations, opts)
		b, _ := Capacity(fromPods, opts)
		_, got := a.Strings()
		_, want := b.Strings()
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("capacity %q from PodAllocations = %v, want %v", group, got, want)
		}
	}
}

func TestPodAllocationTransformShares(t *testing.T) {
	transform := NewPodAllocationTransform()
	alloc := func(p *corev1.Pod) *PodAllocation {
		obj, err := transform(p)
		if err != nil {
			t.Fatal(err)
		}
		return obj.(*PodAllocation)
	}
	a := alloc(podOn("a", "node-1", ctr("app", rl("cpu", "250m", "memory", "1Gi"), rl("memory", "1Gi"))))
	b := alloc(podOn("b", strings.Clone("node-1"), ctr("app", rl("cpu", "0.25", "memory", "1Gi"), rl("memory", "1Gi"))))
	// 1024Mi is 1Gi; 1073741824 (DecimalSI) is the same number in another format, which a sum
	// keeps, so it is not shared.
	c := alloc(podOn("c", "node-2", ctr("app", rl("cpu", "250m", "memory", "1073741824"), rl("memory", "1024Mi"))))
	same := func(x, y corev1.ResourceList) bool {
		return reflect.ValueOf(x).UnsafePointer() == reflect.ValueOf(y).UnsafePointer()
	}
	if !same(a.Requests, b.Requests) || !same(a.Limits, b.Limits) {
		t.Errorf("equal requests and limits of a and b are not shared")
	}
	if same(a.Requests, c.Requests) {
		t.Errorf("requests of a (1Gi) and c (1073741824) are shared")
	}
	if !same(a.Limits, c.Limits) {
		t.Errorf("limits of a (1Gi) and c (1024Mi) are not shared")
	}
	if a.NodeName != "node-1" || unsafe.StringData(a.NodeName) != unsafe.StringData(b.NodeName) {
		t.Errorf("node names %q and %q are not shared", a.NodeName, b.NodeName)
	}
	// A copy shares nothing.
	cp := a.DeepCopyObject().(*PodAllocation)
	if same(cp.Requests, a.Requests) || !equality.Semantic.DeepEqual(cp, a) {
		t.Errorf("DeepCopyObject = %+v, want an equal allocation sharing no list", cp)
	}
}

func TestPodAllocationTransformConcurrent(t *testing.T) {
	transform := NewPodAllocationTransform()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 200 {
				if _, err := transform(realisticPod(g*200 + i)); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
}

func TestPodAllocationJSONPathMeasure(t *testing.T) {
	u := NewPodAllocation(plainPod)
	m := mustMeasure(t, "replicas={.spec.replicas}")
	if _, err := m.Value(u); err == nil || !strings.Contains(err.Error(), "replicas") {
		t.Errorf("custom measure of a PodAllocation = %v, want an error naming it", err)
	}
}

// BenchmarkPodAllocationTransform times the transform and reports what a cache keeps per realistic
// pod, to compare with BenchmarkTransformPod's heap-B/pod-after.
func BenchmarkPodAllocationTransform(b *testing.B) {
	pods := make([]*corev1.Pod, 1000)
	for i := range pods {
		pods[i] = decodedPod(b, i)
	}
	transform := NewPodAllocationTransform()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := transform(pods[i%len(pods)]); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	kept := NewPodAllocationTransform()
	b.ReportMetric(retainedBytes(2000, func(i int) interface{} {
		out, _ := kept(decodedPod(nil, i))
		return out
	}), "heap-B/pod")
}
