package fleet

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-informer/kubectl-informer/pkg/aggregate"
)

func node(name, zone, cpu string) *corev1.Node {
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"zone": zone}},
		Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse("1Gi"), corev1.ResourcePods: resource.MustParse("10"),
		}},
	}
}

func pod(nodeName, cpu string) *corev1.Pod {
	return &corev1.Pod{Spec: corev1.PodSpec{NodeName: nodeName, Containers: []corev1.Container{{
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}},
	}}}}
}

func capacity(t *testing.T, groupBy string, nodes []*corev1.Node, pods ...*corev1.Pod) aggregate.Table {
	t.Helper()
	usage := aggregate.NewAllocationByNode()
	for _, p := range pods {
		if err := usage.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	opts := aggregate.CapacityOptions{Nodes: nodes, NodesKnown: true}
	if groupBy != "" {
		opts.GroupBy, opts.GroupValue = groupBy, aggregate.NodeLabel("zone")
	}
	table, err := aggregate.Capacity(usage, opts)
	if err != nil {
		t.Fatal(err)
	}
	return table
}

func TestMergeCapacity(t *testing.T) {
	nodesA := []*corev1.Node{node("n1", "z1", "2"), node("n2", "z2", "2")}
	nodesB := []*corev1.Node{node("n1", "z1", "4")}
	podsA := []*corev1.Pod{pod("n1", "500m"), pod("n2", "1")}
	podsB := []*corev1.Pod{pod("n1", "1")}

	perNode := MergeCapacity([]ContextTable{
		{Context: "a", Table: capacity(t, "", nodesA, podsA...)},
		{Context: "b", Table: capacity(t, "", nodesB, podsB...)},
	}, true)
	header, rows := perNode.Strings()
	if want := []string{"CONTEXT", "NODE", "PODS", "CPU REQUESTS", "CPU LIMITS", "MEMORY REQUESTS", "MEMORY LIMITS"}; !reflect.DeepEqual(header, want) {
		t.Errorf("header %q, want %q", header, want)
	}
	wantRows := [][]string{
		{"a", "n1", "1/10 (10%)", "500m (25%)", "0 (0%)", "0 (0%)", "0 (0%)"},
		{"a", "n2", "1/10 (10%)", "1 (50%)", "0 (0%)", "0 (0%)", "0 (0%)"},
		{"b", "n1", "1/10 (10%)", "1 (25%)", "0 (0%)", "0 (0%)", "0 (0%)"},
		{"TOTAL", "", "3/30 (10%)", "2500m (31%)", "0 (0%)", "0 (0%)", "0 (0%)"},
	}
	if !reflect.DeepEqual(rows, wantRows) {
		t.Errorf("per node:\n got %q\nwant %q", rows, wantRows)
	}

	byZone := MergeCapacity([]ContextTable{
		{Context: "a", Table: capacity(t, "zone", nodesA, podsA...)},
		{Context: "b", Table: capacity(t, "zone", nodesB, podsB...)},
	}, false)
	_, rows = byZone.Strings()
	wantRows = [][]string{
		{"z1", "2", "2/20 (10%)", "1500m (25%)", "0 (0%)", "0 (0%)", "0 (0%)"},
		{"z2", "1", "1/10 (10%)", "1 (50%)", "0 (0%)", "0 (0%)", "0 (0%)"},
		{"TOTAL", "3", "3/30 (10%)", "2500m (31%)", "0 (0%)", "0 (0%)", "0 (0%)"},
	}
	if !reflect.DeepEqual(rows, wantRows) {
		t.Errorf("by zone:\n got %q\nwant %q", rows, wantRows)
	}
}

// TestMergeCapacityResources: --resource columns add up as quantities;
// an allocatable or free unknown in one context is unknown in the sum.
func TestMergeCapacityResources(t *testing.T) {
	gpu := corev1.ResourceName("nvidia.com/gpu")
	withGPUs := func(n *corev1.Node, gpus string) *corev1.Node {
		n.Status.Allocatable[gpu] = resource.MustParse(gpus)
		return n
	}
	gpuPod := func(nodeName, gpus string) *corev1.Pod {
		p := pod(nodeName, "100m")
		p.Spec.Containers[0].Resources.Requests[gpu] = resource.MustParse(gpus)
		return p
	}
	table := func(groupBy string, nodes []*corev1.Node, pods ...*corev1.Pod) aggregate.Table {
		usage := aggregate.NewAllocationByNode()
		for _, p := range pods {
			if err := usage.Add(p); err != nil {
				t.Fatal(err)
			}
		}
		opts := aggregate.CapacityOptions{Nodes: nodes, NodesKnown: true, Resources: []corev1.ResourceName{gpu},
			GroupBy: groupBy, GroupValue: aggregate.NodeLabel("zone")}
		tb, err := aggregate.Capacity(usage, opts)
		if err != nil {
			t.Fatal(err)
		}
		return tb
	}
	byZone := MergeCapacity([]ContextTable{
		{Context: "a", Table: table("zone", []*corev1.Node{withGPUs(node("n1", "z1", "2"), "4"), node("n2", "z2", "2")}, gpuPod("n1", "1"))},
		// b's pod is on a node that is gone: z1's allocatable is unknown there.
		{Context: "b", Table: table("zone", []*corev1.Node{withGPUs(node("n1", "z1", "2"), "2")}, gpuPod("n1", "2"), gpuPod("gone", "1"))},
	}, false)
	header, rows := byZone.Strings()
	n := len(header)
	got := map[string][]string{}
	for _, r := range rows {
		got[r[0]] = r[n-3:]
	}
	want := map[string][]string{
		"z1": {"3", "6", "3"}, "z2": {"0", "0", "0"}, aggregate.NoValue: {"1", "", ""}, aggregate.TotalLabel: {"4", "6", "2"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("GPU columns by zone = %q, want %q", got, want)
	}
}
