package usage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"

	"github.com/kubectl-informer/kubectl-informer/pkg/usage"
	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// otherNamespace holds the second half of the workloads; the first is in
// team-a.
const otherNamespace = "usage-b"

// The annotations kwok reads a pod's usage from (hack/cluster up --metrics):
// each container of the pod uses that much.
const (
	cpuAnnotation    = "kwok.x-k8s.io/usage-cpu"
	memoryAnnotation = "kwok.x-k8s.io/usage-memory"
)

// workloads: in team-a a Deployment of two-container pods; in usage-b a
// Deployment of pods using more than a core, a pod without annotations
// (kwok's defaults), and a pod that asks for a GPU.
const workloads = `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: team-a
spec:
  replicas: 3
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
      annotations:
        kwok.x-k8s.io/usage-cpu: 150m
        kwok.x-k8s.io/usage-memory: 200Mi
    spec:
      containers:
      - {name: web, image: registry.example.com/web:v1}
      - {name: proxy, image: registry.example.com/proxy:v1}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: batch
  namespace: usage-b
spec:
  replicas: 2
  selector:
    matchLabels: {app: batch}
  template:
    metadata:
      labels: {app: batch}
      annotations:
        kwok.x-k8s.io/usage-cpu: 1250m
        kwok.x-k8s.io/usage-memory: 1536Mi
    spec:
      containers:
      - {name: batch, image: registry.example.com/batch:v1}
---
apiVersion: v1
kind: Pod
metadata:
  name: idle
  namespace: usage-b
spec:
  containers:
  - {name: idle, image: registry.example.com/idle:v1}
---
apiVersion: v1
kind: Pod
metadata:
  name: trainer
  namespace: usage-b
  annotations:
    kwok.x-k8s.io/usage-cpu: 700m
    kwok.x-k8s.io/usage-memory: 3Gi
spec:
  containers:
  - name: trainer
    image: registry.example.com/trainer:v1
    resources:
      requests: {nvidia.com/gpu: "1"}
      limits: {nvidia.com/gpu: "1"}
`

// rolloutTimeout bounds each step that waits for controllers or samples:
// long enough for a loaded two-core machine.
const rolloutTimeout = 3 * time.Minute

// kubectl runs the real kubectl as the admin and fails the test if it fails.
func kubectl(t *testing.T, args ...string) string {
	t.Helper()
	r := framework.Run(t, framework.Cmd{Args: args, Timeout: rolloutTimeout + 30*time.Second})
	if r.ExitCode != 0 {
		t.Fatalf("kubectl %s: %s", strings.Join(args, " "), r)
	}
	return r.Stdout
}

// startWorkloads creates the workloads and waits until every pod is Ready.
func startWorkloads(t *testing.T) {
	t.Helper()
	c := framework.Current(t)
	framework.CreateNamespace(t, c.AdminClient(), otherNamespace)
	if r := framework.Run(t, framework.Cmd{Args: []string{"apply", "-f", "-"}, Stdin: workloads}); r.ExitCode != 0 {
		t.Fatalf("kubectl apply: %s", r)
	}
	timeout := "--timeout=" + rolloutTimeout.String()
	kubectl(t, "rollout", "status", "deployment/web", "-n", "team-a", timeout)
	kubectl(t, "rollout", "status", "deployment/batch", "-n", otherNamespace, timeout)
	kubectl(t, "wait", "--for=condition=Ready", "pod/idle", "pod/trainer", "-n", otherNamespace, timeout)
}

// pods lists every pod of the cluster, by storage key.
func pods(t *testing.T) map[string]corev1.Pod {
	t.Helper()
	list, err := framework.Current(t).AdminClient().CoreV1().Pods("").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatalf("listing pods: %v", err)
	}
	byKey := map[string]corev1.Pod{}
	for _, p := range list.Items {
		byKey[p.Namespace+"/"+p.Name] = p
	}
	return byKey
}

