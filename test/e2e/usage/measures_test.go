package usage

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-informer/kubectl-informer/pkg/usage"
	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// zoneLabel is the label the package's nodes carry their zone in.
const zoneLabel = "topology.kubernetes.io/zone"

// podIndexer indexes a pod by its storage key, so that a grouped query has a
// row per pod.
const podIndexer = `pod=object.metadata.namespace + "/" + object.metadata.name`

// informer runs the plugin through the real kubectl as the admin and fails
// the test if it fails.
func informer(t *testing.T, args ...string) framework.Result {
	t.Helper()
	r := framework.Run(t, framework.Cmd{Args: append([]string{"informer"}, args...), Timeout: rolloutTimeout})
	if r.ExitCode != 0 {
		t.Fatalf("kubectl informer %s: %s", strings.Join(args, " "), r)
	}
	return r
}

// groupRows reads a grouped table whose cells have no spaces: per the
// first keys columns joined by "/", the other cells by header. Blank cells
// (usage without the metrics API) can only be the last ones, and read "".
// The TOTAL row, whose key cells after the first are blank, is under
// "TOTAL".
func groupRows(t *testing.T, out string, keys int) (header []string, rows map[string]map[string]string) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	header = strings.Fields(lines[0])
	rows = map[string]map[string]string{}
	for _, line := range lines[1:] {
		f := strings.Fields(line)
		key, cells := strings.Join(f[:min(keys, len(f))], "/"), f[min(keys, len(f)):]
		if f[0] == "TOTAL" {
			key, cells = "TOTAL", f[1:]
		}
		if len(cells) > len(header)-keys {
			t.Fatalf("row %q has more cells than the header %q", line, header)
		}
		row := map[string]string{}
		for i, h := range header[keys:] {
			if i < len(cells) {
				row[h] = cells[i]
			} else {
				row[h] = ""
			}
		}
		rows[key] = row
	}
	return header, rows
}

// sums is the test's own usage of a group: cpu in millicores (each pod's
// rounded up first, as the plugin and kubectl top count it), memory in
// bytes, exact.
type sums struct {
	count    int
	milliCPU int64
	memory   int64
}

func (s *sums) add(sample usage.Sample) {
	s.count++
	cpu, memory := sample.CPU(), sample.Memory()
	s.milliCPU += cpu.MilliValue()
	s.memory += memory.Value()
}

// checkRow compares a row's usage.cpu and usage.memory cells with want.
func checkRow(t *testing.T, what, key string, row map[string]string, want sums) {
	t.Helper()
	if row == nil {
		t.Errorf("%s: no row %s", what, key)
		return
	}
	cpu, err := resource.ParseQuantity(row["USAGE.CPU"])
	if err != nil {
		t.Errorf("%s %s: USAGE.CPU %q: %v", what, key, row["USAGE.CPU"], err)
		return
	}
	memory, err := resource.ParseQuantity(row["USAGE.MEMORY"])
	if err != nil {
		t.Errorf("%s %s: USAGE.MEMORY %q: %v", what, key, row["USAGE.MEMORY"], err)
		return
	}
	if cpu.MilliValue() != want.milliCPU || memory.Value() != want.memory {
		t.Errorf("%s %s: usage %s (%dm) and %s (%d bytes), the test's sums %dm and %d bytes", what, key, cpu.String(), cpu.MilliValue(), memory.String(), memory.Value(), want.milliCPU, want.memory)
	}
	if want.count > 0 && row["COUNT"] != fmt.Sprint(want.count) {
		t.Errorf("%s %s: count %s, want %d", what, key, row["COUNT"], want.count)
	}
}

