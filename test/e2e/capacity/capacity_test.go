package capacity

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// otherNamespace holds the second half of the workloads; the first is in
// team-a, the namespace whose pods the cluster's viewer may read.
const otherNamespace = "cap-b"

// workloads are what the scheduler has to count: in team-a a Deployment
// with requests and limits, a pod whose init container asks for more than
// its app container, and a pod with a sidecar (a restartable init
// container) followed by an init container; in cap-b a Deployment of
// two-container pods with a RuntimeClass whose overhead admission adds, and
// with a CPU limit on one container only, a Job whose completed pod holds
// nothing, and a pod too big for any node, left pending.
const workloads = `
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata:
  name: capacity-sandboxed
handler: sandboxed
overhead:
  podFixed:
    cpu: 50m
    memory: 32Mi
---
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
    spec:
      containers:
      - name: web
        image: registry.example.com/web:v1
        resources:
          requests: {cpu: 250m, memory: 256Mi}
          limits: {cpu: 500m, memory: 512Mi}
---
apiVersion: v1
kind: Pod
metadata:
  name: big-init
  namespace: team-a
spec:
  initContainers:
  - name: migrate
    image: registry.example.com/migrate:v1
    resources:
      requests: {cpu: "1", memory: 1Gi}
      limits: {cpu: "1", memory: 1Gi}
  containers:
  - name: app
    image: registry.example.com/app:v1
    resources:
      requests: {cpu: 100m, memory: 128Mi}
      limits: {cpu: 200m, memory: 256Mi}
---
apiVersion: v1
kind: Pod
metadata:
  name: with-sidecar
  namespace: team-a
spec:
  initContainers:
  - name: proxy
    image: registry.example.com/proxy:v1
    restartPolicy: Always
    resources:
      requests: {cpu: 100m, memory: 64Mi}
      limits: {cpu: 200m, memory: 128Mi}
  - name: setup
    image: registry.example.com/setup:v1
    resources:
      requests: {cpu: 500m, memory: 256Mi}
  containers:
  - name: app
    image: registry.example.com/app:v1
    resources:
      requests: {cpu: 200m, memory: 128Mi}
      limits: {memory: 256Mi}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
  namespace: cap-b
spec:
  replicas: 4
  selector:
    matchLabels: {app: api}
  template:
    metadata:
      labels: {app: api}
    spec:
      runtimeClassName: capacity-sandboxed
      containers:
      - name: api
        image: registry.example.com/api:v1
        resources:
          requests: {cpu: 300m, memory: 200Mi}
          limits: {memory: 300Mi}
      - name: log
        image: registry.example.com/log:v1
        resources:
          requests: {cpu: 20m, memory: 16Mi, ephemeral-storage: 1Gi}
          limits: {cpu: 50m, memory: 32Mi}
---
apiVersion: batch/v1
kind: Job
metadata:
  name: report
  namespace: cap-b
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: report
        image: registry.example.com/report:v1
        resources:
          requests: {cpu: "1", memory: 2Gi}
          limits: {cpu: "1", memory: 2Gi}
---
apiVersion: v1
kind: Pod
metadata:
  name: too-big
  namespace: cap-b
spec:
  containers:
  - name: app
    image: registry.example.com/app:v1
    resources:
      requests: {cpu: "64", memory: 1Gi}
`

// setUp creates the workloads through the real kubectl and waits until the
// controllers, the scheduler and kwok are done with them.
func setUp(t *testing.T) {
	t.Helper()
	c := framework.Current(t)
	framework.CreateNamespace(t, c.AdminClient(), "team-a")
	framework.CreateNamespace(t, c.AdminClient(), otherNamespace)
	if r := framework.Run(t, framework.Cmd{Args: []string{"apply", "-f", "-"}, Stdin: workloads}); r.ExitCode != 0 {
		t.Fatalf("kubectl apply: %s", r)
	}
	timeout := "--timeout=" + rolloutTimeout.String()
	kubectl(t, "rollout", "status", "deployment/web", "-n", "team-a", timeout)
	kubectl(t, "rollout", "status", "deployment/api", "-n", otherNamespace, timeout)
	kubectl(t, "wait", "job/report", "-n", otherNamespace, "--for=condition=Complete", timeout)
	kubectl(t, "wait", "pod/big-init", "pod/with-sidecar", "-n", "team-a", "--for=condition=Ready", timeout)
	kubectl(t, "wait", "pod/too-big", "-n", otherNamespace, "--for=condition=PodScheduled=false", timeout)
}