func TestUsageEqualsKubectlTop(t *testing.T) {
	c := framework.Current(t)
	startWorkloads(t)
	want := pods(t)

	client, err := usage.NewClient(c.AdminConfig())
	if err != nil {
		t.Fatal(err)
	}
	poller, err := usage.NewPoller(client, usage.Config{Pods: true, Nodes: true, Interval: framework.MetricResolution})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	go func() { stopped <- poller.Run(ctx) }()
	defer func() {
		cancel()
		select {
		case err := <-stopped:
			if err != nil {
				t.Errorf("Run() = %v, want nil", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("the Poller's Run did not return 30s after its context was cancelled")
		}
	}()

	// metrics-server has a pod's CPU rate from its second sample of it on.
	deadline := time.After(rolloutTimeout)
	for {
		changed := poller.Changed()
		s, err := poller.Latest()
		if err == nil && s != nil && len(s.Pods) == len(want) && len(s.Nodes) == nodes {
			break
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("after %s the Poller has %s; want samples of %d pods and %d nodes", rolloutTimeout, describe(s), len(want), nodes)
		}
	}

	// kubectl top and the raw LIST read between two readings with the same
	// samples read those samples too (a sample is never replaced by an
	// older one); a new sample in between is tried again.
	for attempt := 1; ; attempt++ {
		began := time.Now()
		changed := poller.Changed()
		before, err := poller.Latest()
		if err != nil {
			t.Fatalf("Latest() error = %v", err)
		}
		topPods := kubectl(t, "top", "pod", "-A", "--no-headers")
		topNodes := kubectl(t, "top", "node", "--no-headers")
		raw := kubectl(t, "get", "--raw", "/apis/metrics.k8s.io/v1beta1/pods")
		after, err := usage.Fetch(context.Background(), client, usage.Config{Pods: true, Nodes: true})
		if err != nil {
			t.Fatalf("Fetch() error = %v", err)
		}
		if !after.SameSamples(before) {
			_, beforeNewest := before.Span()
			_, afterNewest := after.Span()
			t.Logf("attempt %d took %s: the Poller's newest sample is of %s, a reading after kubectl's of %s; %s", attempt, time.Since(began).Round(time.Millisecond), beforeNewest.Format(time.RFC3339), afterNewest.Format(time.RFC3339), firstDifference(before, after))
			if attempt == 5 {
				t.Fatalf("a new sample came between the Poller's reading and kubectl's in %d attempts", attempt)
			}
			t.Logf("attempt %d: a new sample came while kubectl read; again once the Poller has it", attempt)
			select {
			case <-changed:
			case <-time.After(3 * framework.MetricResolution):
				t.Fatalf("the Poller read no new sample within %s", 3*framework.MetricResolution)
			}
			continue
		}
		oldest, newest := before.Span()
		t.Logf("compared samples taken from %s to %s, %s old, after %d attempt(s)", oldest.Format(time.RFC3339), newest.Format(time.RFC3339), time.Since(oldest).Round(time.Second), attempt)
		comparePods(t, before, topPods, "")
		compareNodes(t, before, topNodes)
		compareRaw(t, before, raw)
		compareAnnotations(t, before, want)
		for _, p := range before.Pods {
			if p.Window <= 0 || p.Age(before.Fetched) > 3*framework.MetricResolution {
				t.Errorf("pod %s/%s: window %s, %s old when read; want a window and at most %s", p.Namespace, p.Name, p.Window, p.Age(before.Fetched), 3*framework.MetricResolution)
			}
		}
		return
	}
}

// firstDifference describes a pod or node whose samples in a and b differ.
func firstDifference(a, b *usage.Snapshot) string {
	for key, p := range a.Pods {
		q, ok := b.Pods[key]
		if !ok {
			return "pod " + key + " is only in the first"
		}
		if !(&usage.Snapshot{Pods: map[string]usage.PodSample{key: p}}).SameSamples(&usage.Snapshot{Pods: map[string]usage.PodSample{key: q}}) {
			return fmt.Sprintf("pod %s: %+v, then %+v", key, p, q)
		}
	}
	for key, n := range a.Nodes {
		m, ok := b.Nodes[key]
		if !ok {
			return "node " + key + " is only in the first"
		}
		if !(&usage.Snapshot{Nodes: map[string]usage.NodeSample{key: n}}).SameSamples(&usage.Snapshot{Nodes: map[string]usage.NodeSample{key: m}}) {
			return fmt.Sprintf("node %s: %+v, then %+v", key, n, m)
		}
	}
	return fmt.Sprintf("%d pods and %d nodes, then %d and %d", len(a.Pods), len(a.Nodes), len(b.Pods), len(b.Nodes))
}

func describe(s *usage.Snapshot) string {
	if s == nil {
		return "no reading"
	}
	return fmt.Sprintf("samples of %d pods and %d nodes", len(s.Pods), len(s.Nodes))
}

// topRow is one line of kubectl top: its first fields name the pod or node,
// then come its CPU in millicores and its memory in MiB as kubectl prints
// them (k8s.io/kubectl/pkg/metricsutil: MilliValue, rounded up; Value()/2^20,
// rounded down).
type topRow struct {
	key       string
	milliCPU  int64
	memoryMiB int64
}

// The layouts of kubectl top's rows without headers: how many fields name
// the row, and where its CPU and memory are after them.
var (
	// NAMESPACE NAME CPU(cores) MEMORY(bytes)
	podsAllNamespaces = topLayout{nameFields: 2, cpu: 0, memory: 1}
	// NAME CPU(cores) MEMORY(bytes)
	podsOneNamespace = topLayout{nameFields: 1, cpu: 0, memory: 1}
	// NAME CPU(cores) CPU(%) MEMORY(bytes) MEMORY(%): the shares are of
	// the node's allocatable, not the package's.
	nodesLayout = topLayout{nameFields: 1, cpu: 0, memory: 2}
)

type topLayout struct{ nameFields, cpu, memory int }

// parseTop reads kubectl top's rows without headers.
func parseTop(t *testing.T, out string, layout topLayout) map[string]topRow {
	t.Helper()
	rows := map[string]topRow{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		if len(f) <= layout.nameFields+max(layout.cpu, layout.memory) {
			t.Fatalf("kubectl top line %q: too few fields", line)
		}
		r := topRow{key: strings.Join(f[:layout.nameFields], "/")}
		rest := f[layout.nameFields:]
		cpu, memory := rest[layout.cpu], rest[layout.memory]
		var err error
		if r.milliCPU, err = strconv.ParseInt(strings.TrimSuffix(cpu, "m"), 10, 64); err != nil || !strings.HasSuffix(cpu, "m") {
			t.Fatalf("kubectl top line %q: CPU %q is not millicores", line, cpu)
		}
		if r.memoryMiB, err = strconv.ParseInt(strings.TrimSuffix(memory, "Mi"), 10, 64); err != nil || !strings.HasSuffix(memory, "Mi") {
			t.Fatalf("kubectl top line %q: memory %q is not MiB", line, memory)
		}
		rows[r.key] = r
	}
	return rows
}

// printed is a usage sample as kubectl top prints it.
func printed(s usage.Sample) (milliCPU, memoryMiB int64) {
	cpu, memory := s.CPU(), s.Memory()
	return cpu.MilliValue(), memory.Value() / (1 << 20)
}

// comparePods compares the pods of s with kubectl top pod's rows; namespace
// is "" for kubectl top pod -A, whose rows name their namespace.
func comparePods(t *testing.T, s *usage.Snapshot, top, namespace string) {
	t.Helper()
	layout, prefix := podsAllNamespaces, ""
	if namespace != "" {
		layout, prefix = podsOneNamespace, namespace+"/"
	}
	rows := map[string]topRow{}
	for name, r := range parseTop(t, top, layout) {
		rows[prefix+name] = r
	}
	if got, want := keys(s.Pods), keysOf(rows); got != want {
		t.Errorf("pods with usage = %s, kubectl top pod has %s", got, want)
	}
	for key, r := range rows {
		p, ok := s.Pods[key]
		if !ok {
			continue
		}
		cpu, memory := printed(p.Sample)
		if cpu != r.milliCPU || memory != r.memoryMiB {
			t.Errorf("pod %s: usage %dm %dMi, kubectl top pod %dm %dMi", key, cpu, memory, r.milliCPU, r.memoryMiB)
		}
	}
}

func compareNodes(t *testing.T, s *usage.Snapshot, top string) {
	t.Helper()
	rows := parseTop(t, top, nodesLayout)
	if got, want := keys(s.Nodes), keysOf(rows); got != want {
		t.Errorf("nodes with usage = %s, kubectl top node has %s", got, want)
	}
	for name, r := range rows {
		n, ok := s.Nodes[name]
		if !ok {
			continue
		}
		cpu, memory := printed(n.Sample)
		if cpu != r.milliCPU || memory != r.memoryMiB {
			t.Errorf("node %s: usage %dm %dMi, kubectl top node %dm %dMi", name, cpu, memory, r.milliCPU, r.memoryMiB)
		}
	}
}

// compareRaw checks the package's exact quantities and sample times against
// the test's own sums of the raw PodMetrics LIST.
func compareRaw(t *testing.T, s *usage.Snapshot, raw string) {
	t.Helper()
	var list metricsv1beta1.PodMetricsList
	if err := json.Unmarshal([]byte(raw), &list); err != nil {
		t.Fatalf("decoding the PodMetrics LIST: %v", err)
	}
	if len(list.Items) != len(s.Pods) {
		t.Errorf("the PodMetrics LIST has %d pods, the package %d", len(list.Items), len(s.Pods))
	}
	for _, m := range list.Items {
		key := m.Namespace + "/" + m.Name
		p, ok := s.Pods[key]
		if !ok {
			t.Errorf("pod %s of the PodMetrics LIST has no usage", key)
			continue
		}
		var cpu, memory resource.Quantity
		for _, c := range m.Containers {
			cpu.Add(c.Usage[corev1.ResourceCPU])
			memory.Add(c.Usage[corev1.ResourceMemory])
		}
		gotCPU, gotMemory := p.CPU(), p.Memory()
		if gotCPU.Cmp(cpu) != 0 || gotMemory.Cmp(memory) != 0 {
			t.Errorf("pod %s: usage cpu %s memory %s, the test's sums of its containers %s and %s", key, gotCPU.String(), gotMemory.String(), cpu.String(), memory.String())
		}
		if !p.Timestamp.Equal(m.Timestamp.Time) || p.Window != m.Window.Duration || len(p.Containers) != len(m.Containers) {
			t.Errorf("pod %s: sample at %s over %s with %d containers, the LIST's at %s over %s with %d", key, p.Timestamp, p.Window, len(p.Containers), m.Timestamp.Time, m.Window.Duration, len(m.Containers))
		}
	}
}

// compareAnnotations checks that the pipeline reports what the pods'
// annotations ask kwok to simulate: memory, a gauge, exactly; CPU, a rate of
// a counter over the window, within 5%. Pods without annotations use kwok's
// defaults (1m and 1Mi per container).
func compareAnnotations(t *testing.T, s *usage.Snapshot, pods map[string]corev1.Pod) {
	t.Helper()
	for key, pod := range pods {
		p, ok := s.Pods[key]
		if !ok {
			t.Errorf("pod %s has no usage", key)
			continue
		}
		perCPU, perMemory := resource.MustParse("1m"), resource.MustParse("1Mi")
		if v, ok := pod.Annotations[cpuAnnotation]; ok {
			perCPU = resource.MustParse(v)
		}
		if v, ok := pod.Annotations[memoryAnnotation]; ok {
			perMemory = resource.MustParse(v)
		}
		containers := int64(len(pod.Spec.Containers))
		cpu, memory := p.CPU(), p.Memory()
		if want := perMemory.Value() * containers; memory.Value() != want {
			t.Errorf("pod %s: memory %d, its annotation asks for %d in each of %d containers (%d)", key, memory.Value(), perMemory.Value(), containers, want)
		}
		want := float64(perCPU.MilliValue() * containers)
		if got := float64(cpu.MilliValue()); got < want*0.95 || got > want*1.05+1 {
			t.Errorf("pod %s: cpu %.0fm, its annotation asks for %dm in each of %d containers (%.0fm)", key, got, perCPU.MilliValue(), containers, want)
		}
	}
}

func keys[V any](m map[string]V) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, " ")
}

