package aggregate

import (
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func node(name, zone string, allocatable, capacity corev1.ResourceList) *corev1.Node {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{}},
		Status: corev1.NodeStatus{Allocatable: allocatable, Capacity: capacity}}
	if zone != "" {
		n.Labels[corev1.LabelTopologyZone] = zone
	}
	return n
}

func capacityNodes() []*corev1.Node {
	return []*corev1.Node{
		node("node-1", "a", rl("cpu", "4", "memory", "16Gi", "pods", "110"), nil),
		node("node-2", "a", rl("cpu", "8", "memory", "32Gi", "pods", "110"), nil),
		node("gpu-1", "b", rl("cpu", "16", "memory", "64Gi", "pods", "110", "nvidia.com/gpu", "4"), nil),
		// node-3 reports no allocatable: its capacity counts, as in kubectl describe node.
		node("node-3", "", nil, rl("cpu", "2", "memory", "8Gi", "pods", "20")),
	}
}

// capacityAllocation is the allocation of allPods and of one pod on a node that is gone.
func capacityAllocation(t *testing.T) *AllocationByNode {
	t.Helper()
	u := NewAllocationByNode()
	for _, p := range append(allPods(), podOn("orphan", "gone", ctr("app", rl("cpu", "100m"), nil))) {
		if err := u.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	return u
}

func TestAllocationByNode(t *testing.T) {
	u := capacityAllocation(t)
	if u.Unscheduled != 1 || u.Terminal != 1 {
		t.Errorf("Unscheduled, Terminal = %d, %d, want 1, 1", u.Unscheduled, u.Terminal)
	}
	n1 := u.Nodes["node-1"]
	if n1.Pods != 3 || n1.Requests.Cpu().String() != "4330m" || n1.Requests.Memory().String() != "5280Mi" ||
		n1.Limits.Cpu().String() != "4" || n1.Limits.Memory().String() != "4352Mi" {
		t.Errorf("node-1 allocation = %d pods, requests %v, limits %v", n1.Pods, n1.Requests, n1.Limits)
	}
	if err := u.Add(&corev1.Service{}); err == nil {
		t.Errorf("Add(service) = nil error, want one")
	}
}

func TestCapacity(t *testing.T) {
	tests := []struct {
		name string
		opts CapacityOptions
		want []string
	}{
		{
			name: "per node",
			opts: CapacityOptions{Nodes: capacityNodes(), NodesKnown: true},
			want: []string{
				"NODE | PODS | CPU REQUESTS | CPU LIMITS | MEMORY REQUESTS | MEMORY LIMITS",
				"gone | 1 (?) | 100m (?) | 0 (?) | 0 (?) | 0 (?)",
				"gpu-1 | 1/110 (0%) | 4 (25%) | 0 (0%) | 16Gi (25%) | 0 (0%)",
				"node-1 | 3/110 (2%) | 4330m (108%) | 4 (100%) | 5280Mi (32%) | 4352Mi (26%)",
				"node-2 | 3/110 (2%) | 3570m (44%) | 4620m (57%) | 3000Mi (9%) | 2Gi (6%)",
				"node-3 | 0/20 (0%) | 0 (0%) | 0 (0%) | 0 (0%) | 0 (0%)",
				"TOTAL | 8/350 (2%) | 12 (40%) | 8620m (28%) | 24664Mi (20%) | 6400Mi (5%)",
			},
		},
		{
			name: "by zone",
			opts: CapacityOptions{Nodes: capacityNodes(), NodesKnown: true,
				GroupBy: "zone", GroupValue: NodeLabel(corev1.LabelTopologyZone)},
			want: []string{
				"ZONE | NODES | PODS | CPU REQUESTS | CPU LIMITS | MEMORY REQUESTS | MEMORY LIMITS",
				"<none> | 1 | 1/20 (5%) | 100m (5%) | 0 (0%) | 0 (0%) | 0 (0%)",
				"a | 2 | 6/220 (2%) | 7900m (65%) | 8620m (71%) | 8280Mi (16%) | 6400Mi (13%)",
				"b | 1 | 1/110 (0%) | 4 (25%) | 0 (0%) | 16Gi (25%) | 0 (0%)",
				"TOTAL | 4 | 8/350 (2%) | 12 (40%) | 8620m (28%) | 24664Mi (20%) | 6400Mi (5%)",
			},
		},
		{
			name: "with sums of another resource",
			opts: CapacityOptions{Nodes: capacityNodes()[2:3], NodesKnown: true,
				Sums: []Measure{mustMeasure(t, "requests.nvidia.com/gpu"), mustMeasure(t, "limits.nvidia.com/gpu")}},
			want: []string{
				"NODE | PODS | CPU REQUESTS | CPU LIMITS | MEMORY REQUESTS | MEMORY LIMITS | REQUESTS.NVIDIA.COM/GPU | LIMITS.NVIDIA.COM/GPU",
				"gone | 1 (?) | 100m (?) | 0 (?) | 0 (?) | 0 (?) | 0 (?) | 0 (?)",
				"gpu-1 | 1/110 (0%) | 4 (25%) | 0 (0%) | 16Gi (25%) | 0 (0%) | 2 (50%) | 2 (50%)",
				"node-1 | 3 (?) | 4330m (?) | 4 (?) | 5280Mi (?) | 4352Mi (?) | 0 (?) | 0 (?)",
				"node-2 | 3 (?) | 3570m (?) | 4620m (?) | 3000Mi (?) | 2Gi (?) | 0 (?) | 0 (?)",
				"TOTAL | 8/110 (7%) | 12 (75%) | 8620m (53%) | 24664Mi (37%) | 6400Mi (9%) | 2 (50%) | 2 (50%)",
			},
		},
		{
			name: "without nodes",
			opts: CapacityOptions{NodesKnown: false},
			want: []string{
				"NODE | PODS | CPU REQUESTS | CPU LIMITS | MEMORY REQUESTS | MEMORY LIMITS",
				"gone | 1 (?) | 100m (?) | 0 (?) | 0 (?) | 0 (?)",
				"gpu-1 | 1 (?) | 4 (?) | 0 (?) | 16Gi (?) | 0 (?)",
				"node-1 | 3 (?) | 4330m (?) | 4 (?) | 5280Mi (?) | 4352Mi (?)",
				"node-2 | 3 (?) | 3570m (?) | 4620m (?) | 3000Mi (?) | 2Gi (?)",
				"TOTAL | 8 (?) | 12 (?) | 8620m (?) | 24664Mi (?) | 6400Mi (?)",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			table, err := Capacity(capacityAllocation(t), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			header, rows := table.Strings()
			got := []string{strings.Join(header, " | ")}
			for _, r := range rows {
				got = append(got, strings.Join(r, " | "))
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Capacity() =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestCapacitySortAndErrors(t *testing.T) {
	table, err := Capacity(capacityAllocation(t), CapacityOptions{Nodes: capacityNodes(), NodesKnown: true})
	if err != nil {
		t.Fatal(err)
	}
	// By percentage, not quantity: node-1's 4330m of 4 is fuller than gpu-1's 4 of 16; the
	// node that is gone has no percentage and comes last.
	if err := table.SortBy("cpu requests", true); err != nil {
		t.Fatal(err)
	}
	if got, want := firstColumn(&table), []string{"node-1", "node-2", "gpu-1", "node-3", "gone"}; !reflect.DeepEqual(got, want) {
		t.Errorf("SortBy(cpu requests, desc) = %q, want %q", got, want)
	}
	if err := table.SortBy("requests.memory", false); err != nil {
		t.Fatalf("SortBy(requests.memory) = %v", err)
	}
	if _, err := Capacity(nil, CapacityOptions{GroupBy: "zone", GroupValue: NodeLabel("z")}); err == nil ||
		err.Error() != "--group-by zone needs the nodes, which could not be listed" {
		t.Errorf("Capacity grouped without nodes error = %v", err)
	}
	for _, sum := range []string{"restarts", "requests.cpu", "gpus={.spec.x}"} {
		m := mustMeasure(t, sum)
		if _, err := Capacity(nil, CapacityOptions{NodesKnown: true, Sums: []Measure{m}}); err == nil ||
			!strings.HasPrefix(err.Error(), "--sum "+m.Name+": capacity") {
			t.Errorf("Capacity with --sum %s error = %v, want one naming --sum %s", sum, err, sum)
		}
	}
	if _, err := Capacity(nil, CapacityOptions{NodesKnown: true, GroupBy: "zone"}); err == nil {
		t.Errorf("Capacity grouped without GroupValue = nil error, want one")
	}
}

func TestCapacityRefusesGlobs(t *testing.T) {
	ms := mustMeasures(t, "requests.nvidia.com/*")
	if _, err := Capacity(nil, CapacityOptions{NodesKnown: true, Sums: ms}); err == nil || !strings.Contains(err.Error(), "glob") {
		t.Errorf("Capacity(glob) error = %v, want one about the glob", err)
	}
}

func TestCapacityResources(t *testing.T) {
	u := NewAllocationByNode()
	for _, p := range []*corev1.Pod{
		podOn("train", "gpu-1", ctr("app", rl("cpu", "1", "nvidia.com/gpu", "3"), rl("nvidia.com/gpu", "3"))),
		podOn("web", "node-1", ctr("app", rl("cpu", "1"), nil)),
		podOn("orphan", "gone", ctr("app", rl("nvidia.com/gpu", "1"), rl("nvidia.com/gpu", "1"))),
	} {
		if err := u.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	gpu := corev1.ResourceName("nvidia.com/gpu")
	for _, tt := range []struct {
		name    string
		groupBy string
		want    map[string][3]string // row name: requested, allocatable, free
	}{
		{"per node", "", map[string][3]string{
			"gpu-1": {"3", "4", "1"}, "node-1": {"0", "0", "0"}, "node-2": {"0", "0", "0"}, "node-3": {"0", "0", "0"},
			"gone": {"1", "", ""}, TotalLabel: {"4", "4", "0"}}},
		{"per zone", "zone", map[string][3]string{
			"a": {"0", "0", "0"}, "b": {"3", "4", "1"}, NoValue: {"1", "0", "-1"}, TotalLabel: {"4", "4", "0"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			opts := CapacityOptions{Nodes: capacityNodes(), NodesKnown: true, Resources: []corev1.ResourceName{gpu}}
			if tt.groupBy != "" {
				opts.GroupBy, opts.GroupValue = tt.groupBy, NodeLabel(corev1.LabelTopologyZone)
			}
			table, err := Capacity(u, opts)
			if err != nil {
				t.Fatal(err)
			}
			header, rows := table.Strings()
			n := len(header)
			if got := strings.Join(header[n-3:], ","); got != "NVIDIA.COM/GPU REQUESTED,NVIDIA.COM/GPU ALLOCATABLE,NVIDIA.COM/GPU FREE" {
				t.Errorf("headers = %s", got)
			}
			if got := strings.Join(table.Columns[n-3:], ","); got != "nvidia.com/gpu.requested,nvidia.com/gpu.allocatable,nvidia.com/gpu.free" {
				t.Errorf("columns = %s", got)
			}
			if len(rows) != len(tt.want) {
				t.Errorf("%d rows, want %d: %q", len(rows), len(tt.want), rows)
			}
			for _, r := range rows {
				want, ok := tt.want[r[0]]
				if !ok {
					t.Errorf("unexpected row %q", r)
					continue
				}
				if got := [3]string{r[n-3], r[n-2], r[n-1]}; got != want {
					t.Errorf("row %s = %q, want %q", r[0], got, want)
				}
			}
		})
	}
}
