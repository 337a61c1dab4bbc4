// Package usage reads what pods and nodes use from the metrics API
// (metrics.k8s.io/v1beta1, served by metrics-server): per pod its
// containers' usage summed as kubectl top sums them, per node the node's own,
// each with the time and window of the sample it comes from.
//
// The metrics API has no watch: Fetch answers one LIST of PodMetrics and one
// of NodeMetrics, and a Poller repeats them while its Run lasts and keeps the
// latest Snapshot; Follow runs a Poller and hands each new Snapshot on. metrics-server takes a sample of every node and its pods
// once per its --metric-resolution, so a sample is up to that old when it is
// read, plus however long ago it was read.
package usage

import (
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
)

// Sample is what one pod or node used over the window ending at Timestamp,
// as the metrics API reports it: cpu in cores (a rate over Window), memory
// as the working set in bytes at Timestamp.
type Sample struct {
	// Timestamp is when the metrics were collected; the CPU rate is over
	// [Timestamp-Window, Timestamp].
	Timestamp time.Time
	// Window is the interval the CPU rate was computed over.
	Window time.Duration
	// Usage holds cpu and memory, and any other resource the API reports.
	// For a pod it is the sum over its containers, and holds cpu and memory
	// even when no container reports them (as zero), as kubectl top prints
	// them.
	Usage corev1.ResourceList
}

// CPU is the sample's cpu usage in cores; zero if it has none.
func (s Sample) CPU() resource.Quantity { return s.Usage[corev1.ResourceCPU] }

// Memory is the sample's memory working set in bytes; zero if it has none.
func (s Sample) Memory() resource.Quantity { return s.Usage[corev1.ResourceMemory] }

// Age is how old the sample is at now: now minus its Timestamp.
func (s Sample) Age(now time.Time) time.Duration { return now.Sub(s.Timestamp) }

// PodSample is one pod's sample: its containers' usage summed, and each
// container's.
type PodSample struct {
	Namespace string
	Name      string
	Sample
	// Containers are the containers' own usage, sorted by name:
	// metrics-server lists them in an order that changes between readings.
	Containers []ContainerUsage
}

// ContainerUsage is one container's usage in a PodSample.
type ContainerUsage struct {
	Name  string
	Usage corev1.ResourceList
}

// NodeSample is one node's sample: the node's own usage as its kubelet
// reports it (everything on the node, not only its pods).
type NodeSample struct {
	Name string
	Sample
}

// Snapshot is one reading of the metrics API: the latest sample of every
// pod and node it reported. A Snapshot is not changed once returned; it may
// be read from any goroutine.
type Snapshot struct {
	// Fetched is when the reading's LISTs had returned.
	Fetched time.Time
	// Pods are by storage key (namespace/name); nil if pods were not asked.
	Pods map[string]PodSample
	// Nodes are by name; nil if nodes were not asked.
	Nodes map[string]NodeSample
}

// Pod returns the sample of the pod namespace/name, if the API reported it;
// a nil Snapshot has none.
func (s *Snapshot) Pod(namespace, name string) (PodSample, bool) {
	if s == nil {
		return PodSample{}, false
	}
	p, ok := s.Pods[namespace+"/"+name]
	return p, ok
}

// Node returns the sample of the node name, if the API reported it; a nil
// Snapshot has none.
func (s *Snapshot) Node(name string) (NodeSample, bool) {
	if s == nil {
		return NodeSample{}, false
	}
	n, ok := s.Nodes[name]
	return n, ok
}

// Span returns the oldest and newest Timestamp of the snapshot's samples;
// zero times if it has none. The oldest sample's age is what a reader should
// show as the snapshot's age.
func (s *Snapshot) Span() (oldest, newest time.Time) {
	see := func(t time.Time) {
		if oldest.IsZero() || t.Before(oldest) {
			oldest = t
		}
		if t.After(newest) {
			newest = t
		}
	}
	for _, p := range s.Pods {
		see(p.Timestamp)
	}
	for _, n := range s.Nodes {
		see(n.Timestamp)
	}
	return oldest, newest
}

// SameSamples reports whether s and other hold the same samples: the same
// pods and nodes, each with the same Timestamp, Window and usage. Fetched is
// not compared.
func (s *Snapshot) SameSamples(other *Snapshot) bool {
	if s == nil || other == nil {
		return s == other
	}
	if len(s.Pods) != len(other.Pods) || len(s.Nodes) != len(other.Nodes) || (s.Pods == nil) != (other.Pods == nil) || (s.Nodes == nil) != (other.Nodes == nil) {
		return false
	}
	for key, p := range s.Pods {
		o, ok := other.Pods[key]
		if !ok || !sameSample(p.Sample, o.Sample) || len(p.Containers) != len(o.Containers) {
			return false
		}
		for i, c := range p.Containers {
			if c.Name != o.Containers[i].Name || !sameUsage(c.Usage, o.Containers[i].Usage) {
				return false
			}
		}
	}
	for name, n := range s.Nodes {
		o, ok := other.Nodes[name]
		if !ok || !sameSample(n.Sample, o.Sample) {
			return false
		}
	}
	return true
}

func sameSample(a, b Sample) bool {
	return a.Timestamp.Equal(b.Timestamp) && a.Window == b.Window && sameUsage(a.Usage, b.Usage)
}

func sameUsage(a, b corev1.ResourceList) bool {
	if len(a) != len(b) {
		return false
	}
	for name, q := range a {
		o, ok := b[name]
		if !ok || q.Cmp(o) != 0 {
			return false
		}
	}
	return true
}

// podSample turns a PodMetrics into a PodSample: the containers' usage summed
// per resource, as kubectl top sums it (k8s.io/kubectl/pkg/metricsutil:
// getPodMetrics), with cpu and memory present from zero.
func podSample(m *metricsv1beta1.PodMetrics) PodSample {
	total := corev1.ResourceList{
		corev1.ResourceCPU:    *resource.NewMilliQuantity(0, resource.DecimalSI),
		corev1.ResourceMemory: *resource.NewQuantity(0, resource.BinarySI),
	}
	containers := make([]ContainerUsage, 0, len(m.Containers))
	for _, c := range m.Containers {
		for name, q := range c.Usage {
			sum, ok := total[name]
			if !ok {
				sum = resource.Quantity{Format: q.Format}
			}
			sum.Add(q)
			total[name] = sum
		}
		containers = append(containers, ContainerUsage{Name: c.Name, Usage: c.Usage.DeepCopy()})
	}
	sort.Slice(containers, func(i, j int) bool { return containers[i].Name < containers[j].Name })
	return PodSample{
		Namespace:  m.Namespace,
		Name:       m.Name,
		Sample:     Sample{Timestamp: m.Timestamp.Time, Window: m.Window.Duration, Usage: total},
		Containers: containers,
	}
}

// nodeSample turns a NodeMetrics into a NodeSample.
func nodeSample(m *metricsv1beta1.NodeMetrics) NodeSample {
	return NodeSample{
		Name:   m.Name,
		Sample: Sample{Timestamp: m.Timestamp.Time, Window: m.Window.Duration, Usage: m.Usage.DeepCopy()},
	}
}
