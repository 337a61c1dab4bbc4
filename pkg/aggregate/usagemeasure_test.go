package aggregate

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/cache"

	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/usage"
)

// usageSnapshot has samples of the pods default/plain and default/sidecar and of node-1.
func usageSnapshot() *usage.Snapshot {
	ts := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	sample := func(cpu, memory string) usage.Sample {
		return usage.Sample{Timestamp: ts, Window: 10 * time.Second, Usage: rl("cpu", cpu, "memory", memory)}
	}
	return &usage.Snapshot{
		Pods: map[string]usage.PodSample{
			"default/plain":   {Namespace: "default", Name: "plain", Sample: sample("250m", "100Mi")},
			"default/sidecar": {Namespace: "default", Name: "sidecar", Sample: sample("1500000n", "1Gi")},
		},
		Nodes: map[string]usage.NodeSample{"node-1": {Name: "node-1", Sample: sample("2", "3Gi")}},
	}
}

func TestParseUsageMeasure(t *testing.T) {
	for _, s := range []string{"usage.cpu", "usage.memory"} {
		m, err := ParseMeasure(s)
		if err != nil || !m.IsUsage() || m.PodsOnly || string(m.Resource) != strings.TrimPrefix(s, "usage.") {
			t.Errorf("ParseMeasure(%q) = %+v, %v, want a usage measure", s, m, err)
		}
	}
	for _, s := range []string{"usage.nvidia.com/gpu", "usage.", "usage.x=.status.x"} {
		if _, err := ParseMeasure(s); err == nil || !strings.Contains(err.Error(), "--sum") {
			t.Errorf("ParseMeasure(%q) error = %v, want one naming --sum", s, err)
		}
	}
}

func TestUsageValues(t *testing.T) {
	ms := mustMeasures(t, "requests.cpu", "usage.cpu", "usage.memory")
	if _, err := Values(ms, plainPod); err == nil || !strings.Contains(err.Error(), "no sample") {
		t.Errorf("Values(unbound usage) error = %v, want one saying no sample was read", err)
	}
	bound := BindUsage(ms, usageSnapshot())
	if ms[1].samples != nil {
		t.Error("BindUsage changed the measures it was given")
	}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1"}}
	unstructuredPod := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "v1", "kind": "Pod", "metadata": map[string]interface{}{"name": "sidecar", "namespace": "default"}}}
	tests := []struct {
		name string
		obj  interface{}
		want []string
	}{
		{name: "a pod with a sample", obj: plainPod, want: []string{"1330m", "250m", "100Mi"}},
		{name: "a pod as a tombstone", obj: cache.DeletedFinalStateUnknown{Key: "default/plain", Obj: plainPod}, want: []string{"1330m", "250m", "100Mi"}},
		{name: "a pod without a sample", obj: bigInitPod, want: []string{"2", "0", "0"}},
		{name: "an unstructured pod", obj: unstructuredPod, want: []string{"0", "2m", "1Gi"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Values(bound, tt.obj)
			if err != nil {
				t.Fatalf("Values() error = %v", err)
			}
			for i := range tt.want {
				if got[i].String() != tt.want[i] {
					t.Errorf("%s = %s, want %s", bound[i].Name, got[i].String(), tt.want[i])
				}
			}
		})
	}
	got, err := Values(bound[1:], node)
	if err != nil || got[0].String() != "2" || got[1].String() != "3Gi" {
		t.Errorf("Values(node-1) = %v, %v, want 2, 3Gi", got, err)
	}
}

func TestUsageValuesOfRecords(t *testing.T) {
	ms := mustMeasures(t, "requests.cpu", "usage.cpu")
	plan := RecordPlan(nil, ms)
	r, err := plan.Transform(plainPod)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := r.(*index.Record); !ok {
		t.Fatalf("Transform() = %T, want a Record", r)
	}
	got, err := Values(BindUsage(ms, usageSnapshot()), r)
	if err != nil || got[0].String() != "1330m" || got[1].String() != "250m" {
		t.Errorf("Values(record) = %v, %v, want 1330m, 250m", got, err)
	}
	if paths, ok := FieldsRead(mustMeasures(t, "usage.cpu")); !ok || len(paths) != 0 {
		t.Errorf("FieldsRead(usage.cpu) = %v, %v, want no field besides metadata", paths, ok)
	}
}

func TestGrouperUsage(t *testing.T) {
	ms := mustMeasures(t, "usage.cpu", "usage.memory")
	for _, tt := range []struct {
		name     string
		snapshot *usage.Snapshot
		want     []string // the total row's cpu and memory cells
	}{
		{name: "samples", snapshot: usageSnapshot(), want: []string{"252m", "1124Mi"}},
		{name: "no metrics API", snapshot: nil, want: []string{"", ""}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g := NewGrouper([]string{"node"}, BindUsage(ms, tt.snapshot))
			for _, p := range allPods() {
				if err := g.Add(p, [][]string{{p.Spec.NodeName}}); err != nil {
					t.Fatal(err)
				}
			}
			table := g.Table()
			total := table.Total
			if got := []string{total[2].String(), total[3].String()}; got[0] != tt.want[0] || got[1] != tt.want[1] {
				t.Errorf("totals = %q, want %q", got, tt.want)
			}
			if tt.snapshot == nil && !total[2].IsBlank() {
				t.Errorf("total cpu cell = %v, want blank", total[2])
			}
		})
	}
}

