package query

import (
	"io"
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-informer/kubectl-informer/pkg/columns"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// TestRecordPlan completes query options as the flags would set them (no
// request is sent) and checks which one-shot queries keep Records instead of
// objects: those whose answer reads only keys, index values and measures.
func TestRecordPlan(t *testing.T) {
	tests := []struct {
		name string
		set  func(o *QueryOptions)
		want bool
	}{
		{name: "-o name", set: func(o *QueryOptions) { o.Output = "name" }, want: true},
		{name: "an image lookup, -o name", set: func(o *QueryOptions) {
			o.Index = []string{"image=nginx:1.27"}
			o.Output = "name"
		}, want: true},
		{name: "group-by node", set: func(o *QueryOptions) { o.GroupBy = []string{"node"} }, want: true},
		{name: "group-by with sums, a custom index and a sort by column", set: func(o *QueryOptions) {
			o.Indexers = []string{"img={.spec.containers[*].image}"}
			o.GroupBy = []string{"img", "label:app"}
			o.Sums = []string{"requests.cpu", "replicas=.spec.replicas"}
			o.SortBy = "requests.cpu"
		}, want: true},
		{name: "a table", set: func(o *QueryOptions) { o.Index = []string{"node=n1"} }, want: true},
		{name: "-o wide", set: func(o *QueryOptions) { o.Output = "wide" }, want: true},
		{name: "a table with label columns", set: func(o *QueryOptions) { o.LabelColumns = []string{"app"} }},
		{name: "a table with --show-labels", set: func(o *QueryOptions) { o.ShowLabels = true }},
		{name: "a table with --show-events", set: func(o *QueryOptions) { o.ShowEvents = true }},
		{name: "a table sorted", set: func(o *QueryOptions) { o.SortBy = "{.metadata.name}" }},
		{name: "-o json", set: func(o *QueryOptions) { o.Output = "json" }},
		{name: "-o yaml", set: func(o *QueryOptions) { o.Output = "yaml" }},
		{name: "-o jsonpath", set: func(o *QueryOptions) { o.Output = "jsonpath={.items[*].metadata.name}" }},
		{name: "-o custom-columns", set: func(o *QueryOptions) { o.Output = "custom-columns=NAME:.metadata.name" }},
		{name: "-o name sorted", set: func(o *QueryOptions) { o.Output = "name"; o.SortBy = "{.metadata.name}" }},
		{name: "a filter", set: func(o *QueryOptions) { o.Output = "name"; o.Filter = "object.metadata.name != 'x'" }},
		{name: "a grouped filter", set: func(o *QueryOptions) { o.GroupBy = []string{"node"}; o.Filter = "true" }},
		{name: "a relationship index", set: func(o *QueryOptions) { o.Output = "name"; o.Index = []string{"owner-root=Deployment/web"} }},
		{name: "grouped by a node label", set: func(o *QueryOptions) { o.GroupBy = []string{"node.label:topology.kubernetes.io/zone"} }},
		{name: "a watch", set: func(o *QueryOptions) { o.Output = "name"; o.Watch = true }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("KUBECONFIG", "")
			t.Setenv("HOME", t.TempDir())
			flags := genericclioptions.NewConfigFlags(true)
			server := "https://127.0.0.1:1"
			flags.APIServer = &server
			o := NewQueryOptions(flags, genericiooptions.NewTestIOStreamsDiscard())
			o.AllNamespaces = true
			tt.set(o)
			if err := o.Complete(nil, []string{"pods"}); err != nil {
				t.Fatal(err)
			}
			if got := o.Config.Reduce != nil; got != tt.want {
				t.Errorf("keeps Records = %v, want %v", got, tt.want)
			}
			if tt.want && len(o.Config.Transforms) > 0 {
				t.Errorf("Records and a pods transform both set")
			}
		})
	}
}

// TestWithTableRows keeps each object's table row in its Record where every
// type's table is built in and compares no objects, and keeps whole objects
// otherwise.
func TestWithTableRows(t *testing.T) {
	pods := &meta.RESTMapping{Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"}, GroupVersionKind: schema.GroupVersionKind{Version: "v1", Kind: "Pod"}}
	widgets := &meta.RESTMapping{Resource: schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}, GroupVersionKind: schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}}
	flowSchemas := &meta.RESTMapping{Resource: schema.GroupVersionResource{Group: "flowcontrol.apiserver.k8s.io", Version: "v1", Resource: "flowschemas"}, GroupVersionKind: schema.GroupVersionKind{Group: "flowcontrol.apiserver.k8s.io", Version: "v1", Kind: "FlowSchema"}}
	tests := []struct {
		name     string
		output   string
		mappings []*meta.RESTMapping
		want     bool
	}{
		{"pods", "", []*meta.RESTMapping{pods}, true},
		{"pods, -o wide", "wide", []*meta.RESTMapping{pods}, true},
		{"a custom resource", "", []*meta.RESTMapping{pods, widgets}, false},
		{"a table that compares objects", "", []*meta.RESTMapping{flowSchemas}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("KUBECONFIG", "")
			t.Setenv("HOME", t.TempDir())
			flags := genericclioptions.NewConfigFlags(true)
			server := "https://127.0.0.1:1"
			flags.APIServer = &server
			o := NewQueryOptions(flags, genericiooptions.NewTestIOStreamsDiscard())
			o.AllNamespaces = true
			o.Output = tt.output
			o.Index = []string{"node=n1"}
			if err := o.Complete(nil, []string{"pods"}); err != nil {
				t.Fatal(err)
			}
			target, err := o.target(o.set.Targets[0], io.Discard, nil)
			if err != nil {
				t.Fatal(err)
			}
			target.withTableRows(tt.mappings)
			if got := target.Config.Reduce != nil; got != tt.want {
				t.Fatalf("keeps Records = %v, want %v", got, tt.want)
			}
			if target.Config.Reads != nil {
				t.Errorf("a table decodes only %q, want whole objects: its columns read any field", target.Config.Reads)
			}
			if !tt.want {
				return
			}
			restarted := metav1.NewTime(time.Now().Add(-3 * time.Minute))
			pod := &corev1.Pod{
				TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
				ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-1", CreationTimestamp: metav1.NewTime(time.Now().Add(-time.Hour))},
				Spec:       corev1.PodSpec{NodeName: "n1", Containers: []corev1.Container{{Name: "app"}}},
				Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.0.0.7", ContainerStatuses: []corev1.ContainerStatus{{
					Name: "app", Ready: true, RestartCount: 2, LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{FinishedAt: restarted}},
					State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}},
				}}},
			}
			reduced, err := target.Config.Reduce(pod)
			if err != nil {
				t.Fatal(err)
			}
			record, ok := reduced.(*index.Record)
			if !ok {
				t.Fatalf("reduced to %T, want a Record", reduced)
			}
			table, _ := columns.For(pods.Resource.GroupResource())
			want, err := table.Row(pod, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			got, err := tableCells(table, record, time.Now())
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("the Record's row = %q, %v; want the pod's %q", got, err, want)
			}
			got[0] = "changed"
			if again, _ := tableCells(table, record, time.Now()); again[0] != want[0] {
				t.Errorf("changing the returned cells changed the Record's")
			}
		})
	}
}
