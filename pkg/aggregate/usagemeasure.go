package aggregate

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/usage"
)

// usagePrefix starts the names of the usage measures.
const usagePrefix = "usage."

// usageSamples is what the usage measures of one answer read: the metrics
// API's samples, or nothing when the API could not be read (known false).
type usageSamples struct {
	snapshot *usage.Snapshot
	known    bool
}

// usageMeasure builds the measure usage.RESOURCE: cpu or memory, as the
// metrics API reports them.
func usageMeasure(s, r string) (Measure, error) {
	switch corev1.ResourceName(r) {
	case corev1.ResourceCPU, corev1.ResourceMemory:
		return Measure{Name: s, Resource: corev1.ResourceName(r), kind: measureUsage}, nil
	}
	return Measure{}, fmt.Errorf("%s %s: the metrics API measures usage.cpu and usage.memory only", sumFlag, s)
}

// IsUsage reports whether m is a usage measure (usage.cpu, usage.memory): a
// pod's or node's usage in the metrics API's samples, which [BindUsage]
// gives it.
func (m Measure) IsUsage() bool { return m.kind == measureUsage }

// ReadsUsage reports whether m reads the metrics API's samples: a usage measure, or a share
// measure of usage (usage.cpu/requests.cpu).
func (m Measure) ReadsUsage() bool { return m.IsUsage() || m.IsShare() }

// NeedsUsage reports whether one of ms reads the metrics API's samples ([Measure.ReadsUsage]).
func NeedsUsage(ms []Measure) bool {
	for _, m := range ms {
		if m.ReadsUsage() {
			return true
		}
	}
	return false
}

// BindUsage returns a copy of ms whose usage measures (and the usage parts of
// share measures) read s: an object's
// value is the usage of its sample in s ([usage.Snapshot.Of]: a pod's
// containers summed, a node's own; cpu in millicores rounded up, as kubectl
// top prints it, memory in bytes), zero when s has no sample of it, as
// a pod that kubectl top does not list adds nothing to a sum. A nil s says
// the metrics API could not be read: the values are zero and a [Grouper]'s
// cells of those measures are blank. The other measures are copied as they
// are. A usage measure that was never bound fails ([Values]).
func BindUsage(ms []Measure, s *usage.Snapshot) []Measure {
	out := append([]Measure(nil), ms...)
	samples := &usageSamples{snapshot: s, known: s != nil}
	for i := range out {
		switch {
		case out[i].IsUsage():
			out[i].samples = samples
		case out[i].IsShare():
			parts := *out[i].share
			parts.used.samples = samples
			out[i].share = &parts
		}
	}
	return out
}

// unknown reports whether m is a usage measure bound to no samples: its
// cells are blank.
func (m Measure) unknown() bool {
	return m.IsUsage() && m.samples != nil && !m.samples.known
}

// usageValue is the usage measure m of obj.
func (m Measure) usageValue(obj interface{}) (resource.Quantity, error) {
	if m.samples == nil {
		return resource.Quantity{}, fmt.Errorf("measure %s: no sample of the metrics API was read", m.Name)
	}
	zero := *resource.NewQuantity(0, resource.BinarySI)
	if m.Resource == corev1.ResourceCPU {
		zero = *resource.NewMilliQuantity(0, resource.DecimalSI)
	}
	sample, ok := m.samples.snapshot.Of(index.Unwrap(obj))
	if !ok {
		return zero, nil
	}
	q, ok := sample.Usage[m.Resource]
	if !ok {
		return zero, nil
	}
	if m.Resource == corev1.ResourceCPU {
		// In whole millicores, rounded up, as kubectl top prints it.
		return *resource.NewMilliQuantity(q.MilliValue(), resource.DecimalSI), nil
	}
	return q.DeepCopy(), nil
}

// usageValues is Values for measures of which some are usage measures: the
// others are computed together, as Values computes them, and each usage
// measure from its samples.
func usageValues(ms []Measure, obj interface{}) ([]resource.Quantity, error) {
	others := make([]Measure, 0, len(ms))
	for _, m := range ms {
		if !m.IsUsage() {
			others = append(others, m)
		}
	}
	var otherValues []resource.Quantity
	if len(others) > 0 {
		var err error
		if otherValues, err = Values(others, obj); err != nil {
			return nil, err
		}
	}
	values := make([]resource.Quantity, len(ms))
	next := 0
	for i, m := range ms {
		if !m.IsUsage() {
			values[i] = otherValues[next]
			next++
			continue
		}
		q, err := m.usageValue(obj)
		if err != nil {
			return nil, err
		}
		values[i] = q
	}
	return values, nil
}

// withoutUsage returns the measures of ms that are not usage measures.
func withoutUsage(ms []Measure) []Measure {
	var out []Measure
	for _, m := range ms {
		if !m.IsUsage() {
			out = append(out, m)
		}
	}
	return out
}
