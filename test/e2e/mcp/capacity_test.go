package mcp

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// zoneLabel is the node label the grouped capacity adds nodes up by.
const zoneLabel = "topology.kubernetes.io/zone"

// gpuResource is the extended resource of the GPU nodes.
const gpuResource corev1.ResourceName = "nvidia.com/gpu"

// withGPU adds one GPU to r's requests and limits (an extended resource's
// requests must equal its limits).
func withGPU(r corev1.ResourceRequirements) corev1.ResourceRequirements {
	r.Requests[gpuResource], r.Limits[gpuResource] = resource.MustParse("1"), resource.MustParse("1")
	return r
}

var capacityOnce sync.Once

// capacityCluster seeds the pods and gives them nodes: node-0 to node-3
// (the seeded pods' nodes) of two shapes in two zones, the odd ones with
// two GPUs, and in namespace m-capacity a pod whose init container asks
// more than its app container (which asks a GPU), a Succeeded pod and an
// unscheduled one.
func capacityCluster(t *testing.T) *framework.Cluster {
	t.Helper()
	c := seed(t)
	capacityOnce.Do(func() {
		cs := c.AdminClient()
		for i := range 4 {
			cpu, memory := "1930m", "7484Mi"
			if i%2 == 1 {
				cpu, memory = "3920m", "15148Mi"
			}
			alloc := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory), corev1.ResourcePods: resource.MustParse("110")}
			if i%2 == 1 {
				alloc[gpuResource] = resource.MustParse("2")
			}
			node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("node-%d", i), Labels: map[string]string{zoneLabel: fmt.Sprintf("zone-%c", 'a'+i%2)}}}
			created, err := cs.CoreV1().Nodes().Create(t.Context(), node, metav1.CreateOptions{})
			if err != nil {
				t.Fatalf("creating node %s: %v", node.Name, err)
			}
			created.Status.Capacity, created.Status.Allocatable = alloc, alloc
			if _, err := cs.CoreV1().Nodes().UpdateStatus(t.Context(), created, metav1.UpdateOptions{}); err != nil {
				t.Fatalf("setting the allocatable of node %s: %v", node.Name, err)
			}
		}
		const ns = "m-capacity"
		framework.CreateNamespace(t, cs, ns)
		resources := func(cpu, memory string) corev1.ResourceRequirements {
			return corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory)},
				Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(memory)}}
		}
		pods := []*corev1.Pod{
			{ObjectMeta: metav1.ObjectMeta{Name: "init-heavy", Namespace: ns}, Spec: corev1.PodSpec{NodeName: "node-1",
				InitContainers: []corev1.Container{{Name: "migrate", Image: "registry.example.com/migrate:v1", Resources: resources("700m", "64Mi")}},
				Containers:     []corev1.Container{{Name: "app", Image: "registry.example.com/app:v1", Resources: withGPU(resources("100m", "256Mi"))}}}},
			{ObjectMeta: metav1.ObjectMeta{Name: "done", Namespace: ns}, Spec: corev1.PodSpec{NodeName: "node-2",
				Containers: []corev1.Container{{Name: "app", Image: "registry.example.com/app:v1", Resources: resources("1", "1Gi")}}}},
			{ObjectMeta: metav1.ObjectMeta{Name: "pending", Namespace: ns}, Spec: corev1.PodSpec{
				Containers: []corev1.Container{{Name: "app", Image: "registry.example.com/app:v1", Resources: resources("1", "1Gi")}}}},
		}
		for _, p := range pods {
			created, err := cs.CoreV1().Pods(ns).Create(t.Context(), p, metav1.CreateOptions{})
			if err != nil && !apierrors.IsAlreadyExists(err) {
				t.Fatal(err)
			}
			if p.Name == "done" && err == nil {
				created.Status.Phase = corev1.PodSucceeded
				if _, err := cs.CoreV1().Pods(ns).UpdateStatus(t.Context(), created, metav1.UpdateOptions{}); err != nil {
					t.Fatal(err)
				}
			}
		}
	})
	return c
}

// nodeUse is what the test expects of one capacity row: its pods and
// their CPU requests and memory limits, and the allocatable of its nodes.
type nodeUse struct {
	nodes                 int64
	pods                  int64
	requestsCPU, limitMem resource.Quantity
	allocCPU, allocMem    resource.Quantity
	allocPods             int64
	requestsGPU, allocGPU resource.Quantity
}