func keysOf(rows map[string]topRow) string { return keys(rows) }

// TestNamespaceAsViewer reads the pods of one namespace as viewer, who may
// read pods and their metrics only there (hack/cluster up --metrics), and
// compares them with kubectl top pod -n as viewer; all namespaces are
// forbidden to it, to the package as to kubectl.
func TestNamespaceAsViewer(t *testing.T) {
	c := framework.Current(t)
	startWorkloads(t)
	const namespace = "team-a"
	client, err := usage.NewClient(c.ViewerConfig())
	if err != nil {
		t.Fatal(err)
	}
	config := usage.Config{Pods: true, Namespace: namespace}
	var inNamespace int
	for key := range pods(t) {
		if strings.HasPrefix(key, namespace+"/") {
			inNamespace++
		}
	}
	deadline := time.Now().Add(rolloutTimeout)
	for attempt := 1; ; attempt++ {
		before, err := usage.Fetch(context.Background(), client, config)
		if err != nil {
			t.Fatalf("Fetch(%s, as viewer) error = %v", namespace, err)
		}
		if len(before.Pods) < inNamespace {
			if time.Now().After(deadline) {
				t.Fatalf("after %s the metrics API has %s; want samples of the %d pods in %s", rolloutTimeout, describe(before), inNamespace, namespace)
			}
			time.Sleep(time.Second)
			continue
		}
		r := framework.Run(t, framework.Cmd{Args: []string{"top", "pod", "-n", namespace, "--no-headers"}, Kubeconfig: c.ViewerKubeconfig()})
		if r.ExitCode != 0 {
			t.Fatalf("kubectl top pod -n %s as viewer: %s", namespace, r)
		}
		after, err := usage.Fetch(context.Background(), client, config)
		if err != nil {
			t.Fatalf("Fetch(%s, as viewer) error = %v", namespace, err)
		}
		if !after.SameSamples(before) {
			if attempt == 5 {
				t.Fatalf("a new sample came while kubectl read, %d times", attempt)
			}
			continue
		}
		comparePods(t, before, r.Stdout, namespace)
		break
	}

	_, err = usage.Fetch(context.Background(), client, usage.Config{Pods: true})
	if !apierrors.IsForbidden(err) {
		t.Errorf("Fetch(all namespaces, as viewer) error = %v, want Forbidden", err)
	}
	if r := framework.Run(t, framework.Cmd{Args: []string{"top", "pod", "-A"}, Kubeconfig: c.ViewerKubeconfig()}); r.ExitCode == 0 || !strings.Contains(r.Stderr, "forbidden") {
		t.Errorf("kubectl top pod -A as viewer: %s; want forbidden", r)
	}
}

