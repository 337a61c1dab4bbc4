package aggregate

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	resourcehelper "k8s.io/component-helpers/resource"
)

// PodRequest returns pod's effective request of the one resource name: the listEntry
// [PodRequests] holds for name, in the same value and format, or the zero Quantity when
// PodRequests has no entry for it (a terminal pod has none). It follows the rules of
// k8s.io/component-helpers/resource PodRequests with [SchedulerOptions] for that one resource,
// without building a list of every resource.
func PodRequest(pod *corev1.Pod, name corev1.ResourceName) resource.Quantity {
	if IsTerminal(pod) {
		return resource.Quantity{}
	}
	q := containerRequest(pod, name)
	if resourcehelper.IsPodLevelRequestsSet(pod) && resourcehelper.IsSupportedPodLevelResource(name) {
		effective := entryOf(pod.Spec.Resources.Requests, name)
		if pod.Status.Resources != nil {
			spec := effective
			if resourcehelper.IsPodResizeInfeasible(pod) {
				spec = listEntry{}
			}
			effective = maxEntry(spec, entryOf(pod.Status.Resources.Requests, name), entryOf(pod.Status.AllocatedResources, name))
		}
		if effective.ok {
			q = listEntry{q: effective.q.DeepCopy(), ok: true}
		}
	}
	if pod.Spec.Overhead != nil {
		q.add(entryOf(pod.Spec.Overhead, name))
	}
	return q.q
}

// PodLimit returns pod's effective limit of the one resource name: the quantity [PodLimits]
// holds for name, in the same value and format, or the zero Quantity when PodLimits has no entry
// for it. It follows the rules of k8s.io/component-helpers/resource PodLimits with
// [SchedulerOptions] for that one resource.
func PodLimit(pod *corev1.Pod, name corev1.ResourceName) resource.Quantity {
	if IsTerminal(pod) {
		return resource.Quantity{}
	}
	q := containerLimit(pod, name)
	if resourcehelper.IsPodLevelResourcesSet(pod) && resourcehelper.IsSupportedPodLevelResource(name) {
		effective := entryOf(pod.Spec.Resources.Limits, name)
		if pod.Status.Resources != nil {
			spec := effective
			if resourcehelper.IsPodResizeInfeasible(pod) {
				spec = listEntry{}
			}
			effective = maxEntry(spec, entryOf(pod.Status.Resources.Limits, name))
		}
		if effective.ok {
			q = listEntry{q: effective.q.DeepCopy(), ok: true}
		}
	}
	if pod.Spec.Overhead != nil {
		if o := entryOf(pod.Spec.Overhead, name); o.ok && q.ok && !q.q.IsZero() {
			q.q.Add(o.q)
		}
	}
	return q.q
}

// listEntry is one resource's entry in a ResourceList: ok is whether the list has the entry,
// which matters to the format of sums (an entry "0" keeps its format, an absent one has none).
type listEntry struct {
	q  resource.Quantity
	ok bool
}

// entryOf returns the entry of name in l.
func entryOf(l corev1.ResourceList, name corev1.ResourceName) listEntry {
	q, ok := l[name]
	return listEntry{q: q, ok: ok}
}

// add adds y to q as component-helpers' addResourceList adds an entry: a copy of y when q has
// none, else y added to q.
func (q *listEntry) add(y listEntry) {
	if !y.ok {
		return
	}
	if !q.ok {
		*q = listEntry{q: y.q.DeepCopy(), ok: true}
		return
	}
	q.q.Add(y.q)
}

// max sets q to a copy of y when q has no entry or y is greater, as component-helpers'
// maxResourceList does: on a tie q keeps its own value and format.
func (q *listEntry) max(y listEntry) {
	if !y.ok {
		return
	}
	if !q.ok || y.q.Cmp(q.q) > 0 {
		*q = listEntry{q: y.q.DeepCopy(), ok: true}
	}
}

// maxEntry is component-helpers' max(a, b...) for one entry: a copy of a, then the larger of each b.
func maxEntry(a listEntry, b ...listEntry) listEntry {
	result := listEntry{}
	if a.ok {
		result = listEntry{q: a.q.DeepCopy(), ok: true}
	}
	for _, y := range b {
		result.max(y)
	}
	return result
}

// containerResourceFunc picks the list one container contributes, given its status (nil when it
// has none) and whether the pod's resize is infeasible.
type containerResourceFunc func(c *corev1.Container, cs *corev1.ContainerStatus, resizeInfeasible bool) corev1.ResourceList

