package server

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

func TestWithNodeIndex(t *testing.T) {
	pods := &meta.RESTMapping{Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"}}
	configMaps := &meta.RESTMapping{Resource: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}}
	set, err := index.NewSet()
	if err != nil {
		t.Fatal(err)
	}
	node, _ := set.Lookup("node")
	app, _ := set.Lookup("label:app")
	names := func(defs []index.Definition) (out []string) {
		for _, d := range defs {
			out = append(out, d.Name)
		}
		return out
	}
	tests := []struct {
		name    string
		mapping *meta.RESTMapping
		defs    []index.Definition
		want    []string
	}{
		{"pods", pods, nil, []string{"node"}},
		{"pods with another index", pods, []index.Definition{app}, []string{"label:app", "node"}},
		{"pods with node asked", pods, []index.Definition{node, app}, []string{"node", "label:app"}},
		{"another type", configMaps, []index.Definition{app}, []string{"label:app"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defs := append(make([]index.Definition, 0, 4), tt.defs...)
			got := names(withNodeIndex(tt.mapping, defs))
			if !slices.Equal(got, tt.want) {
				t.Errorf("withNodeIndex = %q, want %q", got, tt.want)
			}
			if spare := defs[:len(defs)+1]; spare[len(defs)].Name != "" {
				t.Errorf("withNodeIndex wrote %q into its argument's spare capacity", spare[len(defs)].Name)
			}
		})
	}
}
