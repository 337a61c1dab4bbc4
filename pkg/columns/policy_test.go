package columns

import (
	"testing"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func TestPodDisruptionBudgetRow(t *testing.T) {
	pdb := func(minAvailable, maxUnavailable *intstr.IntOrString) *policyv1.PodDisruptionBudget {
		return &policyv1.PodDisruptionBudget{ObjectMeta: objMeta("web"),
			Spec:   policyv1.PodDisruptionBudgetSpec{MinAvailable: minAvailable, MaxUnavailable: maxUnavailable},
			Status: policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: 2}}
	}
	runRows(t, schema.GroupResource{Group: "policy", Resource: "poddisruptionbudgets"}, []rowCase{
		{
			// A percentage prints as written; the unset bound is "N/A".
			name: "min available percent",
			obj:  pdb(ptr(intstr.FromString("50%")), nil),
			want: []string{"web", "50%", "N/A", "2", "5m"},
		},
		{
			name: "max unavailable count",
			obj:  pdb(nil, ptr(intstr.FromInt32(1))),
			want: []string{"web", "N/A", "1", "2", "5m"},
		},
	})
}

func TestHorizontalPodAutoscalerRow(t *testing.T) {
	q := func(s string) *resource.Quantity { v := resource.MustParse(s); return &v }
	cpu := autoscalingv2.MetricSpec{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
		Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr[int32](80)}}}
	memory := autoscalingv2.MetricSpec{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
		Name: corev1.ResourceMemory, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: q("100Mi")}}}
	pods := autoscalingv2.MetricSpec{Type: autoscalingv2.PodsMetricSourceType, Pods: &autoscalingv2.PodsMetricSource{
		Target: autoscalingv2.MetricTarget{AverageValue: q("10")}}}
	object := autoscalingv2.MetricSpec{Type: autoscalingv2.ObjectMetricSourceType, Object: &autoscalingv2.ObjectMetricSource{
		Target: autoscalingv2.MetricTarget{AverageValue: q("5")}}}
	external := autoscalingv2.MetricSpec{Type: autoscalingv2.ExternalMetricSourceType, External: &autoscalingv2.ExternalMetricSource{
		Target: autoscalingv2.MetricTarget{Value: q("3")}}}
	containerNoTarget := autoscalingv2.MetricSpec{Type: autoscalingv2.ContainerResourceMetricSourceType,
		ContainerResource: &autoscalingv2.ContainerResourceMetricSource{Name: corev1.ResourceCPU, Container: "app"}}
	hpa := func(metrics []autoscalingv2.MetricSpec, current []autoscalingv2.MetricStatus, minReplicas *int32) *autoscalingv2.HorizontalPodAutoscaler {
		return &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: objMeta("web"),
			Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
				ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{Kind: "Deployment", Name: "web"},
				MinReplicas:    minReplicas, MaxReplicas: 6, Metrics: metrics},
			Status: autoscalingv2.HorizontalPodAutoscalerStatus{CurrentReplicas: 4, CurrentMetrics: current}}
	}
	runRows(t, schema.GroupResource{Group: "autoscaling", Resource: "horizontalpodautoscalers"}, []rowCase{
		{
			// No metric: TARGETS "<none>"; no minReplicas: "<unset>".
			name: "no metrics",
			obj:  hpa(nil, nil, nil),
			want: []string{"web", "Deployment/web", "<none>", "<unset>", "6", "4", "5m"},
		},
		{
			// Without a status, every current value is "<unknown>"; two metrics, then "+ N more...".
			name: "unknown current values",
			obj:  hpa([]autoscalingv2.MetricSpec{cpu, memory, pods}, nil, ptr[int32](4)),
			want: []string{"web", "Deployment/web", "cpu: <unknown>/80%, memory: <unknown>/100Mi + 1 more...", "4", "6", "4", "5m"},
		},
		{
			// Current values from the status at the same index; "(avg)" after an object
			// metric's average target.
			name: "current values",
			obj: hpa([]autoscalingv2.MetricSpec{cpu, object}, []autoscalingv2.MetricStatus{
				{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricStatus{
					Name: corev1.ResourceCPU, Current: autoscalingv2.MetricValueStatus{AverageUtilization: ptr[int32](42)}}},
				{Type: autoscalingv2.ObjectMetricSourceType, Object: &autoscalingv2.ObjectMetricStatus{
					Current: autoscalingv2.MetricValueStatus{AverageValue: q("7")}}},
			}, ptr[int32](1)),
			want: []string{"web", "Deployment/web", "cpu: 42%/80%, 7/5 (avg)", "1", "6", "4", "5m"},
		},
		{
			// An external value target; a utilization metric without a target is "<auto>".
			name: "external and auto",
			obj:  hpa([]autoscalingv2.MetricSpec{external, containerNoTarget}, nil, ptr[int32](1)),
			want: []string{"web", "Deployment/web", "<unknown>/3, cpu: <unknown>/<auto>", "1", "6", "4", "5m"},
		},
	})
}

func TestResourceQuotaRow(t *testing.T) {
	rl := func(kv ...string) corev1.ResourceList {
		l := corev1.ResourceList{}
		for i := 0; i < len(kv); i += 2 {
			l[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
		}
		return l
	}
	runRows(t, schema.GroupResource{Resource: "resourcequotas"}, []rowCase{
		{
			// Resources of status.hard sorted by name, limits.* apart; a resource not yet
			// used prints 0.
			name: "requests and limits",
			obj: &corev1.ResourceQuota{ObjectMeta: objMeta("quota"), Status: corev1.ResourceQuotaStatus{
				Hard: rl("pods", "50", "requests.cpu", "4", "limits.memory", "8Gi", "configmaps", "20", "limits.cpu", "8"),
				Used: rl("pods", "7", "requests.cpu", "70m", "limits.cpu", "700m", "configmaps", "2")}},
			want: []string{"quota", "configmaps: 2/20, pods: 7/50, requests.cpu: 70m/4", "limits.cpu: 700m/8, limits.memory: 0/8Gi", "5m"},
		},
		{
			// A quota the controller has not yet counted: empty cells.
			name: "no status",
			obj:  &corev1.ResourceQuota{ObjectMeta: objMeta("quota")},
			want: []string{"quota", "", "", "5m"},
		},
	})
}
