package plugin

import (
	"testing"

	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
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
			o.IndexSelectors = []string{"image=nginx:1.27"}
			o.Output = "name"
		}, want: true},
		{name: "group-by node", set: func(o *QueryOptions) { o.GroupBy = []string{"node"} }, want: true},
		{name: "group-by with sums, a custom index and a sort by column", set: func(o *QueryOptions) {
			o.Indexers = []string{"img={.spec.containers[*].image}"}
			o.GroupBy = []string{"img", "label:app"}
			o.Sums = []string{"requests.cpu", "replicas=.spec.replicas"}
			o.SortBy = "requests.cpu"
		}, want: true},
		{name: "a table", set: func(o *QueryOptions) { o.IndexSelectors = []string{"node=n1"} }},
		{name: "-o wide", set: func(o *QueryOptions) { o.Output = "wide" }},
		{name: "-o json", set: func(o *QueryOptions) { o.Output = "json" }},
		{name: "-o yaml", set: func(o *QueryOptions) { o.Output = "yaml" }},
		{name: "-o jsonpath", set: func(o *QueryOptions) { o.Output = "jsonpath={.items[*].metadata.name}" }},
		{name: "-o custom-columns", set: func(o *QueryOptions) { o.Output = "custom-columns=NAME:.metadata.name" }},
		{name: "-o name sorted", set: func(o *QueryOptions) { o.Output = "name"; o.SortBy = "{.metadata.name}" }},
		{name: "a filter", set: func(o *QueryOptions) { o.Output = "name"; o.Filter = "object.metadata.name != 'x'" }},
		{name: "a grouped filter", set: func(o *QueryOptions) { o.GroupBy = []string{"node"}; o.Filter = "true" }},
		{name: "a relationship index", set: func(o *QueryOptions) { o.Output = "name"; o.IndexSelectors = []string{"owner-root=Deployment/web"} }},
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
			if got := o.config.Reduce != nil; got != tt.want {
				t.Errorf("keeps Records = %v, want %v", got, tt.want)
			}
			if tt.want && len(o.config.Transforms) > 0 {
				t.Errorf("Records and a pods transform both set")
			}
		})
	}
}
