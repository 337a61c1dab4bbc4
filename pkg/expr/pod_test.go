package expr

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// testNow is the now every test evaluates at.
var testNow = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

// deploymentPod is a pod as a Deployment's ReplicaSet makes it and the kubelet
// reports it: two containers, resources, probes, volumes, statuses.
func deploymentPod() *corev1.Pod {
	created := metav1.NewTime(testNow.Add(-36 * time.Hour))
	started := metav1.NewTime(testNow.Add(-35 * time.Hour))
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:              "web-7d4b9c8f6d-x2k9p",
			GenerateName:      "web-7d4b9c8f6d-",
			Namespace:         "default",
			UID:               "5f1c2a3e-0b7d-4f6e-9a1c-2d3e4f5a6b7c",
			ResourceVersion:   "123456",
			CreationTimestamp: created,
			Labels:            map[string]string{"app": "web", "pod-template-hash": "7d4b9c8f6d", "tier": "frontend"},
			Annotations:       map[string]string{"kubectl.kubernetes.io/restartedAt": "2026-11-20T10:00:00Z"},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-7d4b9c8f6d",
				UID: "0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d", Controller: ptrTo(true), BlockOwnerDeletion: ptrTo(true),
			}},
		},
		Spec: corev1.PodSpec{
			NodeName:           "worker-1",
			ServiceAccountName: "web",
			Containers: []corev1.Container{{
				Name:  "web",
				Image: "registry.example.com/shop/web:1.4.2",
				Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}},
				Env:   []corev1.EnvVar{{Name: "MODE", Value: "production"}, {Name: "PORT", Value: "8080"}},
				Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m"), corev1.ResourceMemory: resource.MustParse("256Mi")},
					Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("512Mi")},
				},
				ReadinessProbe: &corev1.Probe{
					ProbeHandler:  corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromString("http")}},
					PeriodSeconds: 10,
				},
				VolumeMounts: []corev1.VolumeMount{{Name: "kube-api-access-abcde", MountPath: "/var/run/secrets/kubernetes.io/serviceaccount", ReadOnly: true}},
			}, {
				Name:  "sidecar",
				Image: "docker.io/library/envoy:v1.30",
				Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("50m"), corev1.ResourceMemory: resource.MustParse("64Mi")},
				},
			}},
			Volumes: []corev1.Volume{{Name: "kube-api-access-abcde", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
				Sources: []corev1.VolumeProjection{{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: ptrTo[int64](3607)}}},
			}}}},
			Tolerations: []corev1.Toleration{
				{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptrTo[int64](300)},
				{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptrTo[int64](300)},
			},
		},
		Status: corev1.PodStatus{
			Phase:     corev1.PodRunning,
			HostIP:    "10.0.0.11",
			PodIP:     "10.244.1.23",
			PodIPs:    []corev1.PodIP{{IP: "10.244.1.23"}},
			StartTime: &started,
			QOSClass:  corev1.PodQOSBurstable,
			Conditions: []corev1.PodCondition{
				{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: started},
				{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: created},
			},
			ContainerStatuses: []corev1.ContainerStatus{{
				Name: "web", Ready: true, RestartCount: 5, Image: "registry.example.com/shop/web:1.4.2",
				ImageID: "registry.example.com/shop/web@sha256:0123456789abcdef", ContainerID: "containerd://abc",
				State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: started}},
			}, {
				Name: "sidecar", Ready: true, RestartCount: 0, Image: "docker.io/library/envoy:v1.30",
				State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: started}},
			}},
		},
	}
}

// rollingDeployment is a Deployment halfway through a rollout.
func rollingDeployment() *appsv1.Deployment {
	return &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", Generation: 4},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptrTo[int32](6),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
		},
		Status: appsv1.DeploymentStatus{
			ObservedGeneration: 4, Replicas: 7, UpdatedReplicas: 3, ReadyReplicas: 6, AvailableReplicas: 6,
		},
	}
}

func ptrTo[T any](v T) *T { return &v }
