package columns

import (
	"strings"
	"time"

	resourcev1 "k8s.io/api/resource/v1"
)

var deviceClassTable = Table{
	Columns: columnsOf([]string{"Name", "Age"}),
	Row: typedRow(func(c *resourcev1.DeviceClass, now time.Time) []string {
		return []string{c.Name, age(c.CreationTimestamp, now)}
	}),
}

var resourceClaimTemplateTable = Table{
	Columns: columnsOf([]string{"Name", "Age"}),
	Row: typedRow(func(t *resourcev1.ResourceClaimTemplate, now time.Time) []string {
		return []string{t.Name, age(t.CreationTimestamp, now)}
	}),
}

var resourceClaimTable = Table{
	Columns: columnsOf([]string{"Name", "State", "Age"}),
	Row: typedRow(func(c *resourcev1.ResourceClaim, now time.Time) []string {
		return []string{c.Name, resourceClaimState(c), age(c.CreationTimestamp, now)}
	}),
}

// resourceClaimState is printers.go's resourceClaimState: "deleted" for a claim being deleted,
// then "pending" (not allocated, not deleted) or "allocated" and "reserved" when reserved for a
// consumer, joined with commas.
func resourceClaimState(c *resourcev1.ResourceClaim) string {
	var states []string
	if c.DeletionTimestamp != nil {
		states = append(states, "deleted")
	}
	switch {
	case c.Status.Allocation == nil && c.DeletionTimestamp == nil:
		states = append(states, "pending")
	case c.Status.Allocation != nil:
		states = append(states, "allocated")
		if len(c.Status.ReservedFor) > 0 {
			states = append(states, "reserved")
		}
	}
	return strings.Join(states, ",")
}

var resourceSliceTable = Table{
	Columns: columnsOf([]string{"Name", "Node", "Driver", "Pool", "Age"}),
	Row: typedRow(func(s *resourcev1.ResourceSlice, now time.Time) []string {
		node := ""
		if s.Spec.NodeName != nil {
			node = *s.Spec.NodeName
		}
		return []string{s.Name, node, s.Spec.Driver, s.Spec.Pool.Name, age(s.CreationTimestamp, now)}
	}),
}

var deviceTaintRuleTable = Table{
	Columns: columnsOf([]string{"Name", "Key", "Value", "Effect", "TimeAdded", "Age"}),
	Row: typedRow(func(r *resourcev1.DeviceTaintRule, now time.Time) []string {
		added := ""
		if t := r.Spec.Taint.TimeAdded; t != nil {
			added = age(*t, now)
		}
		taint := r.Spec.Taint
		return []string{r.Name, taint.Key, taint.Value, string(taint.Effect), added, age(r.CreationTimestamp, now)}
	}),
}
