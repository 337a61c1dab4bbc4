package gpus

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

const (
	gpu       = corev1.ResourceName("nvidia.com/gpu")
	namespace = "gpu-a"
	zoneLabel = "topology.kubernetes.io/zone"
)

// workloads: a Deployment of one one-GPU trainer, a pod whose init
// container asks for two GPUs and its app container for one (the
// scheduler counts two, so it needs a node with both GPUs free), a
// Deployment without GPUs, and a pod asking for more GPUs than any node
// has, left pending.
const workloads = `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: train
  namespace: gpu-a
spec:
  replicas: 1
  selector:
    matchLabels: {app: train}
  template:
    metadata:
      labels: {app: train}
    spec:
      containers:
      - name: train
        image: registry.example.com/train:v1
        resources:
          requests: {cpu: 500m, nvidia.com/gpu: "1"}
          limits: {nvidia.com/gpu: "1"}
---
apiVersion: v1
kind: Pod
metadata:
  name: warm-up
  namespace: gpu-a
spec:
  initContainers:
  - name: load
    image: registry.example.com/load:v1
    resources:
      requests: {nvidia.com/gpu: "2"}
      limits: {nvidia.com/gpu: "2"}
  containers:
  - name: serve
    image: registry.example.com/serve:v1
    resources:
      requests: {nvidia.com/gpu: "1"}
      limits: {nvidia.com/gpu: "1"}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: gpu-a
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: registry.example.com/web:v1
        resources:
          requests: {cpu: 250m}
---
apiVersion: v1
kind: Pod
metadata:
  name: too-many
  namespace: gpu-a
spec:
  containers:
  - name: big
    image: registry.example.com/big:v1
    resources:
      requests: {nvidia.com/gpu: "8"}
      limits: {nvidia.com/gpu: "8"}
`

// setUp creates the workloads through the real kubectl and waits until the
// controllers, the scheduler and kwok are done with them.
func setUp(t *testing.T) {
	t.Helper()
	c := framework.Current(t)
	framework.CreateNamespace(t, c.AdminClient(), namespace)
	if r := framework.Run(t, framework.Cmd{Args: []string{"apply", "-f", "-"}, Stdin: workloads}); r.ExitCode != 0 {
		t.Fatalf("kubectl apply: %s", r)
	}
	timeout := "--timeout=" + rolloutTimeout.String()
	kubectl(t, "rollout", "status", "deployment/train", "-n", namespace, timeout)
	kubectl(t, "rollout", "status", "deployment/web", "-n", namespace, timeout)
	kubectl(t, "wait", "pod/warm-up", "-n", namespace, "--for=condition=Ready", timeout)
	kubectl(t, "wait", "pod/too-many", "-n", namespace, "--for=condition=PodScheduled=false", timeout)
}

// gpuRequest is the GPUs the scheduler counts for pod by the documented
// rule for pods without sidecars or overhead (the workloads have neither):
// the larger of the app containers' sum and the largest init container; a
// Succeeded or Failed pod holds nothing.
func gpuRequest(p *corev1.Pod) int64 {
	if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
		return 0
	}
	var apps, inits int64
	for _, c := range p.Spec.Containers {
		q := c.Resources.Requests[gpu]
		apps += q.Value()
	}
	for _, c := range p.Spec.InitContainers {
		q := c.Resources.Requests[gpu]
		inits = max(inits, q.Value())
	}
	return max(apps, inits)
}

// gpuRow is the expected GPU columns of one row.
type gpuRow struct{ requested, allocatable int64 }

// expected returns the expected GPU rows from `kubectl get nodes,pods -o
// json`, keyed by node name, or by the nodes' zone when byZone, with the
// totals row under "TOTAL".
func expected(t *testing.T, byZone bool) map[string]*gpuRow {
	t.Helper()
	var nodeList corev1.NodeList
	if err := json.Unmarshal([]byte(kubectl(t, "get", "nodes", "-o", "json")), &nodeList); err != nil {
		t.Fatalf("decoding kubectl get nodes -o json: %v", err)
	}
	var podList corev1.PodList
	if err := json.Unmarshal([]byte(kubectl(t, "get", "pods", "-A", "-o", "json")), &podList); err != nil {
		t.Fatalf("decoding kubectl get pods -A -o json: %v", err)
	}
	rows := map[string]*gpuRow{"TOTAL": {}}
	rowOfNode := map[string]*gpuRow{}
	for _, n := range nodeList.Items {
		key := n.Name
		if byZone {
			key = n.Labels[zoneLabel]
		}
		r := rows[key]
		if r == nil {
			r = &gpuRow{}
			rows[key] = r
		}
		q := n.Status.Allocatable[gpu]
		r.allocatable += q.Value()
		rows["TOTAL"].allocatable += q.Value()
		rowOfNode[n.Name] = r
	}
	for i := range podList.Items {
		p := &podList.Items[i]
		r := rowOfNode[p.Spec.NodeName]
		if r == nil { // pending: on no node
			continue
		}
		r.requested += gpuRequest(p)
		rows["TOTAL"].requested += gpuRequest(p)
	}
	return rows
}

