package cache

import (
	"slices"
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
		name    string
		args    []string
		want    []string // resources, group-qualified
		wantErr string
	}{
		{"plural", []string{"pods"}, []string{"pods"}, ""},
		{"singular", []string{"pod"}, []string{"pods"}, ""},
		{"kind", []string{"Pod"}, []string{"pods"}, ""},
		{"group-qualified", []string{"deployments.apps"}, []string{"deployments.apps"}, ""},
		{"fully qualified", []string{"widgets.v1.example.com"}, []string{"widgets.example.com"}, ""},
		{"kind with group", []string{"Deployment.apps"}, []string{"deployments.apps"}, ""},
		{"core resource with empty group", []string{"pods.v1."}, []string{"pods"}, ""},
		{"duplicates and blanks dropped, order kept", []string{"nodes", " pods ", "", "pod", "nodes"}, []string{"nodes", "pods"}, ""},
		{"unknown type", []string{"pods", "gadgets"}, nil, `the server doesn't have a resource type "gadgets"`},
		{"nothing", []string{"", " "}, nil, "you must specify the type of resource to use, e.g. pods or deployments.apps"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mappings, err := Resolve(mapper, tt.args)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Errorf("Resolve(%q) = %v, want error %q", tt.args, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Resolve(%q) = %v", tt.args, err)
			}
			var got []string
			for _, m := range mappings {
				got = append(got, m.Resource.GroupResource().String())
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Resolve(%q) = %v, want %v", tt.args, got, tt.want)
			}
		})
	}
}