func TestCapacityUsage(t *testing.T) {
	s := usageSnapshot()
	alloc := NewAllocationByNode()
	alloc.Usage = s
	for _, p := range allPods() {
		if err := alloc.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	nodes := []*corev1.Node{
		{ObjectMeta: metav1.ObjectMeta{Name: "node-1"}, Status: corev1.NodeStatus{Allocatable: rl("cpu", "4", "memory", "8Gi", "pods", "110")}},
		{ObjectMeta: metav1.ObjectMeta{Name: "node-2"}, Status: corev1.NodeStatus{Allocatable: rl("cpu", "2", "memory", "4Gi", "pods", "110")}},
	}
	table, err := Capacity(alloc, CapacityOptions{Nodes: nodes, NodesKnown: true, UsageColumns: true, Usage: s})
	if err != nil {
		t.Fatal(err)
	}
	cell := func(row []Value, column string) string {
		i, ok := table.Column(column)
		if !ok {
			t.Fatalf("no column %s in %v", column, table.Columns)
		}
		return row[i].String()
	}
	row := func(name string) []Value {
		for _, r := range table.Rows {
			if r[0].Text() == name {
				return r
			}
		}
		t.Fatalf("no row %s", name)
		return nil
	}
	// node-1 runs plain (250m, 100Mi); node-2 sidecar (1500000n, rounded up to 2m, and 1Gi).
	for _, tt := range []struct {
		row        []Value
		node, pods [2]string
		rowName    string
	}{
		{row: row("node-1"), rowName: "node-1", node: [2]string{"2 (50%)", "3Gi (37%)"}, pods: [2]string{"250m (6%)", "100Mi (1%)"}},
		{row: row("node-2"), rowName: "node-2", node: [2]string{"0 (0%)", "0 (0%)"}, pods: [2]string{"2m (0%)", "1Gi (25%)"}},
		{row: table.Total, rowName: "TOTAL", node: [2]string{"2 (33%)", "3Gi (25%)"}, pods: [2]string{"252m (4%)", "1124Mi (9%)"}},
	} {
		if got := tt.row[0].String(); got != tt.rowName {
			t.Fatalf("row %s, want %s", got, tt.rowName)
		}
		got := [4]string{cell(tt.row, ColumnCPUUsage), cell(tt.row, ColumnMemUsage), cell(tt.row, ColumnPodsCPUUsage), cell(tt.row, ColumnPodsMemUsage)}
		if want := [4]string{tt.node[0], tt.node[1], tt.pods[0], tt.pods[1]}; got != want {
			t.Errorf("%s usage cells = %q, want %q", tt.rowName, got, want)
		}
	}

	table, err = Capacity(alloc, CapacityOptions{Nodes: nodes, NodesKnown: true, UsageColumns: true})
	if err != nil {
		t.Fatal(err)
	}
	if i, _ := table.Column(ColumnCPUUsage); !table.Total[i].IsBlank() {
		t.Errorf("usage without samples = %v, want a blank cell", table.Total[i])
	}
}

func TestLiveSetWithUsage(t *testing.T) {
	ms := mustMeasures(t, "usage.cpu")
	l := NewLive([]string{"node"}, ms)
	first := BindUsage(ms, &usage.Snapshot{})
	if _, err := l.SetWith("p", plainPod, [][]string{{"node-1"}}, first); err != nil {
		t.Fatal(err)
	}
	changes, err := l.SetWith("p", plainPod, [][]string{{"node-1"}}, BindUsage(ms, usageSnapshot()))
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 1 || changes[0].Before.Sums[0].String() != "0" || changes[0].After.Sums[0].String() != "250m" {
		t.Errorf("changes after a new sample = %+v, want node-1 from 0 to 250m", changes)
	}
	if _, err := l.SetWith("p", plainPod, [][]string{{"node-1"}}, nil); err == nil {
		t.Error("SetWith(no measures) error = nil, want one")
	}
}

func TestLiveRebindBlanksUnknownUsage(t *testing.T) {
	ms := mustMeasures(t, "requests.cpu", "usage.cpu")
	l := NewLive([]string{"node"}, ms)
	unknown := BindUsage(ms, nil)
	if err := l.Rebind(unknown); err != nil {
		t.Fatal(err)
	}
	if _, err := l.SetWith("p", plainPod, [][]string{{"node-1"}}, unknown); err != nil {
		t.Fatal(err)
	}
	total := l.Table().Total
	if total[2].String() != "1330m" || !total[3].IsBlank() {
		t.Errorf("totals = %v, %v; want 1330m and a blank usage cell", total[2], total[3])
	}
	if err := l.Rebind(mustMeasures(t, "requests.cpu", "usage.memory")); err == nil {
		t.Error("Rebind(other measures) error = nil, want one")
	}
}