// ownerRoot is the test's own owner-root of a pod: its controller, or the
// controller's controller for a ReplicaSet's pod; "<none>" without one.
func ownerRoot(t *testing.T, pod corev1.Pod) string {
	t.Helper()
	owner := metav1.GetControllerOf(&pod)
	if owner == nil {
		return "<none>"
	}
	if owner.Kind != "ReplicaSet" {
		return owner.Kind + "/" + owner.Name
	}
	rs, err := framework.Current(t).AdminClient().AppsV1().ReplicaSets(pod.Namespace).Get(context.Background(), owner.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("reading replicaset %s/%s: %v", pod.Namespace, owner.Name, err)
	}
	if up := metav1.GetControllerOf(rs); up != nil {
		return up.Kind + "/" + up.Name
	}
	return owner.Kind + "/" + owner.Name
}

// waitForSamples waits until the metrics API has a sample of every pod and
// node.
func waitForSamples(t *testing.T, client usage.Client, pods int) {
	t.Helper()
	deadline := time.Now().Add(rolloutTimeout)
	for {
		s, err := usage.Fetch(context.Background(), client, usage.Config{Pods: true, Nodes: true})
		if err == nil && len(s.Pods) == pods && len(s.Nodes) == nodes {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s the metrics API has %s (%v); want samples of %d pods and %d nodes", rolloutTimeout, describe(s), err, pods, nodes)
		}
		time.Sleep(time.Second)
	}
}

// answers are the outputs of the commands TestUsageMeasures compares, all
// read between two readings of the same samples.
type answers struct {
	perPod, perNode, byOwner, byNamespace, byZone, nodesByZone, top, filtered framework.Result
	capacity, capacityByZone, capacityOneNamespace                            framework.Result
	topPods, topNodes                                                         string
	// asViewer is a query of team-a by viewer, who may read pods and their
	// metrics there and nothing else.
	asViewer framework.Result
}