// capacityJSON is capacity -o json.
type capacityJSON struct {
	GroupBy         string                       `json:"groupBy"`
	NodesListed     bool                         `json:"nodesListed"`
	Columns         []string                     `json:"columns"`
	Rows            []map[string]json.RawMessage `json:"rows"`
	Total           map[string]json.RawMessage   `json:"total"`
	UnscheduledPods int64                        `json:"unscheduledPods"`
	TerminalPods    int64                        `json:"terminalPods"`
}

// shareJSON is one share cell of capacity -o json.
type shareJSON struct {
	Used        interface{} `json:"used"`
	Allocatable interface{} `json:"allocatable"`
	Percent     *int64      `json:"percent"`
}

// resourceColumns are capacity's resource columns: the resource each sums,
// and whether of limits.
var resourceColumns = []struct {
	column string
	name   corev1.ResourceName
	limits bool
}{
	{"requests.cpu", corev1.ResourceCPU, false},
	{"limits.cpu", corev1.ResourceCPU, true},
	{"requests.memory", corev1.ResourceMemory, false},
	{"limits.memory", corev1.ResourceMemory, true},
}

// quantityOf reads a JSON number or quantity string.
func quantityOf(t *testing.T, v interface{}) resource.Quantity {
	t.Helper()
	switch v := v.(type) {
	case float64:
		return *resource.NewQuantity(int64(v), resource.DecimalSI)
	case string:
		q, err := resource.ParseQuantity(v)
		if err != nil {
			t.Fatalf("%q is not a quantity: %v", v, err)
		}
		return q
	}
	t.Fatalf("%v (%T) is not a quantity", v, v)
	panic("unreachable")
}

// checkShare compares one share cell with the expected used and allocatable
// (nil when unknown: no allocatable and no percent).
func checkShare(t *testing.T, where, column string, raw json.RawMessage, used resource.Quantity, allocatable *resource.Quantity) {
	t.Helper()
	var got shareJSON
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Errorf("%s %s: %s is not a share: %v", where, column, raw, err)
		return
	}
	if q := quantityOf(t, got.Used); q.Cmp(used) != 0 {
		t.Errorf("%s %s used = %s, want %s", where, column, q.String(), used.String())
	}
	if allocatable == nil {
		if got.Allocatable != nil || got.Percent != nil {
			t.Errorf("%s %s = %s, want no allocatable and no percent", where, column, raw)
		}
		return
	}
	if got.Allocatable == nil || got.Percent == nil {
		t.Errorf("%s %s = %s, want allocatable %s and a percent", where, column, raw, allocatable.String())
		return
	}
	if q := quantityOf(t, got.Allocatable); q.Cmp(*allocatable) != 0 {
		t.Errorf("%s %s allocatable = %s, want %s", where, column, q.String(), allocatable.String())
	}
	if want := percent(used, *allocatable); *got.Percent != want {
		t.Errorf("%s %s percent = %d, want %d (%s of %s)", where, column, *got.Percent, want, used.String(), allocatable.String())
	}
}

