package capacity

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-informer/kubectl-informer/pkg/aggregate"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

func TestCapacityJSON(t *testing.T) {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1"}, Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("1930m"), corev1.ResourceMemory: resource.MustParse("7484Mi"), corev1.ResourcePods: resource.MustParse("110"),
	}}}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop"}, Spec: corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{
		Name: "web", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1330m")}},
	}}}}
	alloc := aggregate.NewAllocationByNode()
	if err := alloc.Add(pod); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		nodesKnown bool
		want       string
	}{
		{"nodes listed", true, `{"groupBy":"node","nodesListed":true,` +
			`"columns":["node","pods","requests.cpu","limits.cpu","requests.memory","limits.memory"],` +
			`"rows":[{"limits.cpu":{"used":"0","allocatable":"1930m","percent":0},"limits.memory":{"used":"0","allocatable":"7484Mi","percent":0},"node":"node-1",` +
			`"pods":{"used":1,"allocatable":110,"percent":0},"requests.cpu":{"used":"1330m","allocatable":"1930m","percent":68},"requests.memory":{"used":"0","allocatable":"7484Mi","percent":0}}],` +
			`"total":{"limits.cpu":{"used":"0","allocatable":"1930m","percent":0},"limits.memory":{"used":"0","allocatable":"7484Mi","percent":0},"node":"TOTAL",` +
			`"pods":{"used":1,"allocatable":110,"percent":0},"requests.cpu":{"used":"1330m","allocatable":"1930m","percent":68},"requests.memory":{"used":"0","allocatable":"7484Mi","percent":0}},` +
			`"unscheduledPods":0,"terminalPods":0}`},
		{"nodes not listed", false, `{"groupBy":"node","nodesListed":false,` +
			`"columns":["node","pods","requests.cpu","limits.cpu","requests.memory","limits.memory"],` +
			`"rows":[{"limits.cpu":{"used":"0"},"limits.memory":{"used":"0"},"node":"node-1","pods":{"used":1},"requests.cpu":{"used":"1330m"},"requests.memory":{"used":"0"}}],` +
			`"total":{"limits.cpu":{"used":"0"},"limits.memory":{"used":"0"},"node":"TOTAL","pods":{"used":1},"requests.cpu":{"used":"1330m"},"requests.memory":{"used":"0"}},` +
			`"unscheduledPods":0,"terminalPods":0}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			streams, _, out, _ := genericiooptions.NewTestIOStreams()
			o := NewCapacityOptions(nil, streams)
			o.Output = "json"
			var nodes []*corev1.Node
			if tt.nodesKnown {
				nodes = []*corev1.Node{node}
			}
			table, err := o.capacityTable(alloc, nodes, tt.nodesKnown, "", columns{})
			if err != nil {
				t.Fatal(err)
			}
			a := &capacityAnswer{Table: table, NodesListed: tt.nodesKnown, UnscheduledPods: alloc.Unscheduled, TerminalPods: alloc.Terminal}
			if err := o.printCapacity([]*capacityAnswer{a}, false); err != nil {
				t.Fatal(err)
			}
			var compact bytes.Buffer
			if err := json.Compact(&compact, out.Bytes()); err != nil {
				t.Fatalf("capacity -o json printed invalid JSON: %v\n%s", err, out)
			}
			if compact.String() != tt.want {
				t.Errorf("capacity -o json =\n%s\nwant\n%s", compact.String(), tt.want)
			}
		})
	}
}

func TestCapacityZoneHeader(t *testing.T) {
	o := NewCapacityOptions(nil, genericiooptions.NewTestIOStreamsDiscard())
	set, err := index.NewSet()
	if err != nil {
		t.Fatal(err)
	}
	def, err := set.Lookup("label:topology.kubernetes.io/zone")
	if err != nil {
		t.Fatal(err)
	}
	o.groupBy = &def
	table, err := o.capacityTable(nil, nil, true, "", columns{})
	if err != nil {
		t.Fatal(err)
	}
	header, _ := table.Strings()
	if header[0] != "ZONE" || header[1] != "NODES" {
		t.Errorf("capacity --group-by label:topology.kubernetes.io/zone header = %q, want ZONE, NODES, …", header)
	}
	if _, ok := table.Column("zone"); !ok {
		t.Errorf("--sort-by zone finds no column in %q", table.Columns)
	}
}

// TestCapacityAnswerAsData: capacity's answer travels as JSON, and prints
// the same after the trip: a table, -o json, and several contexts merged.
func TestCapacityAnswerAsData(t *testing.T) {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1"}, Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("8Gi"), corev1.ResourcePods: resource.MustParse("110"),
	}}}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop"}, Spec: corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{
		Name: "web", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")}},
	}}}}
	alloc := aggregate.NewAllocationByNode()
	if err := alloc.Add(pod); err != nil {
		t.Fatal(err)
	}
	o := NewCapacityOptions(nil, genericiooptions.NewTestIOStreamsDiscard())
	table, err := o.capacityTable(alloc, []*corev1.Node{node}, true, "prod", columns{})
	if err != nil {
		t.Fatal(err)
	}
	answer := &capacityAnswer{Context: "prod", Table: table, NodesListed: true, UnscheduledPods: 2}
	data, err := json.Marshal(answer)
	if err != nil {
		t.Fatal(err)
	}
	var travelled capacityAnswer
	if err := json.Unmarshal(data, &travelled); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		output  string
		several bool
	}{{"", false}, {"", true}, {"json", false}, {"yaml", true}} {
		var printed [2]string
		for i, a := range []capacityAnswer{*answer, travelled} {
			streams, _, out, _ := genericiooptions.NewTestIOStreams()
			o := NewCapacityOptions(nil, streams)
			o.Output = tt.output
			if err := o.printCapacity([]*capacityAnswer{&a}, tt.several); err != nil {
				t.Fatal(err)
			}
			printed[i] = out.String()
		}
		if printed[0] != printed[1] || printed[0] == "" {
			t.Errorf("-o %q, several %v: printed after a JSON trip:\n%s\nwant\n%s", tt.output, tt.several, printed[1], printed[0])
		}
	}
}

// TestCapacityFromRefusesContexts: --from reads files, so a selection of
// contexts, or --group-by context, is refused before any kubeconfig is
// read.
func TestCapacityFromRefusesContexts(t *testing.T) {
	dump := filepath.Join(t.TempDir(), "dump.yaml")
	if err := os.WriteFile(dump, []byte("apiVersion: v1\nkind: Node\nmetadata: {name: a}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"--context", "a,b"}, {"--all-contexts"}, {"--group-by", "context"}} {
		configFlags := genericclioptions.NewConfigFlags(false)
		cmd := NewCmdCapacity(configFlags, genericiooptions.NewTestIOStreamsDiscard())
		configFlags.AddFlags(cmd.Flags())
		cmd.SetArgs(append([]string{"--from", dump, "--kubeconfig", filepath.Join(t.TempDir(), "none")}, args...))
		cmd.SetOut(io.Discard)
		cmd.SetErr(io.Discard)
		cmd.SilenceUsage = true
		if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), "--from reads files, not contexts") {
			t.Errorf("capacity --from %v: error %v, want --from refused", args, err)
		}
	}
}

// TestCapacityGlobsAcrossContexts: --sum and --resource globs expand
// against every context's pods and nodes together, so that the tables
// merge column by column; a glob that matches nothing is named once on
// stderr; a node without the resource is listed with 0.
func TestCapacityGlobsAcrossContexts(t *testing.T) {
	gpuNode := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "gpu-1"}, Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("8"), corev1.ResourcePods: resource.MustParse("110"),
		"nvidia.com/gpu": resource.MustParse("4"), "nvidia.com/mig-1g.5gb": resource.MustParse("7"),
	}}}
	cpuNode := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "cpu-1"}, Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("8"), corev1.ResourcePods: resource.MustParse("110"),
	}}}
	podOn := func(node string, requests corev1.ResourceList) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ml"}, Spec: corev1.PodSpec{NodeName: node,
			Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Requests: requests, Limits: requests}}}}}
	}
	answerOf := func(name string, nodes []*corev1.Node, pods ...*corev1.Pod) *capacityAnswer {
		alloc := aggregate.NewAllocationByNode()
		for _, p := range pods {
			if err := alloc.Add(p); err != nil {
				t.Fatal(err)
			}
		}
		return &capacityAnswer{Context: name, NodesListed: true, alloc: alloc, nodes: nodes}
	}
	answers := []*capacityAnswer{
		// Only the first context's pods request a MIG slice.
		answerOf("a", []*corev1.Node{gpuNode, cpuNode}, podOn("gpu-1", corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("1"), "nvidia.com/mig-1g.5gb": resource.MustParse("2")})),
		answerOf("b", []*corev1.Node{cpuNode}, podOn("cpu-1", corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")})),
	}
	streams, _, out, errOut := genericiooptions.NewTestIOStreams()
	o := NewCapacityOptions(nil, streams)
	o.Resources = []string{"nvidia.com/*"}
	for _, s := range []string{"requests.nvidia.com/*", "limits.amd.com/*"} {
		m, err := aggregate.ParseMeasure(s)
		if err != nil {
			t.Fatal(err)
		}
		o.measures = append(o.measures, m)
	}
	if err := o.tables(answers); err != nil {
		t.Fatal(err)
	}
	if got, want := errOut.String(), "note: limits.amd.com/* matches no resource; it adds no column\n"; got != want {
		t.Errorf("stderr = %q, want %q", got, want)
	}
	wantColumns := "node,pods,requests.cpu,limits.cpu,requests.memory,limits.memory,requests.nvidia.com/gpu,requests.nvidia.com/mig-1g.5gb," +
		"nvidia.com/gpu.requested,nvidia.com/gpu.allocatable,nvidia.com/gpu.free,nvidia.com/mig-1g.5gb.requested,nvidia.com/mig-1g.5gb.allocatable,nvidia.com/mig-1g.5gb.free"
	for _, a := range answers {
		if got := strings.Join(a.Table.Columns, ","); got != wantColumns {
			t.Errorf("context %s columns = %s, want %s", a.Context, got, wantColumns)
		}
	}
	o.Output = "json"
	if err := o.printCapacity(answers[:1], false); err != nil {
		t.Fatal(err)
	}
	var obj Object
	if err := json.Unmarshal(out.Bytes(), &obj); err != nil {
		t.Fatal(err)
	}
	got := map[string][3]interface{}{}
	for _, r := range append(obj.Rows, obj.Total) {
		got[r["node"].(string)] = [3]interface{}{r["nvidia.com/gpu.requested"], r["nvidia.com/gpu.allocatable"], r["nvidia.com/gpu.free"]}
	}
	want := map[string][3]interface{}{"cpu-1": {"0", "0", "0"}, "gpu-1": {"1", "4", "3"}, aggregate.TotalLabel: {"1", "4", "3"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("-o json GPU columns = %v, want %v", got, want)
	}
}
