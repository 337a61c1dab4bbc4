// Package aggregate owns grouped tables over cached objects: counts and exact sums of measures
// per group (query --group-by ... --sum ...), sorting and top N of their rows, and the capacity
// table of nodes (requests and limits against allocatable).
//
// # Measures
//
// A [Measure] turns one object into a resource.Quantity. [ParseMeasure] reads a --sum argument:
// the built-in measures of pods (requests.RESOURCE, limits.RESOURCE, restarts, containers) or
// NAME=JSONPATH over any resource. A pod's requests and limits are computed by
// k8s.io/component-helpers/resource, with the options kube-scheduler uses to account a pod on a
// node ([SchedulerOptions]); a Succeeded or Failed pod holds nothing. Sums are exact
// (resource.Quantity.Add) and print in Kubernetes' canonical form: 1 + 330m is "1330m", 4Gi + 160Mi
// is "4256Mi". A glob measure (requests.nvidia.com/*, limits.nvidia.com/mig-*) stands for one
// measure per resource name it matches; [ExpandGlobs] expands it against the names found.
//
// Usage measures (usage.cpu, usage.memory) are what pods and nodes use, from the metrics API's
// samples (package usage), not what they ask for: [BindUsage] gives them an answer's samples,
// and an object's value is looked up by its namespace and name. "Usage" names only these; what
// pods hold on a node by their requests and limits is their allocation ([AllocationByNode]). A
// share measure (usage.cpu/requests.cpu) puts the two side by side: a Grouper sums its parts and
// its cell shows both and the one as a share of the other ([ShareCell]).
//
// A glob measure is expanded against the resources the objects' pods request and limit
// ([ExpandGlobsOver]) before a Grouper of it is made.
//
// # Tables
//
// A [Grouper] counts objects and sums measures per combination of indexed values, with a totals
// row; its [Table] can be sorted by any column ([Table.SortBy]: names in natural order, numbers
// and quantities numerically, percentages by ratio, ties stable) and cut to its first N rows
// ([Table.Top]). A [Live] keeps a Grouper's counts and sums up to date while objects come, change
// and go, and says which groups each change changed (watch --group-by). [Capacity] builds the same kind of Table for nodes from an [AllocationByNode], with more resource
// columns for requests. and limits. measures ([CapacityOptions].Sums) and, per extended
// resource, requested, allocatable and free ([CapacityOptions].Resources), every node listed
// whether or not it has the resource.
//
// # Percentages
//
// A percentage is used × 100 / allocatable rounded down to an integer, as kubectl describe node
// and kube-capacity print it (they truncate a float; here the ratio is exact, so 29 of 100 is 29%,
// never 28%). Allocatable is a node's status.allocatable, or its status.capacity when
// allocatable is empty. When nodes cannot be listed, or a node's allocatable of a resource is
// zero, the percentage is unknown and prints [UnknownPercent].
//
// # Objects
//
// Built-in measures and [AllocationByNode] take *corev1.Pod, or a pod as *unstructured.Unstructured
// (converted first), also inside a cache.DeletedFinalStateUnknown. [TransformPod] strips a pods
// cache down to what they read; [NewPodAllocationTransform] goes further for a cache that serves
// nothing else, replacing each pod by its [PodAllocation] (requests and limits computed once, equal
// lists shared); [TransformNode] strips a nodes cache down to what [Capacity] reads.
//
// The package does no I/O and knows nothing of cobra or of the cache engine. Measures are safe
// for concurrent use; a Grouper, an AllocationByNode and a Table are not.
package aggregate