// checkRow compares one row of capacity -o json with the expected usage.
func checkRow(t *testing.T, where string, row map[string]json.RawMessage, want *usage, grouped bool) {
	t.Helper()
	alloc := func(name corev1.ResourceName) *resource.Quantity {
		if want.allocatable == nil {
			return nil
		}
		q := want.allocatable[name]
		return &q
	}
	if grouped {
		var n int64
		if err := json.Unmarshal(row["nodes"], &n); err != nil || n != want.nodes {
			t.Errorf("%s nodes = %s, want %d", where, row["nodes"], want.nodes)
		}
	}
	checkShare(t, where, "pods", row["pods"], *resource.NewQuantity(want.pods, resource.DecimalSI), alloc(corev1.ResourcePods))
	for _, c := range resourceColumns {
		used := want.requests[c.name]
		if c.limits {
			used = want.limits[c.name]
		}
		checkShare(t, where, c.column, row[c.column], used, alloc(c.name))
	}
}

// checkCapacityJSON runs capacity ARGS -o json and compares every row and
// the totals with rows and total.
func checkCapacityJSON(t *testing.T, got capacityJSON, rows map[string]*usage, total *usage, grouped bool) {
	t.Helper()
	key := got.GroupBy
	seen := map[string]bool{}
	for _, row := range got.Rows {
		var name string
		if err := json.Unmarshal(row[key], &name); err != nil {
			t.Fatalf("row %v has no %s: %v", row, key, err)
		}
		seen[name] = true
		want, ok := rows[name]
		if !ok {
			t.Errorf("capacity printed a row %q, want rows %v", name, keys(rows))
			continue
		}
		checkRow(t, "row "+name, row, want, grouped)
	}
	for name := range rows {
		if !seen[name] {
			t.Errorf("capacity printed no row %q", name)
		}
	}
	checkRow(t, "TOTAL", got.Total, total, grouped)
}

func keys(m map[string]*usage) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func decodeCapacity(t *testing.T, r framework.Result) capacityJSON {
	t.Helper()
	var got capacityJSON
	if err := json.Unmarshal([]byte(r.Stdout), &got); err != nil {
		t.Fatalf("decoding capacity -o json: %v\n%s", err, r.Stdout)
	}
	return got
}

