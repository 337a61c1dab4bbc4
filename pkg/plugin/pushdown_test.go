package plugin

import (
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/query"
)

// TestPushableSelectors completes query options as the flags would set them
// (no request is sent) and checks which --index selectors a direct run may
// push to the API server.
func TestPushableSelectors(t *testing.T) {
	tests := []struct {
		name string
		env  string
		set  func(o *query.QueryOptions)
		want []string
	}{
		{name: "node", set: func(o *query.QueryOptions) { o.Index = []string{"node=node-003"}; o.Output = "name" },
			want: []string{"node=node-003"}},
		{name: "several, with a group-by, a filter and a sort over the selection", set: func(o *query.QueryOptions) {
			o.Index = []string{"node=", "label:app=web", "image=nginx:1.27"}
			o.Filter = "object.metadata.name != 'x'"
			o.GroupBy = []string{"namespace", "phase"}
			o.Sums = []string{"requests.cpu"}
			o.SortBy = "count"
		}, want: []string{"node=", "label:app=web", "image=nginx:1.27"}},
		{name: "metadata-only labels", set: func(o *query.QueryOptions) {
			o.Index = []string{"label:app=web", "namespace=shop"}
			o.Output = "name"
		},
			want: []string{"label:app=web", "namespace=shop"}},
		{name: "no selector", set: func(o *query.QueryOptions) { o.GroupBy = []string{"node"} }},
		{name: "turned off", env: "off", set: func(o *query.QueryOptions) { o.Index = []string{"node=node-003"} }},
		{name: "an --indexer", set: func(o *query.QueryOptions) {
			o.Index = []string{"node=node-003"}
			o.Indexers = []string{"img={.spec.containers[*].image}"}
		}},
		{name: "a relationship index selects", set: func(o *query.QueryOptions) {
			o.Index = []string{"node=node-003", "owner-root=Deployment/web"}
		}},
		{name: "a relationship index groups", set: func(o *query.QueryOptions) {
			o.Index = []string{"node=node-003"}
			o.GroupBy = []string{"node.label:topology.kubernetes.io/zone"}
		}},
		{name: "selected-by", set: func(o *query.QueryOptions) { o.Index = []string{"namespace=shop", "selected-by=Service/web"} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(engines.PushdownEnv, tt.env)
			t.Setenv("KUBECONFIG", "")
			t.Setenv("HOME", t.TempDir())
			flags := genericclioptions.NewConfigFlags(true)
			server := "https://127.0.0.1:1"
			flags.APIServer = &server
			o := query.NewQueryOptions(flags, genericiooptions.NewTestIOStreamsDiscard())
			o.AllNamespaces = true
			tt.set(o)
			if err := o.Complete(nil, []string{"pods"}); err != nil {
				t.Fatal(err)
			}
			if got := engines.SelectorStrings(o.Pushdown); !reflect.DeepEqual(got, orEmpty(tt.want)) {
				t.Errorf("pushable selectors = %q, want %q", got, tt.want)
			}
		})
	}
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func TestWithPushdown(t *testing.T) {
	mapping := func(group, version, resource, kind string, scope meta.RESTScope) *meta.RESTMapping {
		return &meta.RESTMapping{
			Resource:         schema.GroupVersionResource{Group: group, Version: version, Resource: resource},
			GroupVersionKind: schema.GroupVersionKind{Group: group, Version: version, Kind: kind},
			Scope:            scope,
		}
	}
	var (
		pods        = mapping("", "v1", "pods", "Pod", meta.RESTScopeNamespace)
		deployments = mapping("apps", "v1", "deployments", "Deployment", meta.RESTScopeNamespace)
		nodes       = mapping("", "v1", "nodes", "Node", meta.RESTScopeRoot)
		widgets     = mapping("example.com", "v1", "widgets", "Widget", meta.RESTScopeNamespace)
	)
	tests := []struct {
		name       string
		user       engine.Config
		mappings   []*meta.RESTMapping
		selectors  []string
		wantLabel  string
		wantFields string
	}{
		{name: "node of pods", mappings: []*meta.RESTMapping{pods}, selectors: []string{"node=node-003"},
			wantFields: "spec.nodeName=node-003"},
		{name: "unscheduled pods", mappings: []*meta.RESTMapping{pods}, selectors: []string{"node="},
			wantFields: "spec.nodeName="},
		{name: "ANDed with the user's -l and --field-selector",
			user:     engine.Config{LabelSelector: "tier in (front,back)", FieldSelector: "spec.restartPolicy=Always"},
			mappings: []*meta.RESTMapping{pods}, selectors: []string{"node!=node-003", "phase notin (Failed,Succeeded)", "label:app=web"},
			wantLabel: "tier in (front,back),app=web", wantFields: "spec.restartPolicy=Always,spec.nodeName!=node-003,status.phase!=Failed,status.phase!=Succeeded"},
		{name: "the user's selectors alone when nothing is expressed", user: engine.Config{LabelSelector: "a=b"},
			mappings: []*meta.RESTMapping{pods}, selectors: []string{"node in (a,b)", "image=nginx"}, wantLabel: "a=b"},
		{name: "only what every type expresses", mappings: []*meta.RESTMapping{pods, deployments},
			selectors: []string{"node=node-003", "label:app=web", "namespace=shop"},
			wantLabel: "app=web", wantFields: "metadata.namespace=shop"},
		{name: "namespace of a cluster-scoped type", mappings: []*meta.RESTMapping{nodes},
			selectors: []string{"namespace=shop", "label:zone=a"}, wantLabel: "zone=a"},
		{name: "namespace of a type outside kube-apiserver's own", mappings: []*meta.RESTMapping{widgets},
			selectors: []string{"namespace=shop", "label:app notin (web)"}, wantLabel: "app notin (web)"},
		{name: "no selectors", user: engine.Config{FieldSelector: "metadata.name=x"}, mappings: []*meta.RESTMapping{pods},
			wantFields: "metadata.name=x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var selectors []index.Selector
			for _, s := range tt.selectors {
				sel, err := index.ParseSelector("--index", s)
				if err != nil {
					t.Fatal(err)
				}
				selectors = append(selectors, sel)
			}
			got := engines.WithPushdown(tt.user, tt.mappings, selectors)
			if got.LabelSelector != tt.wantLabel || got.FieldSelector != tt.wantFields {
				t.Errorf("withPushdown(%q) selectors = %q, %q, want %q, %q", tt.selectors, got.LabelSelector, got.FieldSelector, tt.wantLabel, tt.wantFields)
			}
		})
	}
}