// expectedCapacity computes capacity from kubectl get nodes,pods -o json by
// the scheduler's rules (podRequests), per node and per value of the node
// label groupLabel when it is set, and the pods bound to no node.
func expectedCapacity(t *testing.T, groupLabel string) (rows map[string]*nodeUse, unscheduled int64) {
	t.Helper()
	r := framework.Kubectl(t, t.Context(), "get", "nodes,pods", "-A", "-o", "json")
	if r.ExitCode != 0 {
		t.Fatalf("kubectl get nodes,pods: %s", r)
	}
	var list struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &list); err != nil {
		t.Fatalf("decoding kubectl get nodes,pods: %v", err)
	}
	rows = map[string]*nodeUse{}
	rowOf := map[string]string{}
	var pods []corev1.Pod
	for _, raw := range list.Items {
		var kind struct {
			Kind string `json:"kind"`
		}
		_ = json.Unmarshal(raw, &kind)
		switch kind.Kind {
		case "Node":
			var n corev1.Node
			if err := json.Unmarshal(raw, &n); err != nil {
				t.Fatal(err)
			}
			key := n.Name
			if groupLabel != "" {
				key = n.Labels[groupLabel]
			}
			rowOf[n.Name] = key
			u := rows[key]
			if u == nil {
				u = &nodeUse{}
				rows[key] = u
			}
			u.nodes++
			u.allocCPU.Add(n.Status.Allocatable[corev1.ResourceCPU])
			u.allocMem.Add(n.Status.Allocatable[corev1.ResourceMemory])
			u.allocPods += n.Status.Allocatable.Pods().Value()
			u.allocGPU.Add(n.Status.Allocatable[gpuResource])
		case "Pod":
			var p corev1.Pod
			if err := json.Unmarshal(raw, &p); err != nil {
				t.Fatal(err)
			}
			pods = append(pods, p)
		}
	}
	for i := range pods {
		p := &pods[i]
		if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		if p.Spec.NodeName == "" {
			unscheduled++
			continue
		}
		u := rows[rowOf[p.Spec.NodeName]]
		if u == nil {
			t.Fatalf("pod %s/%s is bound to node %s, which is not listed", p.Namespace, p.Name, p.Spec.NodeName)
		}
		u.pods++
		u.requestsCPU.Add(podRequests(p, false)[corev1.ResourceCPU])
		u.limitMem.Add(podRequests(p, true)[corev1.ResourceMemory])
		u.requestsGPU.Add(podRequests(p, false)[gpuResource])
	}
	return rows, unscheduled
}

// podRequests is what the scheduler counts of a pod that is neither
// Succeeded nor Failed: the larger of its app containers' (and sidecars')
// sum and each init container's (with the sidecars started before it),
// plus pod overhead; limits when limits is true.
func podRequests(pod *corev1.Pod, limits bool) corev1.ResourceList {
	of := func(c *corev1.Container) corev1.ResourceList {
		if limits {
			return c.Resources.Limits
		}
		return c.Resources.Requests
	}
	add := func(into, list corev1.ResourceList) {
		for name, q := range list {
			sum := into[name].DeepCopy()
			sum.Add(q)
			into[name] = sum
		}
	}
	maxInto := func(into, list corev1.ResourceList) {
		for name, q := range list {
			if have, ok := into[name]; !ok || q.Cmp(have) > 0 {
				into[name] = q.DeepCopy()
			}
		}
	}
	total, initMax, sidecars := corev1.ResourceList{}, corev1.ResourceList{}, corev1.ResourceList{}
	for i := range pod.Spec.Containers {
		add(total, of(&pod.Spec.Containers[i]))
	}
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			add(total, of(c))
			add(sidecars, of(c))
			maxInto(initMax, sidecars)
			continue
		}
		running := corev1.ResourceList{}
		add(running, sidecars)
		add(running, of(c))
		maxInto(initMax, running)
	}
	maxInto(total, initMax)
	for name, q := range pod.Spec.Overhead {
		if _, set := total[name]; limits && !set {
			continue
		}
		add(total, corev1.ResourceList{name: q})
	}
	return total
}

// capacityOutput is the capacity tool's structured content.
type capacityOutput struct {
	Contexts []struct {
		Error           string                       `json:"error"`
		NamespaceScope  string                       `json:"namespaceScope"`
		GroupBy         string                       `json:"groupBy"`
		NodesListed     bool                         `json:"nodesListed"`
		Rows            []map[string]json.RawMessage `json:"rows"`
		Total           map[string]json.RawMessage   `json:"total"`
		TotalRows       int                          `json:"totalRows"`
		UnscheduledPods int64                        `json:"unscheduledPods"`
	} `json:"contexts"`
	Cut json.RawMessage `json:"cut"`
}

