// Package testpods holds a typed pod as the watch's cache holds one, and the
// edits churn and users make to it, for the tests and benchmarks of the
// differ and the watch printer.
package testpods

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Pod returns a new pod as the watch's cache holds one of hack/seed's pods:
// server defaults filled in, managedFields summarized, apiVersion and kind
// set by the engine's transform.
func Pod() *corev1.Pod {
	now := metav1.NewTime(time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC))
	noToken, grace, one := false, int64(0), int64(300)
	started := true
	return &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			Name:              "pod-00042",
			Namespace:         "seed-0",
			UID:               types.UID("9f1c1c4e-6a3b-4d8e-9a52-0e7d1d2f3a41"),
			ResourceVersion:   "123456",
			CreationTimestamp: now,
			Labels:            map[string]string{"app": "app-2", "seed.kubectl-informer.io/set": "pods", "tier": "web"},
			Annotations:       map[string]string{"seed.kubectl-informer.io/churn": "17"},
			ManagedFields: []metav1.ManagedFieldsEntry{
				{Manager: "seed", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: &now, FieldsType: "FieldsV1"},
				{Manager: "seed", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: &now, FieldsType: "FieldsV1", Subresource: "status"},
			},
		},
		Spec: corev1.PodSpec{
			AutomountServiceAccountToken:  &noToken,
			TerminationGracePeriodSeconds: &grace,
			NodeName:                      "node-42",
			RestartPolicy:                 corev1.RestartPolicyAlways,
			DNSPolicy:                     corev1.DNSClusterFirst,
			ServiceAccountName:            "default",
			DeprecatedServiceAccount:      "default",
			SecurityContext:               &corev1.PodSecurityContext{},
			SchedulerName:                 corev1.DefaultSchedulerName,
			Priority:                      new(int32),
			EnableServiceLinks:            &started,
			PreemptionPolicy:              new(corev1.PreemptLowerPriority),
			Tolerations: []corev1.Toleration{
				{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &one},
				{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &one},
			},
			Containers: []corev1.Container{{
				Name:  "main",
				Image: "registry.example.com/image-2:v1",
				Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{
						corev1.ResourceCPU:    resource.MustParse("10m"),
						corev1.ResourceMemory: resource.MustParse("16Mi"),
					},
				},
				TerminationMessagePath:   corev1.TerminationMessagePathDefault,
				TerminationMessagePolicy: corev1.TerminationMessageReadFile,
				ImagePullPolicy:          corev1.PullIfNotPresent,
			}},
		},
		Status: corev1.PodStatus{
			Phase:     corev1.PodRunning,
			PodIP:     "10.128.0.42",
			PodIPs:    []corev1.PodIP{{IP: "10.128.0.42"}},
			HostIP:    "192.168.0.1",
			HostIPs:   []corev1.HostIP{{IP: "192.168.0.1"}},
			StartTime: &now,
			QOSClass:  corev1.PodQOSBurstable,
			Conditions: []corev1.PodCondition{
				{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: now},
				{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: now},
			},
			ContainerStatuses: []corev1.ContainerStatus{{
				Name:    "main",
				Image:   "registry.example.com/image-2:v1",
				ImageID: "registry.example.com/image-2:v1",
				Ready:   true,
				Started: &started,
				State:   corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}},
			}},
		},
	}
}

// Edits are changes churn and users make, each applied to a deep copy of
// Pod by Pair.
var Edits = []struct {
	Name string
	Edit func(p *corev1.Pod)
}{
	{"label", func(p *corev1.Pod) { p.Labels["churn"] = "18"; p.Labels["tier"] = "db" }},
	{"annotation", func(p *corev1.Pod) { p.Annotations["seed.kubectl-informer.io/churn"] = "18" }},
	{"status", func(p *corev1.Pod) {
		p.Status.Phase = corev1.PodPending
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse, LastTransitionTime: metav1.NewTime(time.Date(2026, 11, 23, 12, 0, 5, 0, time.UTC))}}
		t := metav1.NewTime(time.Date(2026, 11, 23, 12, 0, 5, 0, time.UTC))
		p.ManagedFields[1].Time = &t
	}},
	{"image", func(p *corev1.Pod) { p.Spec.Containers[0].Image = "registry.example.com/image-3:v2" }},
	{"container added", func(p *corev1.Pod) {
		p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "sidecar", Image: "busybox"})
	}},
	{"toleration removed", func(p *corev1.Pod) { p.Spec.Tolerations = p.Spec.Tolerations[:1] }},
	{"nil map to empty", func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{} }},
	{"security context", func(p *corev1.Pod) { p.Spec.SecurityContext.RunAsNonRoot = &started }},
	{"bookkeeping only", func(p *corev1.Pod) { p.Generation = 7 }},
	{"managed fields only", func(p *corev1.Pod) { p.ManagedFields = p.ManagedFields[:1] }},
}

var started = true

// Pair returns Pod and a copy with edit applied and a new resourceVersion.
func Pair(edit func(p *corev1.Pod)) (old, new *corev1.Pod) {
	old = Pod()
	new = old.DeepCopy()
	new.ResourceVersion = "123457"
	edit(new)
	return old, new
}

// CPUPod is a running pod name in namespace shop, labelled app=app, bound
// to node and asking for cpu in its one container.
func CPUPod(name, app, node, cpu string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop", Labels: map[string]string{"app": app}},
		Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}}}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning},
	}
}
