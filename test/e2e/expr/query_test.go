package expr

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// workloads are two Deployments, one with a memory limit and one without,
// and a bare pod that requests a whole CPU.
const workloads = `apiVersion: apps/v1
kind: Deployment
metadata: {name: limited}
spec:
  replicas: 2
  selector: {matchLabels: {app: limited}}
  template:
    metadata: {labels: {app: limited}}
    spec:
      containers:
      - name: app
        image: registry.example.com/limited:v1
        resources: {requests: {cpu: 250m, memory: 64Mi}, limits: {memory: 128Mi}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: open}
spec:
  replicas: 3
  selector: {matchLabels: {app: open}}
  template:
    metadata: {labels: {app: open}}
    spec:
      containers:
      - name: app
        image: docker.io/library/open:v1
        resources: {requests: {cpu: 50m}}
      - name: sidecar
        image: registry.example.com/sidecar:v1
---
apiVersion: v1
kind: Pod
metadata: {name: big, labels: {app: big}}
spec:
  containers:
  - name: app
    image: quay.io/big/app:v1
    resources: {requests: {cpu: "1"}}
`

// setUpWorkloads creates the workloads in ns, waits for their pods to run,
// then marks one pod as restarted five times and another as not ready,
// through the status subresource, as a kubelet would.
func setUpWorkloads(t *testing.T, ns string) []corev1.Pod {
	t.Helper()
	framework.CreateNamespace(t, framework.Current(t).AdminClient(), ns)
	apply(t, ns, workloads)
	pods := waitPods(t, ns, 6)
	sort.Slice(pods, func(i, j int) bool { return pods[i].Name < pods[j].Name })
	var restarted, unready string
	for _, p := range pods {
		switch {
		case restarted == "" && strings.HasPrefix(p.Name, "open-"):
			restarted = p.Name
		case unready == "" && strings.HasPrefix(p.Name, "limited-"):
			unready = p.Name
		}
	}
	kubectl(t, "patch", "pod", restarted, "-n", ns, "--subresource=status", "--type=json",
		"-p", `[{"op":"replace","path":"/status/containerStatuses/0/restartCount","value":5}]`)
	p := pods[slices.IndexFunc(pods, func(p corev1.Pod) bool { return p.Name == unready })]
	i := slices.IndexFunc(p.Status.Conditions, func(c corev1.PodCondition) bool { return c.Type == corev1.PodReady })
	kubectl(t, "patch", "pod", unready, "-n", ns, "--subresource=status", "--type=json",
		"-p", fmt.Sprintf(`[{"op":"test","path":"/status/conditions/%d/type","value":"Ready"},{"op":"replace","path":"/status/conditions/%d/status","value":"False"}]`, i, i))
	return getPods(t, ns)
}

// TestQueryFilter runs query --filter with the conditions users ask about
// and compares each answer with the pods picked in Go from `kubectl get
// pods -o json`.
func TestQueryFilter(t *testing.T) {
	const ns = "filter"
	pods := setUpWorkloads(t, ns)

	tests := []struct {
		name   string
		filter string
		args   []string
		want   func(*corev1.Pod) bool
	}{
		{
			name:   "restarted more than 3 times",
			filter: `object.status.?containerStatuses.orValue([]).exists(s, s.restartCount > 3)`,
			want: func(p *corev1.Pod) bool {
				return slices.ContainsFunc(p.Status.ContainerStatuses, func(s corev1.ContainerStatus) bool { return s.RestartCount > 3 })
			},
		},
		{
			name:   "not ready",
			filter: `!object.status.?conditions.orValue([]).exists(c, c.type == 'Ready' && c.status == 'True')`,
			want:   func(p *corev1.Pod) bool { return !ready(p) },
		},
		{
			name:   "a container without a memory limit",
			filter: `object.spec.containers.exists(c, !has(c.resources.limits) || !('memory' in c.resources.limits))`,
			want: func(p *corev1.Pod) bool {
				return slices.ContainsFunc(p.Spec.Containers, func(c corev1.Container) bool { return c.Resources.Limits.Memory().IsZero() })
			},
		},
		{
			name:   "cpu requests above 100m, by quantity",
			filter: `object.spec.containers.exists(c, quantity(c.resources.?requests.cpu.orValue('0')).isGreaterThan(quantity('100m')))`,
			want: func(p *corev1.Pod) bool {
				limit := resource.MustParse("100m")
				return slices.ContainsFunc(p.Spec.Containers, func(c corev1.Container) bool { return c.Resources.Requests.Cpu().Cmp(limit) > 0 })
			},
		},
		{
			name:   "images not from registry.example.com",
			filter: `object.spec.containers.exists(c, !c.image.startsWith('registry.example.com/'))`,
			want: func(p *corev1.Pod) bool {
				return slices.ContainsFunc(p.Spec.Containers, func(c corev1.Container) bool {
					return !strings.HasPrefix(c.Image, "registry.example.com/")
				})
			},
		},
		{
			name:   "after an index lookup",
			filter: `object.spec.containers.size() > 1`,
			args:   []string{"--index", "label:app=open"},
			want:   func(p *corev1.Pod) bool { return p.Labels["app"] == "open" && len(p.Spec.Containers) > 1 },
		},
		{
			name:   "kind and apiVersion as the API returns them",
			filter: `object.kind == 'Pod' && object.apiVersion == 'v1'`,
			want:   func(*corev1.Pod) bool { return true },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := podNames(pods, tt.want)
			if len(want) == 0 || len(want) == len(pods) && tt.name != "kind and apiVersion as the API returns them" {
				t.Fatalf("the test's pods make %q select %d of %d pods; want some but not all", tt.name, len(want), len(pods))
			}
			r := informer(t, append([]string{"query", "pods", "-n", ns, "--filter", tt.filter, "-o", "name"}, tt.args...)...)
			if got := names(r.Stdout); !slices.Equal(got, want) {
				t.Errorf("query --filter %q = %v, want %v (from kubectl get pods -o json)", tt.filter, got, want)
			}
			if r.Stderr != "" {
				t.Errorf("query --filter %q wrote on stderr: %s", tt.filter, r.Stderr)
			}
		})
	}

	t.Run("a missing field counts as false, reported once", func(t *testing.T) {
		filter := `object.spec.containers[0].resources.limits.memory == '128Mi'`
		r := informer(t, "query", "pods", "-n", ns, "--filter", filter, "-o", "name")
		want := podNames(pods, func(p *corev1.Pod) bool { return strings.HasPrefix(p.Name, "limited-") })
		if got := names(r.Stdout); !slices.Equal(got, want) {
			t.Errorf("query --filter %q = %v, want %v", filter, got, want)
		}
		failed := len(pods) - len(want)
		lines := strings.Split(strings.TrimSpace(r.Stderr), "\n")
		wantLine := fmt.Sprintf("warning: --filter: %d objects counted as false after an evaluation error; first, on %s/", failed, ns)
		if len(lines) != 1 || !strings.HasPrefix(lines[0], wantLine) || !strings.Contains(lines[0], "no such key: limits") {
			t.Errorf("stderr = %q, want one line starting %q and naming the missing key", r.Stderr, wantLine)
		}
	})
}

