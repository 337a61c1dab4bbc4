package capacity

import (
	"encoding/json"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// This file computes, independently of pkg/aggregate, what the scheduler
// counts of each pod on its node, by the rules Kubernetes documents
// (https://kubernetes.io/docs/concepts/workloads/pods/sidecar-containers/#resource-sharing-within-containers
// and .../scheduling-eviction/pod-overhead/):
//
//   - a pod's effective request of a resource is the larger of (a) the sum
//     over its app containers and its sidecars (init containers with
//     restartPolicy Always) and (b) for each init container, its request plus
//     the requests of the sidecars started before it (for a sidecar, the
//     sidecars up to and including it);
//   - pod overhead (from its RuntimeClass) is added to every request, and to
//     the limits that are set;
//   - a limit that some containers leave unset is the sum of those set;
//   - Succeeded and Failed pods hold nothing.

// podResources returns pod's effective requests, or limits when limits is
// true.
func podResources(pod *corev1.Pod, limits bool) corev1.ResourceList {
	total := corev1.ResourceList{}
	if pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
		return total
	}
	of := func(c *corev1.Container) corev1.ResourceList {
		if limits {
			return c.Resources.Limits
		}
		return c.Resources.Requests
	}
	for i := range pod.Spec.Containers {
		add(total, of(&pod.Spec.Containers[i]))
	}
	initMax := corev1.ResourceList{}
	sidecars := corev1.ResourceList{}
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			add(total, of(c))
			add(sidecars, of(c))
			maxInto(initMax, sidecars)
			continue
		}
		running := corev1.ResourceList{}
		add(running, sidecars)
		add(running, of(c))
		maxInto(initMax, running)
	}
	maxInto(total, initMax)
	for name, q := range pod.Spec.Overhead {
		if _, set := total[name]; limits && !set {
			continue
		}
		add(total, corev1.ResourceList{name: q})
	}
	return total
}

func add(into, list corev1.ResourceList) {
	for name, q := range list {
		sum := into[name].DeepCopy()
		sum.Add(q)
		into[name] = sum
	}
}

func maxInto(into, list corev1.ResourceList) {
	for name, q := range list {
		if have, ok := into[name]; !ok || q.Cmp(have) > 0 {
			into[name] = q.DeepCopy()
		}
	}
}

// usage is one expected row of a capacity table: a node or a group of
// nodes, with the pods bound there.
type usage struct {
	nodes       int64
	pods        int64
	requests    corev1.ResourceList
	limits      corev1.ResourceList
	allocatable corev1.ResourceList // nil when nodes could not be listed
}

func newUsage() *usage {
	return &usage{requests: corev1.ResourceList{}, limits: corev1.ResourceList{}}
}

// addPod adds a non-terminal pod.
func (u *usage) addPod(p *corev1.Pod) {
	u.pods++
	add(u.requests, podResources(p, false))
	add(u.limits, podResources(p, true))
}

// addNode adds a node's allocatable.
func (u *usage) addNode(n *corev1.Node) {
	if u.allocatable == nil {
		u.allocatable = corev1.ResourceList{}
	}
	u.nodes++
	add(u.allocatable, n.Status.Allocatable)
}

// cluster is what `kubectl get pods -A -o json` and `kubectl get nodes -o
// json` say.
type cluster struct {
	pods  []corev1.Pod
	nodes []corev1.Node
}

func getCluster(t *testing.T) cluster {
	t.Helper()
	var pods corev1.PodList
	if err := json.Unmarshal([]byte(kubectl(t, "get", "pods", "-A", "-o", "json")), &pods); err != nil {
		t.Fatalf("decoding kubectl get pods -A -o json: %v", err)
	}
	var nodes corev1.NodeList
	if err := json.Unmarshal([]byte(kubectl(t, "get", "nodes", "-o", "json")), &nodes); err != nil {
		t.Fatalf("decoding kubectl get nodes -o json: %v", err)
	}
	return cluster{pods: pods.Items, nodes: nodes.Items}
}

func terminal(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}

// expectedCapacity returns the expected rows of capacity, keyed by node name
// or by the nodes' value of label (when label is not ""), counting the pods
// of namespace (all when ""), and the totals row; nodesKnown false leaves
// allocatable out, as for a user who may not list nodes.
func (c cluster) expectedCapacity(label, namespace string, nodesKnown bool) (rows map[string]*usage, total *usage) {
	rows = map[string]*usage{}
	total = newUsage()
	group := map[string]string{}
	if nodesKnown {
		for i := range c.nodes {
			n := &c.nodes[i]
			key := n.Name
			if label != "" {
				key = n.Labels[label]
			}
			group[n.Name] = key
			if rows[key] == nil {
				rows[key] = newUsage()
			}
			rows[key].addNode(n)
			total.addNode(n)
		}
	}
	for i := range c.pods {
		p := &c.pods[i]
		if terminal(p) || p.Spec.NodeName == "" || (namespace != "" && p.Namespace != namespace) {
			continue
		}
		key, ok := group[p.Spec.NodeName]
		if !ok {
			key = p.Spec.NodeName
		}
		if rows[key] == nil {
			rows[key] = newUsage()
		}
		rows[key].addPod(p)
		total.addPod(p)
	}
	return rows, total
}

// percent is used × 100 / allocatable rounded down, as capacity documents.
func percent(used, allocatable resource.Quantity) int64 {
	return used.MilliValue() * 100 / allocatable.MilliValue()
}