// TestUsageMeasures checks the usage measures and capacity --usage against
// the metrics API's samples read by the test around them (the same samples
// before and after, or all is read again), against kubectl top of those
// samples, and against the test's own sums per owner-root, namespace and
// zone, and kube-capacity --util's rules.
func TestUsageMeasures(t *testing.T) {
	c := framework.Current(t)
	startWorkloads(t)
	all := pods(t)
	client, err := usage.NewClient(c.AdminConfig())
	if err != nil {
		t.Fatal(err)
	}
	waitForSamples(t, client, len(all))
	nodeList, err := c.AdminClient().CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	zoneOf := map[string]string{}
	for _, n := range nodeList.Items {
		zoneOf[n.Name] = n.Labels[zoneLabel]
	}

	var (
		s *usage.Snapshot
		a answers
	)
	for attempt := 1; ; attempt++ {
		before, err := usage.Fetch(context.Background(), client, usage.Config{Pods: true, Nodes: true})
		if err != nil {
			t.Fatal(err)
		}
		both := []string{"--sum", "usage.cpu", "--sum", "usage.memory"}
		a = answers{
			perPod:         informer(t, append([]string{"query", "pods", "-A", "--indexer", podIndexer, "--group-by", "pod"}, both...)...),
			perNode:        informer(t, append([]string{"query", "nodes", "--indexer", "name=object.metadata.name", "--group-by", "name"}, both...)...),
			byOwner:        informer(t, append([]string{"query", "pods", "-A", "--group-by", "namespace", "--group-by", "owner-root"}, both...)...),
			byNamespace:    informer(t, append([]string{"query", "pods", "-A", "--group-by", "namespace"}, both...)...),
			byZone:         informer(t, append([]string{"query", "pods", "-A", "--group-by", "node.label:" + zoneLabel}, both...)...),
			nodesByZone:    informer(t, append([]string{"query", "nodes", "--group-by", "label:" + zoneLabel}, both...)...),
			top:            informer(t, append([]string{"query", "pods", "-A", "--indexer", podIndexer, "--group-by", "pod", "--sort-by", "usage.cpu", "--top", "3"}, both...)...),
			filtered:       informer(t, "query", "pods", "-A", "--filter", `has(usage.cpu) && usage.cpu.isGreaterThan(quantity("1"))`, "-o", "name"),
			capacity:       informer(t, "capacity", "--usage", "-o", "json"),
			capacityByZone: informer(t, "capacity", "--usage", "--group-by", "label:"+zoneLabel, "-o", "json"),
			// The pods of one namespace: the nodes' own usage is all of it.
			capacityOneNamespace: informer(t, "capacity", "--usage", "-n", "team-a", "-o", "json"),
			asViewer: framework.Run(t, framework.Cmd{Args: append([]string{"informer", "query", "pods", "-n", "team-a", "--group-by", "namespace"}, both...),
				Kubeconfig: c.ViewerKubeconfig(), Timeout: rolloutTimeout}),
			topPods:  kubectl(t, "top", "pod", "-A", "--no-headers"),
			topNodes: kubectl(t, "top", "node", "--no-headers"),
		}
		after, err := usage.Fetch(context.Background(), client, usage.Config{Pods: true, Nodes: true})
		if err != nil {
			t.Fatal(err)
		}
		if after.SameSamples(before) {
			s = before
			t.Logf("attempt %d read one sample: %s", attempt, before.Describe(time.Now()))
			break
		}
		if attempt == 5 {
			t.Fatalf("a new sample came while the commands ran, %d times", attempt)
		}
		t.Logf("attempt %d: a new sample came while the commands ran (%s); again", attempt, firstDifference(before, after))
	}

	// The samples are kubectl top's.
	comparePods(t, s, a.topPods, "")
	compareNodes(t, s, a.topNodes)

	t.Run("the sample's age once on stderr", func(t *testing.T) {
		for name, r := range map[string]framework.Result{"per pod": a.perPod, "filter": a.filtered, "capacity": a.capacity} {
			if n := strings.Count(r.Stderr, "usage as of "); n != 1 || strings.Contains(r.Stderr, "not available") {
				t.Errorf("%s: stderr %q; want one line \"usage as of ...\"", name, r.Stderr)
			}
		}
	})

	t.Run("per pod", func(t *testing.T) {
		_, rows := groupRows(t, a.perPod.Stdout, 1)
		var total sums
		for key, p := range s.Pods {
			var want sums
			want.add(p.Sample)
			total.add(p.Sample)
			checkRow(t, "pod", key, rows[key], want)
		}
		if len(rows) != len(s.Pods)+1 {
			t.Errorf("%d rows, want a row per pod sampled (%d) and TOTAL", len(rows), len(s.Pods))
		}
		checkRow(t, "pods", "TOTAL", rows["TOTAL"], sums{milliCPU: total.milliCPU, memory: total.memory})
	})

	t.Run("one namespace as viewer", func(t *testing.T) {
		if a.asViewer.ExitCode != 0 || strings.Contains(a.asViewer.Stderr, "not available") {
			t.Fatalf("query pods -n team-a as viewer: %s; stderr:\n%s", a.asViewer, a.asViewer.Stderr)
		}
		_, rows := groupRows(t, a.asViewer.Stdout, 1)
		var want sums
		for key, p := range s.Pods {
			if strings.HasPrefix(key, "team-a/") {
				want.add(p.Sample)
			}
		}
		checkRow(t, "as viewer", "team-a", rows["team-a"], want)
	})

	t.Run("per node", func(t *testing.T) {
		_, rows := groupRows(t, a.perNode.Stdout, 1)
		for name, n := range s.Nodes {
			var want sums
			want.add(n.Sample)
			checkRow(t, "node", name, rows[name], want)
		}
	})

	t.Run("grouped by namespace and owner-root, by namespace, by zone", func(t *testing.T) {
		byOwner, byNamespace, byZone, nodesByZone := map[string]*sums{}, map[string]*sums{}, map[string]*sums{}, map[string]*sums{}
		at := func(m map[string]*sums, key string) *sums {
			if m[key] == nil {
				m[key] = &sums{}
			}
			return m[key]
		}
		for key, pod := range all {
			p, ok := s.Pods[key]
			if !ok {
				t.Fatalf("pod %s has no sample", key)
			}
			at(byOwner, pod.Namespace+"/"+ownerRoot(t, pod)).add(p.Sample)
			at(byNamespace, pod.Namespace).add(p.Sample)
			zone := zoneOf[pod.Spec.NodeName]
			if zone == "" {
				zone = "<none>"
			}
			at(byZone, zone).add(p.Sample)
		}
		for name, n := range s.Nodes {
			at(nodesByZone, zoneOf[name]).add(n.Sample)
		}
		for _, g := range []struct {
			what string
			out  string
			keys int
			want map[string]*sums
		}{
			{"namespace/owner-root", a.byOwner.Stdout, 2, byOwner},
			{"namespace", a.byNamespace.Stdout, 1, byNamespace},
			{"pods' zone", a.byZone.Stdout, 1, byZone},
			{"nodes' zone", a.nodesByZone.Stdout, 1, nodesByZone},
		} {
			_, rows := groupRows(t, g.out, g.keys)
			if len(rows) != len(g.want)+1 {
				t.Errorf("by %s: rows %v, want %d groups and TOTAL", g.what, keysOfRows(rows), len(g.want))
			}
			for key, want := range g.want {
				checkRow(t, "by "+g.what, key, rows[key], *want)
			}
		}
	})

	t.Run("sorted by usage.cpu, top 3", func(t *testing.T) {
		lines := strings.Split(strings.TrimSpace(a.top.Stdout), "\n")
		var cpus []int64
		for _, p := range s.Pods {
			cpu := p.CPU()
			cpus = append(cpus, cpu.MilliValue())
		}
		sort.Slice(cpus, func(i, j int) bool { return cpus[i] > cpus[j] })
		_, rows := groupRows(t, a.top.Stdout, 1)
		if len(lines) != 1+3+1 {
			t.Fatalf("--top 3 printed %d lines, want a header, 3 rows and TOTAL:\n%s", len(lines), a.top.Stdout)
		}
		for i, line := range lines[1:4] {
			key := strings.Fields(line)[0]
			cpu := resource.MustParse(rows[key]["USAGE.CPU"])
			if cpu.MilliValue() != cpus[i] {
				t.Errorf("row %d (%s): %dm, want the %d. largest, %dm", i+1, key, cpu.MilliValue(), i+1, cpus[i])
			}
		}
	})

	t.Run("--filter on usage", func(t *testing.T) {
		var want []string
		one := resource.MustParse("1")
		for _, p := range s.Pods {
			if cpu := p.CPU(); cpu.Cmp(one) > 0 {
				want = append(want, "pod/"+p.Name)
			}
		}
		sort.Strings(want)
		got := strings.Fields(a.filtered.Stdout)
		sort.Strings(got)
		if strings.Join(got, " ") != strings.Join(want, " ") || len(want) == 0 {
			t.Errorf("--filter usage.cpu > 1 = %q, want the pods using more than a core %q", got, want)
		}
	})

	t.Run("capacity --usage by kube-capacity --util's rules", func(t *testing.T) {
		checkCapacity(t, a.capacity.Stdout, s, all, nodeList.Items, func(n corev1.Node) string { return n.Name })
		checkCapacity(t, a.capacityByZone.Stdout, s, all, nodeList.Items, func(n corev1.Node) string { return n.Labels[zoneLabel] })
		teamA := map[string]corev1.Pod{}
		for key, p := range all {
			if p.Namespace == "team-a" {
				teamA[key] = p
			}
		}
		checkCapacity(t, a.capacityOneNamespace.Stdout, s, teamA, nodeList.Items, func(n corev1.Node) string { return n.Name })
	})
}