func TestCapacity(t *testing.T) {
	framework.SkipIfShort(t)
	setUp(t)
	c := getCluster(t)
	var unscheduled, terminalPods int64
	for i := range c.pods {
		switch p := &c.pods[i]; {
		case terminal(p):
			terminalPods++
		case p.Spec.NodeName == "":
			unscheduled++
		}
	}
	if unscheduled == 0 || terminalPods == 0 {
		t.Fatalf("the cluster has %d pending and %d terminal pods, want the pod too big for any node and the Job's completed pod", unscheduled, terminalPods)
	}

	t.Run("per node", func(t *testing.T) {
		rows, total := c.expectedCapacity("", "", true)
		got := decodeCapacity(t, informer(t, "capacity", "-o", "json"))
		if got.GroupBy != "node" || !got.NodesListed || len(got.Rows) != nodes {
			t.Fatalf("capacity -o json: groupBy %q, nodesListed %v, %d rows; want node, true, %d rows", got.GroupBy, got.NodesListed, len(got.Rows), nodes)
		}
		if got.UnscheduledPods != unscheduled || got.TerminalPods != terminalPods {
			t.Errorf("unscheduledPods, terminalPods = %d, %d; want %d, %d", got.UnscheduledPods, got.TerminalPods, unscheduled, terminalPods)
		}
		checkCapacityJSON(t, got, rows, total, false)
		checkCapacityText(t, informer(t, "capacity").Stdout, rows, total)
	})

	t.Run("per zone", func(t *testing.T) {
		rows, total := c.expectedCapacity(corev1.LabelTopologyZone, "", true)
		if len(rows) != 3 {
			t.Fatalf("the nodes are in %d zones, want 3", len(rows))
		}
		for zone, u := range rows {
			if u.nodes != 2 {
				t.Fatalf("zone %s has %d nodes, want 2", zone, u.nodes)
			}
		}
		got := decodeCapacity(t, informer(t, "capacity", "--group-by", "label:"+corev1.LabelTopologyZone, "-o", "json"))
		checkCapacityJSON(t, got, rows, total, true)
		text := informer(t, "capacity", "--group-by", "label:"+corev1.LabelTopologyZone).Stdout
		if !strings.HasPrefix(text, "ZONE ") || !strings.Contains(strings.SplitN(text, "\n", 2)[0], " NODES ") {
			t.Errorf("capacity --group-by label:zone header, want ZONE and NODES:\n%s", text)
		}
	})

	t.Run("one namespace", func(t *testing.T) {
		rows, total := c.expectedCapacity("", otherNamespace, true)
		got := decodeCapacity(t, informer(t, "capacity", "-n", otherNamespace, "-o", "json", "--sum", "requests.ephemeral-storage"))
		checkCapacityJSON(t, got, rows, total, false)
		for _, row := range got.Rows {
			var name string
			_ = json.Unmarshal(row["node"], &name)
			want := rows[name]
			q := want.allocatable[corev1.ResourceEphemeralStorage]
			checkShare(t, "row "+name, "requests.ephemeral-storage", row["requests.ephemeral-storage"], want.requests[corev1.ResourceEphemeralStorage], &q)
		}
	})

	t.Run("selected nodes", func(t *testing.T) {
		// -l selects nodes: the m5.xlarge ones, and the pods bound there.
		const instanceType = "m5.xlarge"
		all, _ := c.expectedCapacity("", "", true)
		rows := map[string]*usage{}
		total := newUsage()
		for i := range c.nodes {
			n := &c.nodes[i]
			if n.Labels[corev1.LabelInstanceTypeStable] != instanceType {
				continue
			}
			rows[n.Name] = all[n.Name]
			total.addNode(n)
			for j := range c.pods {
				if p := &c.pods[j]; p.Spec.NodeName == n.Name && !terminal(p) {
					total.addPod(p)
				}
			}
		}
		if len(rows) == 0 {
			t.Fatalf("no node of instance type %s", instanceType)
		}
		got := decodeCapacity(t, informer(t, "capacity", "-l", corev1.LabelInstanceTypeStable+"="+instanceType, "-o", "json"))
		checkCapacityJSON(t, got, rows, total, false)
	})

	t.Run("query sums per namespace", func(t *testing.T) {
		type sums struct {
			count               int64
			requestsCPU, limits resource.Quantity
		}
		want := map[string]*sums{}
		total := &sums{}
		for i := range c.pods {
			p := &c.pods[i]
			if want[p.Namespace] == nil {
				want[p.Namespace] = &sums{}
			}
			for _, s := range []*sums{want[p.Namespace], total} {
				s.count++
				s.requestsCPU.Add(podResources(p, false)[corev1.ResourceCPU])
				s.limits.Add(podResources(p, true)[corev1.ResourceMemory])
			}
		}
		r := informer(t, "query", "pods", "-A", "--group-by", "namespace", "--sum", "requests.cpu", "--sum", "limits.memory")
		lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
		if got := strings.Fields(lines[0]); strings.Join(got, " ") != "NAMESPACE COUNT REQUESTS.CPU LIMITS.MEMORY" {
			t.Fatalf("query --sum header = %q, want NAMESPACE COUNT REQUESTS.CPU LIMITS.MEMORY", lines[0])
		}
		if len(lines) != len(want)+2 {
			t.Fatalf("query --sum printed %d lines, want a header, %d namespaces and TOTAL:\n%s", len(lines), len(want), r.Stdout)
		}
		for i, line := range lines[1:] {
			f := strings.Fields(line)
			if len(f) != 4 {
				t.Fatalf("query --sum row %q, want 4 cells", line)
			}
			w := want[f[0]]
			if i == len(lines)-2 {
				if f[0] != "TOTAL" {
					t.Fatalf("last row %q, want TOTAL", line)
				}
				w = total
			}
			if w == nil {
				t.Errorf("query --sum row for namespace %q, which has no pods", f[0])
				continue
			}
			if f[1] != strconv.FormatInt(w.count, 10) {
				t.Errorf("%s count = %s, want %d", f[0], f[1], w.count)
			}
			for j, q := range []resource.Quantity{w.requestsCPU, w.limits} {
				if got := resource.MustParse(f[2+j]); got.Cmp(q) != 0 {
					t.Errorf("%s %s = %s, want %s", f[0], []string{"requests.cpu", "limits.memory"}[j], f[2+j], q.String())
				}
				if f[2+j] != q.String() {
					t.Errorf("%s cell %q is not in canonical form %q", f[0], f[2+j], q.String())
				}
			}
		}
	})

	t.Run("query top groups of namespace and node", func(t *testing.T) {
		// The two namespace and node pairs whose pods request the most CPU,
		// largest first, and the total of every pod.
		type group struct {
			key  string
			cpu  resource.Quantity
			pods int64
		}
		byKey := map[string]*group{}
		var total resource.Quantity
		for i := range c.pods {
			p := &c.pods[i]
			node := p.Spec.NodeName
			if node == "" {
				node = "<none>"
			}
			key := p.Namespace + " " + node
			if byKey[key] == nil {
				byKey[key] = &group{key: key}
			}
			cpu := podResources(p, false)[corev1.ResourceCPU]
			byKey[key].cpu.Add(cpu)
			byKey[key].pods++
			total.Add(cpu)
		}
		var groups []*group
		for _, g := range byKey {
			groups = append(groups, g)
		}
		sort.SliceStable(groups, func(i, j int) bool { return groups[i].cpu.Cmp(groups[j].cpu) > 0 })
		if groups[1].cpu.Cmp(groups[2].cpu) == 0 {
			t.Fatalf("the second and third groups request the same CPU (%s); the top 2 would be ambiguous", groups[1].cpu.String())
		}
		r := informer(t, "query", "pods", "-A", "--group-by", "namespace", "--group-by", "node", "--sum", "requests.cpu", "--sort-by", "requests.cpu", "--top", "2")
		lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
		if len(lines) != 4 || strings.Join(strings.Fields(lines[0]), " ") != "NAMESPACE NODE COUNT REQUESTS.CPU" {
			t.Fatalf("query --group-by namespace,node --top 2 printed:\n%s\nwant a header NAMESPACE NODE COUNT REQUESTS.CPU, 2 rows and TOTAL", r.Stdout)
		}
		for i, line := range lines[1:3] {
			want := fmt.Sprintf("%s %d %s", groups[i].key, groups[i].pods, groups[i].cpu.String())
			if got := strings.Join(strings.Fields(line), " "); got != want {
				t.Errorf("row %d = %q, want %q", i+1, got, want)
			}
		}
		if f := strings.Fields(lines[3]); f[0] != "TOTAL" || f[len(f)-1] != total.String() {
			t.Errorf("totals row %q, want TOTAL ... %s (every pod, not only the top 2)", lines[3], total.String())
		}
	})

	t.Run("viewer without node permission", func(t *testing.T) {
		rows, total := c.expectedCapacity("", "team-a", false)
		r := framework.Run(t, framework.Cmd{Args: []string{"informer", "capacity", "-n", "team-a", "-o", "json"}, Kubeconfig: framework.Current(t).ViewerKubeconfig()})
		if r.ExitCode != 0 {
			t.Fatalf("capacity as the viewer: %s", r)
		}
		if !strings.Contains(r.Stderr, "may not list nodes") {
			t.Errorf("capacity as the viewer said on stderr %q, want that nodes cannot be listed", r.Stderr)
		}
		got := decodeCapacity(t, r)
		if got.NodesListed {
			t.Errorf("capacity as the viewer: nodesListed true, want false")
		}
		checkCapacityJSON(t, got, rows, total, false)
		text := framework.Run(t, framework.Cmd{Args: []string{"informer", "capacity", "-n", "team-a"}, Kubeconfig: framework.Current(t).ViewerKubeconfig()})
		if text.ExitCode != 0 || !strings.Contains(text.Stdout, " (?)") {
			t.Errorf("capacity table as the viewer, want percentages shown as (?): %s", text)
		}
	})
}

