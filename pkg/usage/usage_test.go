package usage

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clienttesting "k8s.io/client-go/testing"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
	metricsfake "k8s.io/metrics/pkg/client/clientset/versioned/fake"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

var t0 = time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)

func usage(cpu, memory string) corev1.ResourceList {
	l := corev1.ResourceList{}
	if cpu != "" {
		l[corev1.ResourceCPU] = resource.MustParse(cpu)
	}
	if memory != "" {
		l[corev1.ResourceMemory] = resource.MustParse(memory)
	}
	return l
}

func podMetrics(namespace, name string, ts time.Time, containers ...corev1.ResourceList) metricsv1beta1.PodMetrics {
	m := metricsv1beta1.PodMetrics{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Timestamp:  metav1.NewTime(ts),
		Window:     metav1.Duration{Duration: 10 * time.Second},
	}
	for i, c := range containers {
		m.Containers = append(m.Containers, metricsv1beta1.ContainerMetrics{Name: fmt.Sprintf("c%d", i), Usage: c})
	}
	return m
}

func TestPodSampleSumsContainers(t *testing.T) {
	tests := []struct {
		name       string
		containers []corev1.ResourceList
		cpuMilli   int64
		memory     int64
	}{
		{name: "no containers", cpuMilli: 0, memory: 0},
		{name: "one", containers: []corev1.ResourceList{usage("150m", "200Mi")}, cpuMilli: 150, memory: 200 << 20},
		{name: "two", containers: []corev1.ResourceList{usage("150m", "200Mi"), usage("1", "1Gi")}, cpuMilli: 1150, memory: 1224 << 20},
		{name: "nanocores round up to millicores", containers: []corev1.ResourceList{usage("100n", "1Ki"), usage("100n", "1Ki")}, cpuMilli: 1, memory: 2048},
		{name: "a container without cpu", containers: []corev1.ResourceList{usage("", "1Mi"), usage("5m", "")}, cpuMilli: 5, memory: 1 << 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := podMetrics("ns", "p", t0, tt.containers...)
			s := podSample(&m)
			cpu, memory := s.CPU(), s.Memory()
			if got := cpu.MilliValue(); got != tt.cpuMilli {
				t.Errorf("CPU().MilliValue() = %d, want %d", got, tt.cpuMilli)
			}
			if got := memory.Value(); got != tt.memory {
				t.Errorf("Memory().Value() = %d, want %d", got, tt.memory)
			}
			if len(s.Containers) != len(tt.containers) {
				t.Errorf("len(Containers) = %d, want %d", len(s.Containers), len(tt.containers))
			}
			if s.Timestamp != t0 || s.Window != 10*time.Second {
				t.Errorf("Timestamp, Window = %v, %v, want %v, 10s", s.Timestamp, s.Window, t0)
			}
		})
	}
}

func TestPodSampleContainersInAnyOrder(t *testing.T) {
	m := podMetrics("ns", "p", t0, usage("1m", "1Mi"), usage("2m", "2Mi"))
	reversed := podMetrics("ns", "p", t0)
	reversed.Containers = []metricsv1beta1.ContainerMetrics{m.Containers[1], m.Containers[0]}
	a, b := podSample(&m), podSample(&reversed)
	if a.Containers[0].Name != "c0" || b.Containers[0].Name != "c0" {
		t.Errorf("first containers = %s, %s, want c0, c0", a.Containers[0].Name, b.Containers[0].Name)
	}
	sa := &Snapshot{Pods: map[string]PodSample{"ns/p": a}}
	sb := &Snapshot{Pods: map[string]PodSample{"ns/p": b}}
	if !sa.SameSamples(sb) {
		t.Error("SameSamples(the containers listed in another order) = false, want true")
	}
}

func TestPodSampleDoesNotShareTheAPIObject(t *testing.T) {
	m := podMetrics("ns", "p", t0, usage("1", "1Mi"))
	s := podSample(&m)
	m.Containers[0].Usage[corev1.ResourceCPU] = resource.MustParse("7")
	if got := s.Containers[0].Usage[corev1.ResourceCPU]; got.Cmp(resource.MustParse("1")) != 0 {
		t.Errorf("container cpu after changing the PodMetrics = %s, want 1", got.String())
	}
}

