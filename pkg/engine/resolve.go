package engine

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Resolve maps what a user typed ("po", "deploy", "deployments.apps",
// "widgets.example.com", "Pod", "pods.v1.") to REST mappings, the way kubectl
// does, and drops duplicates ("po,pods" is one type). An unknown type fails
// with kubectl's message.
func Resolve(mapper meta.RESTMapper, args []string) ([]*meta.RESTMapping, error) {
	var mappings []*meta.RESTMapping
	seen := map[schema.GroupVersionResource]bool{}
	for _, arg := range args {
		arg = strings.TrimSpace(arg)
		if arg == "" {
			continue
		}
		mapping, err := resolveOne(mapper, arg)
		if err != nil {
			return nil, err
		}
		if seen[mapping.Resource] {
			continue
		}
		seen[mapping.Resource] = true
		mappings = append(mappings, mapping)
	}
	if len(mappings) == 0 {
		return nil, fmt.Errorf("you must specify the type of resource to use, e.g. pods or deployments.apps")
	}
	return mappings, nil
}

// resolveOne follows cli-runtime's resource.Builder.mappingFor: first as a
// resource (plural, singular, short name, optionally group- and
// version-qualified), then as a kind.
func resolveOne(mapper meta.RESTMapper, arg string) (*meta.RESTMapping, error) {
	fullySpecifiedGVR, groupResource := schema.ParseResourceArg(arg)
	var gvk schema.GroupVersionKind
	if fullySpecifiedGVR != nil {
		gvk, _ = mapper.KindFor(*fullySpecifiedGVR)
	}
	if gvk.Empty() {
		gvk, _ = mapper.KindFor(groupResource.WithVersion(""))
	}
	if !gvk.Empty() {
		return mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	}

	fullySpecifiedGVK, groupKind := schema.ParseKindArg(arg)
	if fullySpecifiedGVK == nil {
		gvk := groupKind.WithVersion("")
		fullySpecifiedGVK = &gvk
	}
	if !fullySpecifiedGVK.Empty() {
		if mapping, err := mapper.RESTMapping(fullySpecifiedGVK.GroupKind(), fullySpecifiedGVK.Version); err == nil {
			return mapping, nil
		}
	}
	mapping, err := mapper.RESTMapping(groupKind, gvk.Version)
	if err != nil {
		if meta.IsNoMatchError(err) {
			return nil, fmt.Errorf("the server doesn't have a resource type %q", groupResource.Resource)
		}
		return nil, fmt.Errorf("resolving resource type %q: %w", arg, err)
	}
	return mapping, nil
}