// shareCell is "1330m (68%)" or "3/110 (2%)" in a capacity table.
var shareCell = regexp.MustCompile(`^(\S+?)(?:/(\S+))? \((\d+)%\)$`)

// checkCapacityText compares capacity's table, per node, with rows and total.
func checkCapacityText(t *testing.T, text string, rows map[string]*usage, total *usage) {
	t.Helper()
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if want := []string{"NODE", "PODS", "CPU REQUESTS", "CPU LIMITS", "MEMORY REQUESTS", "MEMORY LIMITS"}; !slicesEqual(splitCells(lines[0]), want) {
		t.Fatalf("capacity header %q, want %q", lines[0], want)
	}
	if len(lines) != len(rows)+2 {
		t.Fatalf("capacity printed %d lines, want a header, %d nodes and TOTAL:\n%s", len(lines), len(rows), text)
	}
	for i, line := range lines[1:] {
		cells := splitCells(line)
		want := rows[cells[0]]
		if i == len(lines)-2 {
			want = total
		}
		if want == nil || len(cells) != 6 {
			t.Errorf("capacity row %q: unknown node or not 6 cells", line)
			continue
		}
		usedOf := []resource.Quantity{*resource.NewQuantity(want.pods, resource.DecimalSI)}
		allocOf := []resource.Quantity{want.allocatable[corev1.ResourcePods]}
		for _, c := range resourceColumns {
			used := want.requests[c.name]
			if c.limits {
				used = want.limits[c.name]
			}
			usedOf = append(usedOf, used)
			allocOf = append(allocOf, want.allocatable[c.name])
		}
		for j, cell := range cells[1:] {
			m := shareCell.FindStringSubmatch(cell)
			if m == nil {
				t.Errorf("%s: cell %q is not QUANTITY (P%%)", cells[0], cell)
				continue
			}
			wantText := fmt.Sprintf("%s (%d%%)", usedOf[j].String(), percent(usedOf[j], allocOf[j]))
			if j == 0 {
				wantText = fmt.Sprintf("%d/%s (%d%%)", want.pods, allocOf[j].String(), percent(usedOf[j], allocOf[j]))
			}
			if got := resource.MustParse(m[1]); got.Cmp(usedOf[j]) != 0 || cell != wantText {
				t.Errorf("%s: cell %q, want %q", cells[0], cell, wantText)
			}
		}
	}
}

