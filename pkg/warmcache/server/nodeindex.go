package server

import (
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// withNodeIndex returns defs, with the built-in node index added for pods:
// the index most pod questions read (--group-by node, --index node=). An
// entry's pods are then indexed by node as they are listed, and the first
// such question after the list does not build the index over every cached
// pod while its client waits.
func withNodeIndex(mapping *meta.RESTMapping, defs []index.Definition) []index.Definition {
	if mapping.Resource.GroupResource() != (schema.GroupResource{Resource: "pods"}) {
		return defs
	}
	set, err := index.NewSet()
	if err != nil {
		return defs
	}
	node, err := set.Lookup("node")
	if err != nil || slices.ContainsFunc(defs, func(d index.Definition) bool { return d.Name == node.Name }) {
		return defs
	}
	return append(slices.Clip(defs), node)
}