// capacityJSON is capacity -o json.
type capacityJSON struct {
	Columns []string                     `json:"columns"`
	Rows    []map[string]json.RawMessage `json:"rows"`
	Total   map[string]json.RawMessage   `json:"total"`
}

func decode(t *testing.T, r framework.Result) capacityJSON {
	t.Helper()
	var c capacityJSON
	if err := json.Unmarshal([]byte(r.Stdout), &c); err != nil {
		t.Fatalf("decoding capacity -o json: %v\n%s", err, r.Stdout)
	}
	return c
}

// cellValue reads a --resource cell, a quantity string, as an integer.
func cellValue(t *testing.T, where string, raw json.RawMessage) int64 {
	t.Helper()
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("%s: %s is not a quantity string: %v", where, raw, err)
	}
	q, err := resource.ParseQuantity(s)
	if err != nil {
		t.Fatalf("%s: %q is not a quantity: %v", where, s, err)
	}
	return q.Value()
}

// shareUsed reads the used quantity of a --sum cell as an integer.
func shareUsed(t *testing.T, where string, raw json.RawMessage) int64 {
	t.Helper()
	var share struct {
		Used string `json:"used"`
	}
	if err := json.Unmarshal(raw, &share); err != nil {
		t.Fatalf("%s: %s is not a share: %v", where, raw, err)
	}
	q, err := resource.ParseQuantity(share.Used)
	if err != nil {
		t.Fatalf("%s: %q is not a quantity: %v", where, share.Used, err)
	}
	return q.Value()
}

