package columns

import (
	"fmt"
	"slices"
	"strings"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
)

var podDisruptionBudgetTable = Table{
	Columns: columnsOf([]string{"Name", "Min Available", "Max Unavailable", "Allowed Disruptions", "Age"}),
	Row:     typedRow(podDisruptionBudgetRow),
}

// podDisruptionBudgetRow is printers.go's printPodDisruptionBudget: an unset bound is "N/A".
func podDisruptionBudgetRow(pdb *policyv1.PodDisruptionBudget, now time.Time) []string {
	minAvailable, maxUnavailable := "N/A", "N/A"
	if pdb.Spec.MinAvailable != nil {
		minAvailable = pdb.Spec.MinAvailable.String()
	}
	if pdb.Spec.MaxUnavailable != nil {
		maxUnavailable = pdb.Spec.MaxUnavailable.String()
	}
	return []string{pdb.Name, minAvailable, maxUnavailable, int64Cell(pdb.Status.DisruptionsAllowed),
		age(pdb.CreationTimestamp, now)}
}

var horizontalPodAutoscalerTable = Table{
	Columns: columnsOf([]string{"Name", "Reference", "Targets", "MinPods", "MaxPods", "Replicas", "Age"}),
	Row:     typedRow(horizontalPodAutoscalerRow),
}

// horizontalPodAutoscalerRow is printers.go's printHorizontalPodAutoscaler.
func horizontalPodAutoscalerRow(hpa *autoscalingv2.HorizontalPodAutoscaler, now time.Time) []string {
	minPods := "<unset>"
	if hpa.Spec.MinReplicas != nil {
		minPods = int64Cell(*hpa.Spec.MinReplicas)
	}
	return []string{
		hpa.Name, hpa.Spec.ScaleTargetRef.Kind + "/" + hpa.Spec.ScaleTargetRef.Name,
		hpaTargets(hpa.Spec.Metrics, hpa.Status.CurrentMetrics), minPods, int64Cell(hpa.Spec.MaxReplicas),
		int64Cell(hpa.Status.CurrentReplicas), age(hpa.CreationTimestamp, now),
	}
}

// hpaTargets is printers.go's formatHPAMetrics: "current/target" for each metric, the current
// value taken from the status at the same index ("<unknown>" without one), a resource's name in
// front, "(avg)" after an object's or external metric's average target, utilizations as
// percentages ("<auto>" for no target); the first two metrics, then " + N more...".
func hpaTargets(specs []autoscalingv2.MetricSpec, statuses []autoscalingv2.MetricStatus) string {
	if len(specs) == 0 {
		return "<none>"
	}
	status := func(i int) *autoscalingv2.MetricStatus {
		if i < len(statuses) {
			return &statuses[i]
		}
		return nil
	}
	var list []string
	for i, spec := range specs {
		st := status(i)
		current := "<unknown>"
		if !hasMetricSource(spec) {
			// The API server rejects such a metric; printers.go would not print it.
			list = append(list, "<unknown type>")
			continue
		}
		switch spec.Type {
		case autoscalingv2.ExternalMetricSourceType:
			if spec.External.Target.AverageValue != nil {
				if st != nil && st.External != nil && st.External.Current.AverageValue != nil {
					current = st.External.Current.AverageValue.String()
				}
				list = append(list, fmt.Sprintf("%s/%s (avg)", current, spec.External.Target.AverageValue.String()))
			} else {
				if st != nil && st.External != nil {
					current = st.External.Current.Value.String()
				}
				list = append(list, fmt.Sprintf("%s/%s", current, spec.External.Target.Value.String()))
			}
		case autoscalingv2.PodsMetricSourceType:
			if st != nil && st.Pods != nil {
				current = st.Pods.Current.AverageValue.String()
			}
			list = append(list, fmt.Sprintf("%s/%s", current, spec.Pods.Target.AverageValue.String()))
		case autoscalingv2.ObjectMetricSourceType:
			if spec.Object.Target.AverageValue != nil {
				if st != nil && st.Object != nil && st.Object.Current.AverageValue != nil {
					current = st.Object.Current.AverageValue.String()
				}
				list = append(list, fmt.Sprintf("%s/%s (avg)", current, spec.Object.Target.AverageValue.String()))
			} else {
				if st != nil && st.Object != nil {
					current = st.Object.Current.Value.String()
				}
				list = append(list, fmt.Sprintf("%s/%s", current, spec.Object.Target.Value.String()))
			}
		case autoscalingv2.ResourceMetricSourceType:
			var cur *autoscalingv2.MetricValueStatus
			if st != nil && st.Resource != nil {
				cur = &st.Resource.Current
			}
			list = append(list, resourceTarget(spec.Resource.Name, spec.Resource.Target, cur))
		case autoscalingv2.ContainerResourceMetricSourceType:
			var cur *autoscalingv2.MetricValueStatus
			if st != nil && st.ContainerResource != nil {
				cur = &st.ContainerResource.Current
			}
			list = append(list, resourceTarget(spec.ContainerResource.Name, spec.ContainerResource.Target, cur))
		default:
			list = append(list, "<unknown type>")
		}
	}
	const max = 2
	if len(list) > max {
		return fmt.Sprintf("%s + %d more...", strings.Join(list[:max], ", "), len(list)-max)
	}
	return strings.Join(list, ", ")
}

