package aggregate

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// builtinMeasureReads is what restarts and containers read of a pod besides
// its metadata: its spec (containers, init containers) and its status
// (container statuses).
var builtinMeasureReads = []string{"spec", "status"}

// resourceMeasureReads is what requests.* and limits.* read of a pod besides
// its metadata: what [PodRequest] and [PodLimit] read by component-helpers'
// rules (and [TransformPod] keeps for them) — of each container and init
// container its name, resources and restartPolicy (sidecars), the overhead
// and pod-level resources; of the status the phase (terminal pods), the
// PodResizePending condition, the pod-level resized resources, the DRA
// node-allocatable claims, and of each container status its name and
// resized resources.
var resourceMeasureReads = []string{
	"spec.overhead", "spec.resources",
	"spec.containers.name", "spec.containers.resources", "spec.containers.restartPolicy",
	"spec.initContainers.name", "spec.initContainers.resources", "spec.initContainers.restartPolicy",
	"status.phase", "status.conditions", "status.resources", "status.allocatedResources",
	"status.nodeAllocatableResourceClaimStatuses",
	"status.containerStatuses.name", "status.containerStatuses.resources", "status.containerStatuses.allocatedResources",
	"status.initContainerStatuses.name", "status.initContainerStatuses.resources", "status.initContainerStatuses.allocatedResources",
}

// resourceListPaths are the paths of resourceMeasureReads that are a
// ResourceList, and requirementsPaths those that are a ResourceRequirements
// whose requests and limits are one: a measure of one resource reads only
// that resource's entry of them. The pod-level resources (spec.resources,
// status.resources) are read whole: whether the pod sets them is decided
// by the resources they name.
var (
	resourceListPaths = []string{
		"spec.overhead", "status.allocatedResources",
		"status.containerStatuses.allocatedResources", "status.initContainerStatuses.allocatedResources",
	}
	requirementsPaths = []string{
		"spec.containers.resources", "spec.initContainers.resources",
		"status.containerStatuses.resources", "status.initContainerStatuses.resources",
	}
)

// resourceReads is what a requests or limits measure of resource reads: of
// resourceMeasureReads' resource lists only resource's entries, when its
// name can be a path element (it has no dot, as "nvidia.com/gpu" has); all
// of them otherwise.
func resourceReads(resource corev1.ResourceName) []string {
	name := string(resource)
	if name == "" || strings.Contains(name, ".") {
		return resourceMeasureReads
	}
	var paths []string
	for _, p := range resourceMeasureReads {
		switch {
		case slices.Contains(resourceListPaths, p):
			paths = append(paths, p+"."+name)
		case slices.Contains(requirementsPaths, p):
			paths = append(paths, p+".requests."+name, p+".limits."+name)
		default:
			paths = append(paths, p)
		}
	}
	return paths
}

// FieldsRead returns the fields ms read of an object besides its metadata,
// as field paths in JSON names, and true; false when one of them may read
// any field (a custom JSONPath measure). See index.FieldsRead.
func FieldsRead(ms []Measure) ([]string, bool) {
	paths := []string{}
	for _, m := range ms {
		switch {
		case m.JSONPath != "":
			return nil, false
		case m.IsUsage():
			// The object's namespace and name: its metadata.
		case m.IsShare():
			paths = append(paths, resourceReads(m.Resource)...)
		case m.kind == measureRequests || m.kind == measureLimits:
			paths = append(paths, resourceReads(m.Resource)...)
		default:
			paths = append(paths, builtinMeasureReads...)
		}
	}
	return paths, true
}