// rowsOf returns got's rows and totals keyed by their first column.
func rowsOf(got capacityJSON) map[string]map[string]json.RawMessage {
	out := map[string]map[string]json.RawMessage{"TOTAL": got.Total}
	for _, r := range got.Rows {
		var name string
		_ = json.Unmarshal(r[got.Columns[0]], &name)
		out[name] = r
	}
	return out
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// checkGPUColumns compares the GPU columns of every row with want: the same
// rows, nodes without GPUs included, and requested, allocatable and free
// equal to the test's sums.
func checkGPUColumns(t *testing.T, args string, got capacityJSON, want map[string]*gpuRow) {
	t.Helper()
	rows := rowsOf(got)
	if strings.Join(keys(rows), ",") != strings.Join(keys(want), ",") {
		t.Fatalf("capacity %s: rows %q, want %q (every node listed, with or without GPUs)", args, keys(rows), keys(want))
	}
	for name, w := range want {
		r := rows[name]
		for col, wantValue := range map[string]int64{
			"nvidia.com/gpu.requested":   w.requested,
			"nvidia.com/gpu.allocatable": w.allocatable,
			"nvidia.com/gpu.free":        w.allocatable - w.requested,
		} {
			where := "capacity " + args + ": row " + name + " column " + col
			raw, ok := r[col]
			if !ok {
				t.Errorf("%s: missing", where)
				continue
			}
			if v := cellValue(t, where, raw); v != wantValue {
				t.Errorf("%s = %d, want %d", where, v, wantValue)
			}
		}
	}
}

func TestCapacityGPUs(t *testing.T) {
	setUp(t)

	t.Run("per node", func(t *testing.T) {
		want := expected(t, false)
		var withGPUs, without int
		for name, w := range want {
			switch {
			case name == "TOTAL":
			case w.allocatable > 0:
				withGPUs++
			default:
				without++
			}
		}
		if withGPUs == 0 || without == 0 || want["TOTAL"].requested == 0 {
			t.Fatalf("the cluster should have nodes with and without GPUs, and GPUs requested: %+v", want)
		}
		got := decode(t, informer(t, "capacity", "--resource", "nvidia.com/gpu", "-o", "json"))
		checkGPUColumns(t, "--resource nvidia.com/gpu", got, want)
	})

	t.Run("per zone", func(t *testing.T) {
		want := expected(t, true)
		got := decode(t, informer(t, "capacity", "--resource", "nvidia.com/gpu", "--group-by", "label:"+zoneLabel, "-o", "json"))
		checkGPUColumns(t, "--resource nvidia.com/gpu --group-by zone", got, want)
	})

	t.Run("resource glob", func(t *testing.T) {
		want := expected(t, false)
		got := decode(t, informer(t, "capacity", "--resource", "nvidia.com/*", "-o", "json"))
		checkGPUColumns(t, "--resource nvidia.com/*", got, want)
	})

	t.Run("sum glob", func(t *testing.T) {
		want := expected(t, false)
		r := informer(t, "capacity", "--sum", "requests.nvidia.com/*", "--sum", "limits.amd.com/*", "-o", "json")
		got := decode(t, r)
		if n := len(got.Columns); n == 0 || got.Columns[n-1] != "requests.nvidia.com/gpu" || strings.Contains(strings.Join(got.Columns, ","), "amd.com") {
			t.Errorf("capacity --sum requests.nvidia.com/* --sum limits.amd.com/*: columns %q, want requests.nvidia.com/gpu last and no amd.com column", got.Columns)
		}
		if note := "limits.amd.com/* matches no resource"; strings.Count(r.Stderr, note) != 1 {
			t.Errorf("stderr %q, want %q said once", r.Stderr, note)
		}
		rows := rowsOf(got)
		for name, w := range want {
			where := "capacity --sum requests.nvidia.com/*: row " + name
			raw, ok := rows[name]["requests.nvidia.com/gpu"]
			if !ok {
				t.Errorf("%s: no requests.nvidia.com/gpu", where)
				continue
			}
			if v := shareUsed(t, where, raw); v != w.requested {
				t.Errorf("%s: requests.nvidia.com/gpu %d, want %d", where, v, w.requested)
			}
		}
	})

	t.Run("table", func(t *testing.T) {
		want := expected(t, false)
		r := informer(t, "capacity", "--resource", "nvidia.com/gpu")
		lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
		header := strings.Fields(lines[0])
		if n := len(header); n < 6 || strings.Join(header[n-6:], " ") != "NVIDIA.COM/GPU REQUESTED NVIDIA.COM/GPU ALLOCATABLE NVIDIA.COM/GPU FREE" {
			t.Fatalf("capacity --resource nvidia.com/gpu header %q", lines[0])
		}
		for _, line := range lines[1:] {
			cells := strings.Fields(line)
			w, ok := want[cells[0]]
			if !ok {
				t.Errorf("unexpected row %q", line)
				continue
			}
			n := len(cells)
			got := strings.Join(cells[n-3:], " ")
			if exp := strings.Join([]string{itoa(w.requested), itoa(w.allocatable), itoa(w.allocatable - w.requested)}, " "); got != exp {
				t.Errorf("row %s GPU cells %q, want %q", cells[0], got, exp)
			}
		}
		if len(lines)-1 != len(want) {
			t.Errorf("%d rows, want %d (every node and TOTAL):\n%s", len(lines)-1, len(want), r.Stdout)
		}
	})
}

func itoa(n int64) string { return resource.NewQuantity(n, resource.DecimalSI).String() }

func TestBadGlobNamesTheFlag(t *testing.T) {
	framework.SkipIfShort(t)
	for _, args := range [][]string{
		{"capacity", "--sum", "requests.nvidia.com/["},
		{"capacity", "--resource", "nvidia.com/["},
		{"query", "pods", "-A", "--sum", "requests.nvidia.com/["},
		{"query", "pods", "-A", "-w", "--sum", "requests.nvidia.com/["},
	} {
		r := framework.Run(t, framework.Cmd{Args: append([]string{"informer"}, args...)})
		flag := args[len(args)-2]
		if r.ExitCode == 0 || !strings.Contains(r.Stderr, flag+" "+args[len(args)-1]) {
			t.Errorf("kubectl informer %s: %s; want an error naming %s", strings.Join(args, " "), r, flag)
		}
	}
}
