package aggregate

import (
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// PodAllocation is a pod reduced to what [AllocationByNode] and the built-in measures read, with its
// requests and limits computed once: a cache of PodAllocation holds a few hundred bytes per pod where a
// cache of pods, even stripped by [TransformPod], holds several KB. [NewPodAllocationTransform] builds
// them as pods enter a cache.
//
// Its metadata holds the pod's name, namespace and resourceVersion, enough for a cache's storage
// key and namespace index, and nothing else. It is a runtime.Object so that client-go's informers
// and stores take it as they take a pod.
//
// A PodAllocation may share its Requests and Limits lists, and its strings, with other PodAllocations: never
// mutate one.
type PodAllocation struct {
	metav1.TypeMeta
	metav1.ObjectMeta

	// NodeName is the pod's spec.nodeName, "" while it is unscheduled.
	NodeName string
	// Phase is the pod's status.phase.
	Phase corev1.PodPhase
	// Requests and Limits are [PodRequests] and [PodLimits] of the pod: empty for a terminal pod.
	Requests corev1.ResourceList
	Limits   corev1.ResourceList
	// Restarts is the restarts measure: the sum of restartCount over the pod's container and init
	// container statuses.
	Restarts int64
	// Containers is the containers measure: app containers plus sidecars.
	Containers int64
}

// NewPodAllocation returns pod's allocation, its lists and strings its own.
func NewPodAllocation(pod *corev1.Pod) *PodAllocation {
	return &PodAllocation{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: pod.Name, Namespace: pod.Namespace, ResourceVersion: pod.ResourceVersion},
		NodeName:   pod.Spec.NodeName,
		Phase:      pod.Status.Phase,
		Requests:   PodRequests(pod),
		Limits:     PodLimits(pod),
		Restarts:   podRestarts(pod),
		Containers: podContainers(pod),
	}
}

// IsTerminal reports whether the pod was Succeeded or Failed (see [IsTerminal]).
func (u *PodAllocation) IsTerminal() bool {
	return u.Phase == corev1.PodSucceeded || u.Phase == corev1.PodFailed
}

// value returns the built-in measure m of the pod.
func (u *PodAllocation) value(m Measure) resource.Quantity {
	switch m.kind {
	case measureRequests:
		return u.Requests[m.Resource].DeepCopy()
	case measureLimits:
		return u.Limits[m.Resource].DeepCopy()
	case measureRestarts:
		return *resource.NewQuantity(u.Restarts, resource.DecimalSI)
	case measureContainers:
		return *resource.NewQuantity(u.Containers, resource.DecimalSI)
	}
	return resource.Quantity{}
}

// DeepCopyObject returns a copy of u that shares nothing with it.
func (u *PodAllocation) DeepCopyObject() runtime.Object {
	out := *u
	u.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Requests = u.Requests.DeepCopy()
	out.Limits = u.Limits.DeepCopy()
	return &out
}

// NewPodAllocationTransform returns a client-go cache.TransformFunc for a pods informer that serves
// only [AllocationByNode] and the built-in measures: it replaces a *corev1.Pod by its [PodAllocation] and
// passes anything else (a PodAllocation already, a tombstone) unchanged, so it is idempotent, as
// client-go asks. It leaves the pod alone.
//
// The PodAllocations it returns share equal requests and limits lists and equal namespace and node
// names (the pods of one Deployment on one node share them all), so the cache holds each once.
// The function is safe for concurrent use, as informers of several namespaces may call it; what
// it shares lives as long as the function.
func NewPodAllocationTransform() func(interface{}) (interface{}, error) {
	in := &allocationInterner{lists: map[string]corev1.ResourceList{}, strings: map[string]string{}}
	return func(obj interface{}) (interface{}, error) {
		pod, ok := obj.(*corev1.Pod)
		if !ok || pod == nil {
			return obj, nil
		}
		u := NewPodAllocation(pod)
		in.share(u)
		return u, nil
	}
}

// allocationInterner holds one copy of each requests or limits list and of each namespace and node
// name seen.
type allocationInterner struct {
	mu      sync.Mutex
	lists   map[string]corev1.ResourceList
	strings map[string]string
	key     []byte
	names   []corev1.ResourceName
}

// share replaces u's lists and names by the copies seen before, keeping u's as the copies of
// values not seen yet.
func (in *allocationInterner) share(u *PodAllocation) {
	in.mu.Lock()
	defer in.mu.Unlock()
	u.Requests = in.list(u.Requests)
	u.Limits = in.list(u.Limits)
	u.Namespace = in.string(u.Namespace)
	u.NodeName = in.string(u.NodeName)
}

func (in *allocationInterner) string(s string) string {
	if shared, ok := in.strings[s]; ok {
		return shared
	}
	in.strings[s] = s
	return s
}

// list returns the shared list equal to l: the same resources, each with the same quantity in
// the same format, so that sums over shared lists are those over the originals, to the format
// of the result.
func (in *allocationInterner) list(l corev1.ResourceList) corev1.ResourceList {
	in.names = in.names[:0]
	for name := range l {
		in.names = append(in.names, name)
	}
	slices.Sort(in.names)
	key := in.key[:0]
	var scratch [64]byte
	for _, name := range in.names {
		q := l[name]
		number, suffix := q.CanonicalizeBytes(scratch[:0])
		key = append(key, name...)
		key = append(key, '=')
		key = append(key, number...)
		key = append(key, suffix...)
		key = append(key, '/')
		key = append(key, q.Format...)
		key = append(key, ';')
	}
	in.key = key
	if shared, ok := in.lists[string(key)]; ok {
		return shared
	}
	in.lists[string(key)] = l
	return l
}

// PodAllocationNodeIndex is the node index ("node") of a cache of [PodAllocation]: a pod's node, "" while
// it is unscheduled. Other objects have no value. It unwraps a tombstone.
var PodAllocationNodeIndex = index.Definition{
	Name:        "node",
	Description: "spec.nodeName of a pod's allocation; unscheduled pods have the empty value (node=)",
	Func: func(obj interface{}) ([]string, error) {
		if u, ok := index.Unwrap(obj).(*PodAllocation); ok && u != nil {
			return []string{u.NodeName}, nil
		}
		return nil, nil
	},
}
