package engine

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestResolve(t *testing.T) {
	pod := schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	deployment := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	widget := schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}
	node := schema.GroupVersionKind{Version: "v1", Kind: "Node"}
	mapper := meta.NewDefaultRESTMapper(nil)
	for _, gvk := range []schema.GroupVersionKind{pod, deployment, widget} {
		mapper.Add(gvk, meta.RESTScopeNamespace)
	}
	mapper.Add(node, meta.RESTScopeRoot)
	tests := []struct {
		name string
		args []string
		want string // resources, group-qualified and comma-separated, or the error
	}{
		{"plural", []string{"pods"}, "pods"},
		{"singular", []string{"pod"}, "pods"},
		{"kind", []string{"Pod"}, "pods"},
		{"group-qualified", []string{"deployments.apps"}, "deployments.apps"},
		{"fully qualified", []string{"widgets.v1.example.com"}, "widgets.example.com"},
		{"kind with group", []string{"Deployment.apps"}, "deployments.apps"},
		{"core resource with empty group", []string{"pods.v1."}, "pods"},
		{"duplicates and blanks dropped, order kept", []string{"nodes", " pods ", "", "pod", "nodes"}, "nodes,pods"},
		{"unknown type", []string{"pods", "gadgets"}, `the server doesn't have a resource type "gadgets"`},
		{"nothing", []string{"", " "}, "you must specify the type of resource to use, e.g. pods or deployments.apps"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mappings, err := Resolve(mapper, tt.args)
			var resources []string
			for _, m := range mappings {
				resources = append(resources, m.Resource.GroupResource().String())
			}
			got := strings.Join(resources, ",")
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("Resolve(%q) = %s, want %s", tt.args, got, tt.want)
			}
		})
	}
}