func TestSnapshotSpanAndSameSamples(t *testing.T) {
	a := &Snapshot{Pods: map[string]PodSample{}, Nodes: map[string]NodeSample{}}
	for i, ts := range []time.Time{t0, t0.Add(2 * time.Second)} {
		m := podMetrics("ns", fmt.Sprintf("p%d", i), ts, usage("1m", "1Mi"))
		a.Pods["ns/"+m.Name] = podSample(&m)
	}
	n := metricsv1beta1.NodeMetrics{ObjectMeta: metav1.ObjectMeta{Name: "n"}, Timestamp: metav1.NewTime(t0.Add(-time.Second)), Usage: usage("1", "1Gi")}
	a.Nodes["n"] = nodeSample(&n)
	oldest, newest := a.Span()
	if !oldest.Equal(t0.Add(-time.Second)) || !newest.Equal(t0.Add(2*time.Second)) {
		t.Errorf("Span() = %v, %v, want %v, %v", oldest, newest, t0.Add(-time.Second), t0.Add(2*time.Second))
	}
	if got := a.Pods["ns/p0"].Age(t0.Add(5 * time.Second)); got != 5*time.Second {
		t.Errorf("Age() = %s, want 5s", got)
	}
	if !a.SameSamples(a) {
		t.Error("SameSamples(itself) = false, want true")
	}
	b := &Snapshot{Pods: map[string]PodSample{}, Nodes: a.Nodes}
	for k, v := range a.Pods {
		b.Pods[k] = v
	}
	later := podMetrics("ns", "p0", t0.Add(10*time.Second), usage("1m", "1Mi"))
	b.Pods["ns/p0"] = podSample(&later)
	if a.SameSamples(b) {
		t.Error("SameSamples(a pod sampled later) = true, want false")
	}
	other := podMetrics("ns", "p0", t0, usage("2m", "1Mi"))
	b.Pods["ns/p0"] = podSample(&other)
	if a.SameSamples(b) {
		t.Error("SameSamples(other usage) = true, want false")
	}
	if a.SameSamples(&Snapshot{}) || (&Snapshot{}).SameSamples(nil) {
		t.Error("SameSamples of different sets = true, want false")
	}
	if _, ok := a.Pod("ns", "p1"); !ok {
		t.Error(`Pod("ns", "p1") not found`)
	}
	if _, ok := a.Node("n"); !ok {
		t.Error(`Node("n") not found`)
	}
}

// apiGroups is a discovery client that lists groups.
type apiGroups []metav1.APIGroup

func (g apiGroups) ServerGroups() (*metav1.APIGroupList, error) {
	return &metav1.APIGroupList{Groups: g}, nil
}

func metricsGroup(versions ...string) metav1.APIGroup {
	g := metav1.APIGroup{Name: GroupName}
	for _, v := range versions {
		g.Versions = append(g.Versions, metav1.GroupVersionForDiscovery{GroupVersion: GroupName + "/" + v, Version: v})
	}
	return g
}

// fakeMetrics is a metrics client whose LISTs answer with pods and nodes.
// The fake clientset's own tracker files PodMetrics under "podmetricses",
// while its client lists "pods", so the LISTs are answered here.
func fakeMetrics(pods func() []metricsv1beta1.PodMetrics, nodes func() []metricsv1beta1.NodeMetrics) *metricsfake.Clientset {
	cs := metricsfake.NewSimpleClientset()
	cs.PrependReactor("list", "pods", func(action clienttesting.Action) (bool, runtime.Object, error) {
		var items []metricsv1beta1.PodMetrics
		for _, p := range pods() {
			if ns := action.GetNamespace(); ns == "" || ns == p.Namespace {
				items = append(items, p)
			}
		}
		return true, &metricsv1beta1.PodMetricsList{Items: items}, nil
	})
	cs.PrependReactor("list", "nodes", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, &metricsv1beta1.NodeMetricsList{Items: nodes()}, nil
	})
	return cs
}

func TestFetch(t *testing.T) {
	pods := []metricsv1beta1.PodMetrics{
		podMetrics("a", "p1", t0, usage("100m", "10Mi"), usage("50m", "5Mi")),
		podMetrics("b", "p2", t0, usage("1", "1Gi")),
	}
	nodes := []metricsv1beta1.NodeMetrics{{ObjectMeta: metav1.ObjectMeta{Name: "n1"}, Timestamp: metav1.NewTime(t0), Usage: usage("2", "3Gi")}}
	cs := fakeMetrics(func() []metricsv1beta1.PodMetrics { return pods }, func() []metricsv1beta1.NodeMetrics { return nodes })
	client := Client{Discovery: apiGroups{{Name: "apps"}, metricsGroup(Version)}, Metrics: cs.MetricsV1beta1()}

	s, err := Fetch(context.Background(), client, Config{Pods: true, Nodes: true})
	if err != nil {
		t.Fatalf("Fetch() error = %v", err)
	}
	p, ok := s.Pod("a", "p1")
	if !ok {
		t.Fatalf(`Pod("a", "p1") not found in %v`, s.Pods)
	}
	if cpu := p.CPU(); cpu.MilliValue() != 150 {
		t.Errorf("a/p1 CPU = %dm, want 150m", cpu.MilliValue())
	}
	n, ok := s.Node("n1")
	if memory := n.Memory(); !ok || memory.Value() != 3<<30 {
		t.Errorf(`Node("n1") = %v, %v, want 3Gi of memory`, n, ok)
	}

	s, err = Fetch(context.Background(), client, Config{Pods: true, Namespace: "b"})
	if err != nil {
		t.Fatalf("Fetch(namespace b) error = %v", err)
	}
	if len(s.Pods) != 1 || s.Nodes != nil {
		t.Errorf("Fetch(namespace b) = %d pods, nodes %v, want 1 pod, no nodes", len(s.Pods), s.Nodes)
	}
}

