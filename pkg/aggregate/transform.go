package aggregate

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	resourcehelper "k8s.io/component-helpers/resource"
)

// TransformPod is a client-go cache.TransformFunc for a pods informer that only serves
// measures and capacity: it replaces a *corev1.Pod by a new pod holding only what the built-in
// measures, [PodRequests], [PodLimits] and [AllocationByNode] read, so the cache keeps a fraction of
// each pod. Any other object (a tombstone, an unstructured pod) passes unchanged.
//
// It keeps:
//   - metadata: name, namespace, uid, resourceVersion, generation, creation and deletion
//     timestamps, labels and ownerReferences (storage keys, --group-by label: and owner indexes);
//     it drops annotations and managedFields;
//   - spec: nodeName, overhead, pod-level resources, and of each container and init container its
//     name, resources and restartPolicy (sidecars);
//   - status: phase, the PodResizePending condition, pod-level resources and allocatedResources,
//     the DRA node-allocatable claim statuses, and of each container and init container status
//     its name, restartCount, allocatedResources and resources (in-place resize: see
//     [SchedulerOptions]) — the last two only when they differ from the container's spec or a
//     resize is infeasible: PodRequests and PodLimits fall back to the spec when they are absent,
//     so dropping equal copies gives the same result for a fraction of the memory (each
//     ResourceList is a map of several hundred bytes).
//
// It builds a new pod and leaves obj alone, and it is idempotent, as client-go asks.
func TransformPod(obj interface{}) (interface{}, error) {
	pod, ok := obj.(*corev1.Pod)
	if !ok || pod == nil {
		return obj, nil
	}
	out := &corev1.Pod{
		TypeMeta: pod.TypeMeta,
		ObjectMeta: metav1.ObjectMeta{
			Name:              pod.Name,
			Namespace:         pod.Namespace,
			UID:               pod.UID,
			ResourceVersion:   pod.ResourceVersion,
			Generation:        pod.Generation,
			CreationTimestamp: pod.CreationTimestamp,
			DeletionTimestamp: pod.DeletionTimestamp,
			Labels:            pod.Labels,
			OwnerReferences:   pod.OwnerReferences,
		},
		Spec: corev1.PodSpec{
			NodeName:       pod.Spec.NodeName,
			Overhead:       pod.Spec.Overhead,
			Resources:      pod.Spec.Resources,
			Containers:     stripContainers(pod.Spec.Containers),
			InitContainers: stripContainers(pod.Spec.InitContainers),
		},
		Status: corev1.PodStatus{
			Phase:                                pod.Status.Phase,
			Resources:                            pod.Status.Resources,
			AllocatedResources:                   pod.Status.AllocatedResources,
			NodeAllocatableResourceClaimStatuses: pod.Status.NodeAllocatableResourceClaimStatuses,
			ContainerStatuses:                    stripContainerStatuses(pod, pod.Status.ContainerStatuses),
			InitContainerStatuses:                stripContainerStatuses(pod, pod.Status.InitContainerStatuses),
		},
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodResizePending {
			out.Status.Conditions = append(out.Status.Conditions, corev1.PodCondition{
				Type: c.Type, Status: c.Status, Reason: c.Reason,
			})
		}
	}
	return out, nil
}

// stripContainers keeps each container's name, resources and restartPolicy.
func stripContainers(cs []corev1.Container) []corev1.Container {
	if cs == nil {
		return nil
	}
	out := make([]corev1.Container, len(cs))
	for i := range cs {
		out[i] = corev1.Container{
			Name:          cs[i].Name,
			Resources:     corev1.ResourceRequirements{Requests: cs[i].Resources.Requests, Limits: cs[i].Resources.Limits},
			RestartPolicy: cs[i].RestartPolicy,
		}
	}
	return out
}

// stripContainerStatuses keeps each status's name and restartCount, and its allocatedResources
// and resources when PodRequests and PodLimits could read something else without them: when
// they differ from its container's spec, or when a resize is infeasible (the helper then reads
// no spec for a container without status resources).
func stripContainerStatuses(pod *corev1.Pod, ss []corev1.ContainerStatus) []corev1.ContainerStatus {
	if ss == nil {
		return nil
	}
	infeasible := resourcehelper.IsPodResizeInfeasible(pod)
	out := make([]corev1.ContainerStatus, len(ss))
	for i := range ss {
		out[i] = corev1.ContainerStatus{Name: ss[i].Name, RestartCount: ss[i].RestartCount}
		if infeasible || !statusMatchesSpec(&ss[i], specContainer(pod, ss[i].Name)) {
			out[i].AllocatedResources = ss[i].AllocatedResources
			out[i].Resources = ss[i].Resources
		}
	}
	return out
}

// specContainer returns the container or init container of pod named name, or nil.
func specContainer(pod *corev1.Pod, name string) *corev1.Container {
	for i := range pod.Spec.Containers {
		if pod.Spec.Containers[i].Name == name {
			return &pod.Spec.Containers[i]
		}
	}
	for i := range pod.Spec.InitContainers {
		if pod.Spec.InitContainers[i].Name == name {
			return &pod.Spec.InitContainers[i]
		}
	}
	return nil
}

// statusMatchesSpec reports whether a container status's allocated and actuated resources, where
// set, equal its container's spec, so that reading the spec instead gives the same result.
func statusMatchesSpec(s *corev1.ContainerStatus, c *corev1.Container) bool {
	if c == nil {
		return false
	}
	if s.AllocatedResources != nil && !sameResources(s.AllocatedResources, c.Resources.Requests) {
		return false
	}
	if s.Resources != nil && (!sameResources(s.Resources.Requests, c.Resources.Requests) ||
		!sameResources(s.Resources.Limits, c.Resources.Limits)) {
		return false
	}
	return true
}

// sameResources reports whether two ResourceLists hold the same resources with equal quantities.
func sameResources(a, b corev1.ResourceList) bool {
	if len(a) != len(b) {
		return false
	}
	for name, qa := range a {
		qb, ok := b[name]
		if !ok || qa.Cmp(qb) != 0 {
			return false
		}
	}
	return true
}

// TransformNode is a client-go cache.TransformFunc for a nodes informer that only serves
// [Capacity]: it replaces a *corev1.Node by a new node holding its name, uid, resourceVersion,
// creation timestamp and labels (grouping by a node label), and its status.allocatable and
// status.capacity. It drops the rest, status.images (often the largest part of a node)
// included. Any other object passes unchanged. It builds a new node and leaves obj alone, and
// it is idempotent, as client-go asks.
func TransformNode(obj interface{}) (interface{}, error) {
	node, ok := obj.(*corev1.Node)
	if !ok || node == nil {
		return obj, nil
	}
	return &corev1.Node{
		TypeMeta: node.TypeMeta,
		ObjectMeta: metav1.ObjectMeta{
			Name:              node.Name,
			UID:               node.UID,
			ResourceVersion:   node.ResourceVersion,
			CreationTimestamp: node.CreationTimestamp,
			Labels:            node.Labels,
		},
		Status: corev1.NodeStatus{
			Allocatable: node.Status.Allocatable,
			Capacity:    node.Status.Capacity,
		},
	}, nil
}