// hasMetricSource reports whether spec holds the source its type names.
func hasMetricSource(spec autoscalingv2.MetricSpec) bool {
	switch spec.Type {
	case autoscalingv2.ExternalMetricSourceType:
		return spec.External != nil
	case autoscalingv2.PodsMetricSourceType:
		return spec.Pods != nil
	case autoscalingv2.ObjectMetricSourceType:
		return spec.Object != nil
	case autoscalingv2.ResourceMetricSourceType:
		return spec.Resource != nil
	case autoscalingv2.ContainerResourceMetricSourceType:
		return spec.ContainerResource != nil
	}
	return true
}

// resourceTarget is one resource or container resource metric of formatHPAMetrics: "name:
// current/target", by average value when the target has one, by utilization otherwise.
func resourceTarget(name corev1.ResourceName, target autoscalingv2.MetricTarget, current *autoscalingv2.MetricValueStatus) string {
	cur := "<unknown>"
	if target.AverageValue != nil {
		if current != nil {
			cur = current.AverageValue.String()
		}
		return fmt.Sprintf("%s: %s/%s", name.String(), cur, target.AverageValue.String())
	}
	if current != nil && current.AverageUtilization != nil {
		cur = fmt.Sprintf("%d%%", *current.AverageUtilization)
	}
	want := "<auto>"
	if target.AverageUtilization != nil {
		want = fmt.Sprintf("%d%%", *target.AverageUtilization)
	}
	return fmt.Sprintf("%s: %s/%s", name.String(), cur, want)
}

var resourceQuotaTable = Table{
	Columns: columnsOf([]string{"Name", "Request", "Limit", "Age"}),
	Row:     typedRow(resourceQuotaRow),
}

// resourceQuotaRow is printers.go's printResourceQuota: "resource: used/hard" for each resource of
// status.hard, sorted by name; those named limits.* in LIMIT, the others in REQUEST.
func resourceQuotaRow(q *corev1.ResourceQuota, now time.Time) []string {
	names := make([]corev1.ResourceName, 0, len(q.Status.Hard))
	for name := range q.Status.Hard {
		names = append(names, name)
	}
	slices.Sort(names)
	var requests, limits []string
	for _, name := range names {
		used, hard := q.Status.Used[name], q.Status.Hard[name]
		cell := fmt.Sprintf("%s: %s/%s", name, used.String(), hard.String())
		if pieces := strings.Split(string(name), "."); len(pieces) > 1 && pieces[0] == "limits" {
			limits = append(limits, cell)
		} else {
			requests = append(requests, cell)
		}
	}
	return []string{q.Name, strings.Join(requests, ", "), strings.Join(limits, ", "), age(q.CreationTimestamp, now)}
}