// TestComputedIndex defines indexes by CEL and uses them in --group-by,
// --index and --sort-by, comparing with values computed from `kubectl get
// pods -o json`.
func TestComputedIndex(t *testing.T) {
	const ns = "computed"
	pods := setUpWorkloads(t, ns)

	memoryLimit := `memory=object.spec.containers.map(c, c.?resources.?limits.memory.orValue('none'))`
	wantCounts := map[string]int{}
	for _, p := range pods {
		seen := map[string]bool{}
		for _, c := range p.Spec.Containers {
			v := "none"
			if q, ok := c.Resources.Limits[corev1.ResourceMemory]; ok {
				v = q.String()
			}
			if !seen[v] {
				seen[v] = true
				wantCounts[v]++
			}
		}
	}
	r := informer(t, "query", "pods", "-n", ns, "--indexer", memoryLimit, "--group-by", "memory", "--no-headers")
	if got := parseCounts(t, r.Stdout); !mapsEqual(got, wantCounts) {
		t.Errorf("--group-by memory = %v, want %v (from kubectl get pods -o json)\n%s", got, wantCounts, r.Stdout)
	}

	// Grouped after a filter: only what passes is counted.
	restarts := `restarts=object.status.?containerStatuses.orValue([]).map(s, s.restartCount).sum()`
	wantRestarts := map[string]int{}
	for _, p := range pods {
		if len(p.Spec.Containers) < 2 {
			continue
		}
		var sum int32
		for _, s := range p.Status.ContainerStatuses {
			sum += s.RestartCount
		}
		wantRestarts[strconv.Itoa(int(sum))]++
	}
	r = informer(t, "query", "pods", "-n", ns, "--indexer", restarts, "--filter", "object.spec.containers.size() > 1", "--group-by", "restarts", "--no-headers")
	if got := parseCounts(t, r.Stdout); !mapsEqual(got, wantRestarts) || len(wantRestarts) != 2 {
		t.Errorf("--filter ... --group-by restarts = %v, want %v (two values)\n%s", got, wantRestarts, r.Stdout)
	}

	// Looked up by value, and sorted by another computed index.
	cpu := `cpu=object.spec.containers.map(c, quantity(c.resources.?requests.cpu.orValue('0')).asApproximateFloat() * 1000.0).sum()`
	r = informer(t, "query", "pods", "-n", ns, "--indexer", cpu, "--sort-by", "cpu", "-o", "name")
	milli := func(p corev1.Pod) int64 {
		var m int64
		for _, c := range p.Spec.Containers {
			m += c.Resources.Requests.Cpu().MilliValue()
		}
		return m
	}
	got := strings.Fields(r.Stdout)
	if len(got) != len(pods) || got[len(got)-1] != "pod/big" || !strings.HasPrefix(got[0], "pod/open-") {
		t.Errorf("--sort-by cpu = %v, want every pod, open-* (50m) first and big (1 CPU) last", got)
	}
	for i := 1; i < len(got); i++ {
		if a, b := podMilli(pods, got[i-1], milli), podMilli(pods, got[i], milli); a > b {
			t.Errorf("--sort-by cpu: %s (%dm) before %s (%dm)", got[i-1], a, got[i], b)
		}
	}
	r = informer(t, "query", "pods", "-n", ns, "--indexer", memoryLimit, "--index", "memory=128Mi", "-o", "name")
	want := podNames(pods, func(p *corev1.Pod) bool { return strings.HasPrefix(p.Name, "limited-") })
	if got := names(r.Stdout); !slices.Equal(got, want) {
		t.Errorf("--index memory=128Mi = %v, want %v", got, want)
	}
}

func podMilli(pods []corev1.Pod, name string, milli func(corev1.Pod) int64) int64 {
	for _, p := range pods {
		if "pod/"+p.Name == name {
			return milli(p)
		}
	}
	return -1
}

// parseCounts reads a VALUE COUNT table printed with --no-headers.
func parseCounts(t *testing.T, out string) map[string]int {
	t.Helper()
	counts := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			t.Fatalf("group-by line %q: want VALUE COUNT", line)
		}
		n, err := strconv.Atoi(f[1])
		if err != nil {
			t.Fatalf("group-by line %q: %v", line, err)
		}
		counts[f[0]] = n
	}
	return counts
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