// splitCells splits a table line at runs of three or more spaces, the
// padding between columns.
func splitCells(line string) []string {
	return regexp.MustCompile(` {3,}`).Split(strings.TrimSpace(line), -1)
}

func slicesEqual(a, b []string) bool { return strings.Join(a, "|") == strings.Join(b, "|") }

func TestBadInputNamesTheFlag(t *testing.T) {
	framework.SkipIfShort(t)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"capacity", "--sum", "cpu"}, `--sum needs MEASURE or NAME=JSONPATH, got "cpu"`},
		{[]string{"capacity", "--top", "-1"}, "--top must be 0 (all rows) or more, got -1"},
		{[]string{"capacity", "--sum", "restarts"}, "--sum restarts: capacity sums requests.RESOURCE and limits.RESOURCE only"},
		{[]string{"query", "pods", "-A", "--group-by", "namespace", "--sum", "cpu"}, `--sum needs MEASURE or NAME=JSONPATH, got "cpu"`},
		{[]string{"query", "pods", "-A", "--group-by", "namespace", "--top", "-1"}, "--top must be 0 (all rows) or more, got -1"},
		{[]string{"query", "deployments", "-A", "--group-by", "namespace", "--sum", "requests.cpu"}, "--sum requests.cpu reads pods, not deployments.apps"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			r := framework.Run(t, framework.Cmd{Args: append([]string{"informer"}, tt.args...)})
			if r.ExitCode != 1 || !strings.Contains(r.Stderr, tt.want) || r.Stdout != "" {
				t.Errorf("kubectl informer %s: %s\nwant exit code 1 and %q on stderr", strings.Join(tt.args, " "), r, tt.want)
			}
		})
	}
}