// containerRequest is AggregateContainerRequests for one resource, with the status resources
// (in-place resize) considered, as [SchedulerOptions] asks.
func containerRequest(pod *corev1.Pod, name corev1.ResourceName) listEntry {
	infeasible := resourcehelper.IsPodResizeInfeasible(pod)
	spec := aggregateContainers(pod, name, infeasible, specRequests)
	var allocated, actuated listEntry
	if pod.Status.AllocatedResources != nil && pod.Status.Resources != nil && pod.Status.Resources.Requests != nil {
		allocated = entryOf(pod.Status.AllocatedResources, name)
		actuated = entryOf(pod.Status.Resources.Requests, name)
	} else {
		allocated = aggregateContainers(pod, name, infeasible, allocatedRequests)
		actuated = aggregateContainers(pod, name, infeasible, actuatedRequests)
	}
	var m listEntry
	if infeasible {
		m = maxEntry(actuated, allocated)
	} else {
		m = maxEntry(spec, actuated, allocated)
	}
	var q listEntry
	q.add(m)
	return q
}

// containerLimit is AggregateContainerLimits for one resource, with the status resources
// considered.
func containerLimit(pod *corev1.Pod, name corev1.ResourceName) listEntry {
	infeasible := resourcehelper.IsPodResizeInfeasible(pod)
	spec := aggregateContainers(pod, name, infeasible, specLimits)
	var actuated listEntry
	if pod.Status.Resources != nil && pod.Status.Resources.Limits != nil {
		actuated = entryOf(pod.Status.Resources.Limits, name)
	} else {
		actuated = aggregateContainers(pod, name, infeasible, actuatedLimits)
	}
	var q listEntry
	if infeasible {
		q.add(actuated)
	} else {
		q.add(maxEntry(spec, actuated))
	}
	return q
}

// aggregateContainers is component-helpers' aggregateContainerResourcesByFn for one resource:
// the app containers and sidecars summed, then the larger of that and each init container with
// the sidecars started before it.
func aggregateContainers(pod *corev1.Pod, name corev1.ResourceName, infeasible bool, list containerResourceFunc) listEntry {
	var result listEntry
	for i := range pod.Spec.Containers {
		c := &pod.Spec.Containers[i]
		result.add(entryOf(list(c, containerStatusOf(pod, c.Name), infeasible), name))
	}
	var sidecars, init listEntry
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		r := entryOf(list(c, containerStatusOf(pod, c.Name), infeasible), name)
		if isRestartableInitContainer(c) {
			result.add(r)
			sidecars.add(r)
			r = sidecars
		} else {
			var combined listEntry
			combined.add(r)
			combined.add(sidecars)
			r = combined
		}
		init.max(r)
	}
	result.max(init)
	return result
}

// containerStatusOf returns the status of the container or init container named name, the
// first found, or nil.
func containerStatusOf(pod *corev1.Pod, name string) *corev1.ContainerStatus {
	for i := range pod.Status.ContainerStatuses {
		if pod.Status.ContainerStatuses[i].Name == name {
			return &pod.Status.ContainerStatuses[i]
		}
	}
	for i := range pod.Status.InitContainerStatuses {
		if pod.Status.InitContainerStatuses[i].Name == name {
			return &pod.Status.InitContainerStatuses[i]
		}
	}
	return nil
}

func specRequests(c *corev1.Container, _ *corev1.ContainerStatus, _ bool) corev1.ResourceList {
	return c.Resources.Requests
}

func allocatedRequests(c *corev1.Container, cs *corev1.ContainerStatus, infeasible bool) corev1.ResourceList {
	if cs != nil && cs.AllocatedResources != nil {
		return cs.AllocatedResources
	}
	if infeasible {
		return nil
	}
	return c.Resources.Requests
}

func actuatedRequests(c *corev1.Container, cs *corev1.ContainerStatus, infeasible bool) corev1.ResourceList {
	if cs != nil && cs.Resources != nil && cs.Resources.Requests != nil {
		return cs.Resources.Requests
	}
	if cs != nil && cs.AllocatedResources != nil {
		return cs.AllocatedResources
	}
	if infeasible {
		return nil
	}
	return c.Resources.Requests
}

func specLimits(c *corev1.Container, _ *corev1.ContainerStatus, _ bool) corev1.ResourceList {
	return c.Resources.Limits
}

func actuatedLimits(c *corev1.Container, cs *corev1.ContainerStatus, infeasible bool) corev1.ResourceList {
	if cs != nil && cs.Resources != nil && cs.Resources.Limits != nil {
		return cs.Resources.Limits
	}
	if infeasible {
		return nil
	}
	return c.Resources.Limits
}
