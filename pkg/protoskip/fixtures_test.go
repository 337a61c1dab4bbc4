package protoskip

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/scheme"
)

// fixturePod returns a pod with most of what a real one carries: labels,
// annotations, owners, managedFields, containers with resources, init and
// ephemeral containers, volumes, a resized status.
func fixturePod(i int) *corev1.Pod {
	ts := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	restartAlways := corev1.ContainerRestartPolicyAlways
	res := corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m"), corev1.ResourceMemory: resource.MustParse("64Mi")},
		Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("128Mi")},
	}
	pod := &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			Name: fmt.Sprintf("pod-%d", i), Namespace: fmt.Sprintf("ns-%d", i%3), UID: types.UID(fmt.Sprintf("uid-%d", i)),
			ResourceVersion: fmt.Sprint(1000 + i), Generation: 2, CreationTimestamp: ts,
			Labels:          map[string]string{"app": fmt.Sprintf("app-%d", i%4), "tier": "web"},
			Annotations:     map[string]string{"note": "x", "k8s.io/initial-events-end": "true"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-1", UID: "rs-uid"}},
			Finalizers:      []string{"example.com/f"},
			ManagedFields: []metav1.ManagedFieldsEntry{{
				Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "v1", Time: &ts,
				FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(`{"f:metadata":{"f:labels":{".":{},"f:app":{}}}}`),
			}},
		},
		Spec: corev1.PodSpec{
			NodeName: fmt.Sprintf("node-%d", i%5),
			InitContainers: []corev1.Container{
				{Name: "init", Image: "busybox:1", Resources: res},
				{Name: "sidecar", Image: "envoy:1", RestartPolicy: &restartAlways, Resources: res},
			},
			Containers: []corev1.Container{
				{Name: "app", Image: fmt.Sprintf("registry.example.com/app-%d:v1", i%7), Resources: res,
					Env:          []corev1.EnvVar{{Name: "A", Value: "1"}},
					Ports:        []corev1.ContainerPort{{ContainerPort: 8080, Protocol: corev1.ProtocolTCP}},
					VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/data"}}},
				{Name: "log", Image: "fluent:2"},
			},
			EphemeralContainers: []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "debug", Image: "debug:1"}}},
			Volumes:             []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
			Overhead:            corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m")},
			Tolerations:         []corev1.Toleration{{Key: "k", Operator: corev1.TolerationOpExists}},
			SecurityContext:     &corev1.PodSecurityContext{},
		},
		Status: corev1.PodStatus{
			Phase:      corev1.PodRunning,
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: ts}},
			PodIP:      "10.0.0.1", StartTime: &ts,
			ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Ready: true, RestartCount: int32(i % 3), Image: "app",
				Resources: &corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")}}}},
		},
	}
	if i%4 == 0 {
		pod.Spec.NodeName = ""
		pod.Status = corev1.PodStatus{Phase: corev1.PodPending}
	}
	return pod
}

// fixtureList returns a PodList of n fixture pods.
func fixtureList(n int) *corev1.PodList {
	list := &corev1.PodList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PodList"}, ListMeta: metav1.ListMeta{ResourceVersion: "99", Continue: "c"}}
	for i := 0; i < n; i++ {
		list.Items = append(list.Items, *fixturePod(i))
	}
	return list
}

// protobufSerializer returns the scheme's protobuf serializer, as a
// client's codec factory has it.
func protobufSerializer(t testing.TB) runtime.Serializer {
	t.Helper()
	info, ok := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), runtime.ContentTypeProtobuf)
	if !ok {
		t.Fatal("the scheme has no protobuf serializer")
	}
	return info.Serializer
}

// encode returns obj in the k8s protobuf envelope.
func encode(t testing.TB, obj runtime.Object) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := protobufSerializer(t).Encode(obj, &buf); err != nil {
		t.Fatalf("encoding %T: %v", obj, err)
	}
	return buf.Bytes()
}

type (
	schemaGVK     = schema.GroupVersionKind
	runtimeObject = runtime.Object
)
