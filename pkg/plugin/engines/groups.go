package engines

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/kubectl-informer/kubectl-informer/pkg/aggregate"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// This file holds what query and watch parse alike of --group-by and --sum.

// ParseGroups looks up the --group-by index names in set, each once, and
// parses the --sum measures; a glob measure (requests.nvidia.com/*) is
// expanded by the table against the objects it reads.
func ParseGroups(set *index.Set, groupBy, sums []string) ([]index.Definition, []aggregate.Measure, error) {
	var defs []index.Definition
	for _, name := range groupBy {
		name = strings.TrimSpace(name)
		if name == "" {
			return nil, nil, fmt.Errorf("--group-by needs index names, got %q", strings.Join(groupBy, ","))
		}
		def, err := set.Lookup(name)
		if err != nil {
			return nil, nil, fmt.Errorf("--group-by %s: %w", name, err)
		}
		for _, have := range defs {
			if have.Name == def.Name {
				return nil, nil, fmt.Errorf("--group-by %s: named twice", name)
			}
		}
		defs = append(defs, def)
	}
	var measures []aggregate.Measure
	for _, s := range sums {
		m, err := aggregate.ParseMeasure(s)
		if err != nil {
			return nil, nil, err
		}
		measures = append(measures, m)
	}
	return defs, measures, nil
}

// CheckMeasureTypes refuses built-in measures, which read pods, on other
// types, and usage measures on types other than pods and nodes.
func CheckMeasureTypes(measures []aggregate.Measure, mappings []*meta.RESTMapping) error {
	for _, m := range measures {
		if m.IsUsage() {
			for _, mapping := range mappings {
				if gr := mapping.Resource.GroupResource(); gr.Group != "" || (gr.Resource != "pods" && gr.Resource != "nodes") {
					return fmt.Errorf("--sum %s reads the metrics API, which measures pods and nodes, not %s", m.Name, gr)
				}
			}
			continue
		}
		if !m.PodsOnly {
			continue
		}
		for _, mapping := range mappings {
			if gr := mapping.Resource.GroupResource(); gr.Group != "" || gr.Resource != "pods" {
				return fmt.Errorf("--sum %s reads pods, not %s; sum other types with --sum NAME=JSONPATH", m.Name, gr)
			}
		}
	}
	return nil
}

// PodTransformSafe reports whether every index of defs reads only what
// aggregate.TransformPod keeps of a pod (namespace, labels, owners, node,
// phase), every measure is a built-in one and there is no --filter: then
// the pods cache can hold stripped pods, a fraction of the memory.
func PodTransformSafe(measures []aggregate.Measure, defs []index.Definition, filter bool) bool {
	if len(measures) == 0 || filter {
		// --filter reads the whole object as the API returns it.
		return false
	}
	for _, m := range measures {
		if !m.PodsOnly && !m.IsUsage() {
			return false
		}
	}
	for _, def := range defs {
		switch {
		case def.Name == "namespace", def.Name == "node", def.Name == "phase",
			def.Name == "owner", def.Name == "owner-uid", strings.HasPrefix(def.Name, "label:"):
		default:
			return false
		}
	}
	return true
}