func TestGPUNodes(t *testing.T) {
	c := framework.Current(t)
	nodeList, err := c.AdminClient().CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodeList.Items {
		i, err := strconv.Atoi(strings.TrimPrefix(n.Name, "kwok-node-"))
		if err != nil {
			continue
		}
		want := int64(0)
		if i%2 == 1 {
			want = gpus
		}
		got := n.Status.Allocatable["nvidia.com/gpu"]
		if got.Value() != want {
			t.Errorf("node %s: nvidia.com/gpu allocatable %s, want %d", n.Name, got.String(), want)
		}
	}
}

func TestNoMetricsAPI(t *testing.T) {
	other := framework.StartCluster(t)
	client, err := usage.NewClient(other.AdminConfig())
	if err != nil {
		t.Fatal(err)
	}
	_, fetchErr := usage.Fetch(context.Background(), client, usage.Config{Pods: true, Nodes: true})
	if !errors.Is(fetchErr, usage.ErrMetricsAPINotAvailable) {
		t.Fatalf("Fetch() error = %v, want ErrMetricsAPINotAvailable", fetchErr)
	}
	for _, args := range [][]string{{"top", "pod", "-A"}, {"top", "node"}} {
		r := framework.Run(t, framework.Cmd{Args: args, Kubeconfig: other.AdminKubeconfig()})
		if r.ExitCode == 0 {
			t.Fatalf("kubectl %s on a cluster without metrics-server succeeded: %s", strings.Join(args, " "), r)
		}
		if got, want := strings.TrimSpace(r.Stderr), "error: "+fetchErr.Error(); got != want {
			t.Errorf("kubectl %s says %q; the package %q", strings.Join(args, " "), got, want)
		}
	}

	poller, err := usage.NewPoller(client, usage.Config{Pods: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	changed := poller.Changed()
	go func() { stopped <- poller.Run(ctx) }()
	select {
	case <-changed:
	case <-time.After(time.Minute):
		t.Fatal("the Poller made no reading within a minute")
	}
	if s, err := poller.Latest(); s != nil || !errors.Is(err, usage.ErrMetricsAPINotAvailable) {
		t.Errorf("Latest() = %v, %v, want no snapshot and ErrMetricsAPINotAvailable", s, err)
	}
	cancel()
	if err := <-stopped; err != nil {
		t.Errorf("Run() = %v, want nil", err)
	}
}