func TestFetchWithoutMetricsAPI(t *testing.T) {
	cs := fakeMetrics(func() []metricsv1beta1.PodMetrics { return nil }, func() []metricsv1beta1.NodeMetrics { return nil })
	tests := []struct {
		name   string
		groups apiGroups
		want   string
	}{
		{name: "no group", groups: apiGroups{{Name: "apps"}}, want: "Metrics API not available"},
		{name: "another version only", groups: apiGroups{metricsGroup("v2")}, want: "Metrics API not available: metrics.k8s.io serves v2, not v1beta1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Fetch(context.Background(), Client{Discovery: tt.groups, Metrics: cs.MetricsV1beta1()}, Config{Pods: true})
			if !errors.Is(err, ErrMetricsAPINotAvailable) || err.Error() != tt.want {
				t.Errorf("Fetch() error = %v, want %q (ErrMetricsAPINotAvailable)", err, tt.want)
			}
		})
	}
	if _, err := Fetch(context.Background(), Client{}, Config{}); err == nil {
		t.Error("Fetch(neither pods nor nodes) error = nil")
	}
}

func TestPollerDelay(t *testing.T) {
	p, err := NewPoller(Client{}, Config{Pods: true, Interval: 15 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	snapshot := func(ts time.Time) *Snapshot {
		m := podMetrics("ns", "p", ts, usage("1m", "1Mi"))
		return &Snapshot{Pods: map[string]PodSample{"ns/p": podSample(&m)}}
	}
	tests := []struct {
		name string
		s    *Snapshot
		now  time.Time
		want time.Duration
	}{
		{name: "failed reading", s: nil, now: t0, want: 15 * time.Second},
		{name: "no samples", s: &Snapshot{}, now: t0, want: 15 * time.Second},
		{name: "next sample due in 8s", s: snapshot(t0.Add(-2 * time.Second)), now: t0, want: 10 * time.Second},
		{name: "next sample a window overdue", s: snapshot(t0.Add(-30 * time.Second)), now: t0, want: 15 * time.Second},
		{name: "next sample late", s: snapshot(t0.Add(-13 * time.Second)), now: t0, want: 2500 * time.Millisecond},
		{name: "next sample due at once", s: snapshot(t0.Add(-10 * time.Second)), now: t0.Add(1900 * time.Millisecond), want: time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := p.delay(tt.s, tt.now); got != tt.want {
				t.Errorf("delay() = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestPollerRun(t *testing.T) {
	var reads atomic.Int64
	// Every reading brings a newer sample, so every reading is a change.
	cs := fakeMetrics(func() []metricsv1beta1.PodMetrics {
		n := reads.Add(1)
		return []metricsv1beta1.PodMetrics{podMetrics("ns", "p", t0.Add(time.Duration(n)*time.Second), usage("1m", "1Mi"))}
	}, func() []metricsv1beta1.NodeMetrics { return nil })
	groups := &switchableGroups{}
	groups.available.Store(false)
	p, err := NewPoller(Client{Discovery: groups, Metrics: cs.MetricsV1beta1()}, Config{Pods: true, Interval: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	changed := p.Changed()
	go func() { done <- p.Run(ctx) }()

	// No metrics API yet: the first reading fails with kubectl's message.
	waitFor(t, changed)
	if s, err := p.Latest(); s != nil || !errors.Is(err, ErrMetricsAPINotAvailable) {
		t.Fatalf("Latest() = %v, %v, want nil, ErrMetricsAPINotAvailable", s, err)
	}
	// Then it appears; the Poller's next readings succeed.
	changed = p.Changed()
	groups.available.Store(true)
	waitFor(t, changed)
	s, err := p.Latest()
	if err != nil || s == nil || len(s.Pods) != 1 {
		t.Fatalf("Latest() = %v, %v, want one pod, no error", s, err)
	}
	waitFor(t, p.Changed())
	if s2, _ := p.Latest(); s2.SameSamples(s) {
		t.Error("Latest() after the next change holds the same samples")
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run() = %v, want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after its context was cancelled")
	}
}

// switchableGroups lists the metrics API once available is true.
type switchableGroups struct{ available atomic.Bool }

func (g *switchableGroups) ServerGroups() (*metav1.APIGroupList, error) {
	if !g.available.Load() {
		return &metav1.APIGroupList{}, nil
	}
	return &metav1.APIGroupList{Groups: []metav1.APIGroup{metricsGroup(Version)}}, nil
}

func waitFor(t *testing.T, ch <-chan struct{}) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatal("no change within 10s")
	}
}
