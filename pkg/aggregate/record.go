package aggregate

import (
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// RecordPlan returns the plan of index.Records that keep the values of defs
// and the measures ms of each object, computed as [Values] computes them from
// the whole object; [Values] reads them back from a Record by name. Usage
// measures are not kept: their values change with every sample, and Values
// reads them by the Record's namespace and name. A share measure is kept as
// its parts.
func RecordPlan(defs []index.Definition, ms []Measure) *index.RecordPlan {
	ms = withoutUsage(summed(ms))
	if len(ms) == 0 {
		return index.NewRecordPlan(defs, nil, nil)
	}
	return index.NewRecordPlan(defs, measureNames(ms), func(obj interface{}) ([]resource.Quantity, error) {
		return Values(ms, obj)
	})
}

// measureNames returns the names of ms, in order.
func measureNames(ms []Measure) []string {
	names := make([]string, len(ms))
	for i, m := range ms {
		names[i] = m.Name
	}
	return names
}