// share is one cell of a capacity row.
type share struct {
	Used        any    `json:"used"`
	Allocatable any    `json:"allocatable"`
	Percent     *int64 `json:"percent"`
}

// checkCapacityShare compares a row's cell column with used of
// allocatable and its percentage, rounded down.
func checkCapacityShare(t *testing.T, where, column string, raw json.RawMessage, used, allocatable resource.Quantity) {
	t.Helper()
	var got share
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatalf("%s %s = %s: %v", where, column, raw, err)
	}
	quantity := func(v any) resource.Quantity {
		q, err := resource.ParseQuantity(fmt.Sprint(v))
		if err != nil {
			t.Fatalf("%s %s: %v is not a quantity: %v", where, column, v, err)
		}
		return q
	}
	if q := quantity(got.Used); q.Cmp(used) != 0 {
		t.Errorf("%s %s used = %s, want %s", where, column, q.String(), used.String())
	}
	if got.Allocatable == nil || got.Percent == nil {
		t.Errorf("%s %s = %s, want allocatable %s and a percent", where, column, raw, allocatable.String())
		return
	}
	if q := quantity(got.Allocatable); q.Cmp(allocatable) != 0 {
		t.Errorf("%s %s allocatable = %s, want %s", where, column, q.String(), allocatable.String())
	}
	if want := used.MilliValue() * 100 / allocatable.MilliValue(); *got.Percent != want {
		t.Errorf("%s %s percent = %d, want %d", where, column, *got.Percent, want)
	}
}

func TestCapacity(t *testing.T) {
	c := capacityCluster(t)
	cs := mcpServer(t, c.AdminKubeconfig())
	for _, groupLabel := range []string{"", zoneLabel} {
		name, args, key := "per node", map[string]any{}, "node"
		if groupLabel != "" {
			name, args, key = "per zone", map[string]any{"groupBy": "label:" + groupLabel}, "label:"+groupLabel
		}
		t.Run(name, func(t *testing.T) {
			want, unscheduled := expectedCapacity(t, groupLabel)
			res, structured := call(t, cs, "capacity", args)
			if res.IsError {
				t.Fatalf("capacity is an error: %s", textOf(res))
			}
			var out capacityOutput
			if err := json.Unmarshal([]byte(structured), &out); err != nil || len(out.Contexts) != 1 {
				t.Fatalf("capacity = %s (%v), want one context", structured, err)
			}
			a := out.Contexts[0]
			if !a.NodesListed || a.GroupBy != key || !strings.Contains(a.NamespaceScope, "all namespaces") {
				t.Errorf("capacity = nodesListed %v, groupBy %q, namespaceScope %q; want the nodes listed, by %s, pods of all namespaces", a.NodesListed, a.GroupBy, a.NamespaceScope, key)
			}
			if a.UnscheduledPods != unscheduled {
				t.Errorf("unscheduledPods = %d, want %d", a.UnscheduledPods, unscheduled)
			}
			var got, wantKeys []string
			for k := range want {
				wantKeys = append(wantKeys, k)
			}
			total := &nodeUse{}
			for _, row := range a.Rows {
				var k string
				_ = json.Unmarshal(row[key], &k)
				got = append(got, k)
				w := want[k]
				if w == nil {
					continue
				}
				var pods share
				_ = json.Unmarshal(row["pods"], &pods)
				if fmt.Sprint(pods.Used) != fmt.Sprint(w.pods) || fmt.Sprint(pods.Allocatable) != fmt.Sprint(w.allocPods) {
					t.Errorf("%s pods = %s, want %d of %d", k, row["pods"], w.pods, w.allocPods)
				}
				if groupLabel != "" && string(row["nodes"]) != fmt.Sprint(w.nodes) {
					t.Errorf("%s nodes = %s, want %d", k, row["nodes"], w.nodes)
				}
				checkCapacityShare(t, k, "requests.cpu", row["requests.cpu"], w.requestsCPU, w.allocCPU)
				checkCapacityShare(t, k, "limits.memory", row["limits.memory"], w.limitMem, w.allocMem)
				total.requestsCPU.Add(w.requestsCPU)
				total.allocCPU.Add(w.allocCPU)
			}
			slices.Sort(got)
			slices.Sort(wantKeys)
			if !slices.Equal(got, wantKeys) || a.TotalRows != len(wantKeys) {
				t.Errorf("capacity rows = %v (totalRows %d), want %v (kubectl get nodes,pods -o json)", got, a.TotalRows, wantKeys)
			}
			checkCapacityShare(t, "TOTAL", "requests.cpu", a.Total["requests.cpu"], total.requestsCPU, total.allocCPU)
			if text := textOf(res); !strings.Contains(text, "TOTAL") || !strings.Contains(text, "REQUESTS.CPU") {
				t.Errorf("text form = %q, want the table with its total", text)
			}
		})
	}
	// The fullest node by CPU requests first, and only it.
	want, _ := expectedCapacity(t, "")
	var fullest string
	for name, u := range want {
		if fullest == "" || u.requestsCPU.MilliValue()*1000/u.allocCPU.MilliValue() > want[fullest].requestsCPU.MilliValue()*1000/want[fullest].allocCPU.MilliValue() {
			fullest = name
		}
	}
	res, structured := call(t, cs, "capacity", map[string]any{"sortBy": "requests.cpu", "top": 1})
	var out capacityOutput
	if err := json.Unmarshal([]byte(structured), &out); err != nil || res.IsError || len(out.Contexts) != 1 || len(out.Contexts[0].Rows) != 1 {
		t.Fatalf("capacity top 1 = %s (%v), want one row", structured, err)
	}
	if got := string(out.Contexts[0].Rows[0]["node"]); got != fmt.Sprintf("%q", fullest) {
		t.Errorf("capacity sorted by requests.cpu, top 1 = %s, want %s", got, fullest)
	}
}

