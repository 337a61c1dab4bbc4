package aggregate

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

// FieldsRead returns the fields ms read of an object besides its metadata,
// as field paths in JSON names, and true; false when one of them may read
// any field (a custom JSONPath measure). See index.FieldsRead.
func FieldsRead(ms []Measure) ([]string, bool) {
	paths := []string{}
	for _, m := range ms {
		switch {
		case m.JSONPath != "":
			return nil, false
		case m.kind == measureRequests || m.kind == measureLimits:
			paths = append(paths, resourceMeasureReads...)
		default:
			paths = append(paths, builtinMeasureReads...)
		}
	}
	return paths, true
}
