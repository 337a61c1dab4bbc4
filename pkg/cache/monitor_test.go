package cache

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestMatchesPath(t *testing.T) {
	pods := &Type{Mapping: &meta.RESTMapping{Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"}, Scope: meta.RESTScopeNamespace}}
	widgets := &Type{Mapping: &meta.RESTMapping{Resource: schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}, Scope: meta.RESTScopeNamespace}}
	nodes := &Type{Mapping: &meta.RESTMapping{Resource: schema.GroupVersionResource{Version: "v1", Resource: "nodes"}, Scope: meta.RESTScopeRoot}}
	tests := []struct {
		t    *Type
		path string
		want bool
	}{
		{pods, "/api/v1/pods", true},
		{pods, "/api/v1/namespaces/shop/pods", true},
		{pods, "/api/v1/namespaces/shop/pods/web-1", false},
		{pods, "/api/v1/namespaces/shop/configmaps", false},
		{pods, "/apis/example.com/v1/pods", false},
		{widgets, "/apis/example.com/v1/namespaces/a/widgets", true},
		{widgets, "/apis/example.com/v1/widgets", true},
		{nodes, "/api/v1/nodes", true},
		{nodes, "/api/v1/namespaces/x/nodes", false},
	}
	for _, tt := range tests {
		if got := tt.t.matchesPath(tt.path); got != tt.want {
			t.Errorf("%s.matchesPath(%q) = %v, want %v", tt.t.Name(), tt.path, got, tt.want)
		}
	}
}