func TestCapacityOverBudgetIsCut(t *testing.T) {
	c := capacityCluster(t)
	cs := mcpServer(t, c.AdminKubeconfig(), "--max-result-tokens", "400")
	res, structured := call(t, cs, "capacity", nil)
	if res.IsError {
		t.Fatalf("capacity is an error: %s", textOf(res))
	}
	var out capacityOutput
	if err := json.Unmarshal([]byte(structured), &out); err != nil || len(out.Contexts) != 1 {
		t.Fatalf("capacity = %s (%v)", structured, err)
	}
	if out.Cut == nil || len(out.Contexts[0].Rows) >= out.Contexts[0].TotalRows {
		t.Errorf("capacity over budget = %s, want fewer rows than totalRows and a cut", structured)
	}
	if size := len(structured) + len(textOf(res)); size > 400*4 {
		t.Errorf("result of %d bytes, want at most 1600 (400 tokens of 4 bytes)", size)
	}
}

// TestCapacityResource asks for GPUs requested, allocatable and free per
// node and per zone; nodes without GPUs are rows with zeros.
func TestCapacityResource(t *testing.T) {
	c := capacityCluster(t)
	cs := mcpServer(t, c.AdminKubeconfig())
	for _, groupLabel := range []string{"", zoneLabel} {
		args, key := map[string]any{"resources": []string{"nvidia.com/*"}}, "node"
		if groupLabel != "" {
			args["groupBy"], key = "label:"+groupLabel, "label:"+groupLabel
		}
		want, _ := expectedCapacity(t, groupLabel)
		res, structured := call(t, cs, "capacity", args)
		var out capacityOutput
		if err := json.Unmarshal([]byte(structured), &out); err != nil || res.IsError || len(out.Contexts) != 1 {
			t.Fatalf("capacity %v = %s %s (%v), want one context", args, structured, textOf(res), err)
		}
		rows := out.Contexts[0].Rows
		if len(rows) != len(want) {
			t.Errorf("capacity %v has %d rows, want %d (every node, GPUs or not)", args, len(rows), len(want))
		}
		for _, row := range rows {
			var k string
			_ = json.Unmarshal(row[key], &k)
			w := want[k]
			if w == nil {
				t.Errorf("capacity %v has a row %q that kubectl get nodes does not", args, k)
				continue
			}
			free := w.allocGPU.DeepCopy()
			free.Sub(w.requestsGPU)
			for column, q := range map[string]resource.Quantity{"requested": w.requestsGPU, "allocatable": w.allocGPU, "free": free} {
				name := string(gpuResource) + "." + column
				var v any
				if err := json.Unmarshal(row[name], &v); err != nil {
					t.Errorf("%s %s = %s: %v (row %v)", k, name, row[name], err, row)
					continue
				}
				got, err := resource.ParseQuantity(fmt.Sprint(v))
				if err != nil || got.Cmp(q) != 0 {
					t.Errorf("%s %s = %v, want %s (kubectl get nodes,pods -o json)", k, name, v, q.String())
				}
			}
		}
	}
}