func keysOfRows(rows map[string]map[string]string) []string {
	var ks []string
	for k := range rows {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// capacityShare is one share cell of capacity -o json.
type capacityShare struct {
	Used        string `json:"used"`
	Allocatable string `json:"allocatable"`
	Percent     *int64 `json:"percent"`
}

// checkCapacity compares capacity --usage -o json with kube-capacity
// --util's rules (robscott/kube-capacity pkg/capacity: buildClusterMetric,
// resourceString) computed here: a node's usage is its NodeMetrics' usage,
// its pods' the sum of the PodMetrics of its pods that are not Succeeded or
// Failed; a group's add up; cpu printed as MilliValue of the sum;
// percent = int64(float64(used.MilliValue()) / float64(allocatable.MilliValue()) * 100).
func checkCapacity(t *testing.T, out string, s *usage.Snapshot, pods map[string]corev1.Pod, nodeList []corev1.Node, group func(corev1.Node) string) {
	t.Helper()
	var obj struct {
		Rows  []map[string]json.RawMessage `json:"rows"`
		Total map[string]json.RawMessage   `json:"total"`
	}
	if err := json.Unmarshal([]byte(out), &obj); err != nil {
		t.Fatalf("decoding capacity -o json: %v\n%s", err, out)
	}
	type want struct {
		nodeUsage, podsUsage, allocatable corev1.ResourceList
	}
	wants := map[string]*want{}
	groupOf := map[string]string{}
	for _, n := range nodeList {
		g := group(n)
		groupOf[n.Name] = g
		w := wants[g]
		if w == nil {
			w = &want{nodeUsage: corev1.ResourceList{}, podsUsage: corev1.ResourceList{}, allocatable: corev1.ResourceList{}}
			wants[g] = w
		}
		addList(w.allocatable, n.Status.Allocatable)
		if sample, ok := s.Node(n.Name); ok {
			addList(w.nodeUsage, sample.Usage)
		}
	}
	for key, p := range pods {
		if p.Spec.NodeName == "" || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		if sample, ok := s.Pods[key]; ok {
			addList(wants[groupOf[p.Spec.NodeName]].podsUsage, sample.Usage)
		}
	}
	groupColumn := "node"
	for _, r := range obj.Rows {
		for k := range r {
			if strings.HasPrefix(k, "label:") {
				groupColumn = k
			}
		}
	}
	if len(obj.Rows) != len(wants) {
		t.Errorf("capacity has %d rows, want %d", len(obj.Rows), len(wants))
	}
	for _, r := range obj.Rows {
		var name string
		if err := json.Unmarshal(r[groupColumn], &name); err != nil {
			t.Fatalf("row %v: %s: %v", r, groupColumn, err)
		}
		w := wants[name]
		if w == nil {
			t.Errorf("capacity row %q: no such node or group", name)
			continue
		}
		for _, c := range []struct {
			column string
			list   corev1.ResourceList
			name   corev1.ResourceName
		}{
			{"usage.cpu", w.nodeUsage, corev1.ResourceCPU},
			{"usage.memory", w.nodeUsage, corev1.ResourceMemory},
			{"pods.usage.cpu", w.podsUsage, corev1.ResourceCPU},
			{"pods.usage.memory", w.podsUsage, corev1.ResourceMemory},
		} {
			var got capacityShare
			if err := json.Unmarshal(r[c.column], &got); err != nil {
				t.Errorf("row %s: %s = %s: %v", name, c.column, r[c.column], err)
				continue
			}
			used := c.list[c.name]
			alloc := w.allocatable[c.name]
			wantPercent := int64(float64(used.MilliValue()) / float64(alloc.MilliValue()) * 100)
			gotUsed := resource.MustParse(got.Used)
			var gotOK bool
			if c.name == corev1.ResourceCPU {
				gotOK = gotUsed.MilliValue() == used.MilliValue() && gotUsed.Cmp(*resource.NewMilliQuantity(used.MilliValue(), resource.DecimalSI)) == 0
			} else {
				gotOK = gotUsed.Cmp(used) == 0
			}
			gotAlloc := resource.MustParse(got.Allocatable)
			if !gotOK || got.Percent == nil || *got.Percent != wantPercent || gotAlloc.Cmp(alloc) != 0 {
				t.Errorf("row %s: %s = %s of %s, %s%%; kube-capacity's rules: %s of %s, %d%%", name, c.column, got.Used, got.Allocatable, derefPercent(got.Percent), used.String(), alloc.String(), wantPercent)
			}
		}
	}
}

func derefPercent(p *int64) string {
	if p == nil {
		return "none"
	}
	return fmt.Sprint(*p)
}

func addList(into, add corev1.ResourceList) {
	for name, q := range add {
		sum := into[name]
		sum.Add(q)
		into[name] = sum
	}
}

// TestUsageWithoutMetricsAPI asks for usage of a control plane that serves
// no metrics API: kubectl top's message on stderr, every other column
// printed, and the usage cells empty.
func TestUsageWithoutMetricsAPI(t *testing.T) {
	other := framework.StartCluster(t)
	run := func(args ...string) framework.Result {
		r := framework.Run(t, framework.Cmd{Args: append([]string{"informer"}, args...), Kubeconfig: other.AdminKubeconfig(), Timeout: rolloutTimeout})
		if r.ExitCode != 0 {
			t.Fatalf("kubectl informer %s: %s", strings.Join(args, " "), r)
		}
		if !strings.Contains(r.Stderr, "Metrics API not available") {
			t.Errorf("kubectl informer %s: stderr %q, want kubectl top's \"Metrics API not available\"", strings.Join(args, " "), r.Stderr)
		}
		return r
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "registry.example.com/web:v1"}}},
	}
	if _, err := other.AdminClient().CoreV1().Pods("default").Create(context.Background(), pod, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating a pod: %v", err)
	}
	list, err := kubernetesPods(other)
	if err != nil {
		t.Fatal(err)
	}
	perNamespace := map[string]int{}
	for _, p := range list {
		perNamespace[p.Namespace]++
	}

	r := run("query", "pods", "-A", "--group-by", "namespace", "--sum", "usage.cpu")
	header, rows := groupRows(t, r.Stdout, 1)
	if strings.Join(header, " ") != "NAMESPACE COUNT USAGE.CPU" {
		t.Errorf("header %q, want NAMESPACE COUNT USAGE.CPU", header)
	}
	for ns, n := range perNamespace {
		if rows[ns]["COUNT"] != fmt.Sprint(n) || rows[ns]["USAGE.CPU"] != "" {
			t.Errorf("namespace %s: %v, want count %d and no usage", ns, rows[ns], n)
		}
	}

	// A watch prints its table without usage, and keeps watching.
	w := framework.Start(t, framework.Cmd{Args: []string{"informer", "watch", "pods", "-A", "--group-by", "namespace", "--sum", "usage.cpu"},
		Kubeconfig: other.AdminKubeconfig(), Timeout: rolloutTimeout})
	if _, err := w.WaitForLine(time.Minute, func(line string) bool {
		return strings.Join(strings.Fields(line), " ") == "default 1"
	}); err != nil {
		t.Errorf("watch --sum usage.cpu without the metrics API: no row \"default 1\" with an empty usage cell: %v\nstdout:\n%s", err, w.Stdout())
	}
	if !strings.Contains(w.Stderr(), "Metrics API not available") {
		t.Errorf("watch --sum usage.cpu without the metrics API: stderr %q, want kubectl top's \"Metrics API not available\"", w.Stderr())
	}

	r = run("capacity", "--usage", "-o", "json")
	var obj struct {
		Rows []map[string]json.RawMessage `json:"rows"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &obj); err != nil {
		t.Fatalf("decoding capacity -o json: %v", err)
	}
	for _, row := range obj.Rows {
		for _, c := range []string{"usage.cpu", "usage.memory", "pods.usage.cpu", "pods.usage.memory"} {
			if string(row[c]) != "null" {
				t.Errorf("row %s: %s = %s, want null", row["node"], c, row[c])
			}
		}
		var pods capacityShare
		if err := json.Unmarshal(row["requests.cpu"], &pods); err != nil || pods.Percent == nil {
			t.Errorf("row %s: requests.cpu = %s, want a share of allocatable", row["node"], row["requests.cpu"])
		}
	}
}

// kubernetesPods lists the pods of cluster c.
func kubernetesPods(c *framework.Cluster) ([]corev1.Pod, error) {
	list, err := c.AdminClient().CoreV1().Pods("").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}
