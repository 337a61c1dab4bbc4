package index

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	appsv1beta2 "k8s.io/api/apps/v1beta2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// The test objects, built as the engine's typed informers hand them out: with TypeMeta set.

func ptrTo[T any](v T) *T { return &v }

func typeMeta(apiVersion, kind string) metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: apiVersion, Kind: kind}
}

func podSpec(images ...string) corev1.PodSpec {
	spec := corev1.PodSpec{}
	for _, image := range images {
		spec.Containers = append(spec.Containers, corev1.Container{Name: "c", Image: image})
	}
	return spec
}

func template(images ...string) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{Spec: podSpec(images...)}
}

// runningPod is scheduled, labelled, annotated, owned twice (once by a duplicate reference), and
// runs a sidecar image twice, an init container and an ephemeral container.
func runningPod() *corev1.Pod {
	return &corev1.Pod{
		TypeMeta: typeMeta("v1", "Pod"),
		ObjectMeta: metav1.ObjectMeta{
			Namespace:   "shop",
			Name:        "web-1",
			Labels:      map[string]string{"app": "web", "empty": ""},
			Annotations: map[string]string{"example.com/team": "payments"},
			OwnerReferences: []metav1.OwnerReference{
				{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-5d9c7", UID: "uid-rs"},
				{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-5d9c7", UID: "uid-rs"},
				{APIVersion: "v1", Kind: "ConfigMap", Name: "holder", UID: "uid-cm"},
			},
		},
		Spec: corev1.PodSpec{
			NodeName: "worker-1",
			Containers: []corev1.Container{
				{Name: "app", Image: "nginx:1.27"},
				{Name: "proxy", Image: "envoy:1.30"},
				{Name: "proxy2", Image: "envoy:1.30"},
			},
			InitContainers: []corev1.Container{{Name: "init", Image: "busybox:1.36"}},
			EphemeralContainers: []corev1.EphemeralContainer{
				{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "debug", Image: "debug:1"}},
			},
		},
		Status: corev1.PodStatus{
			Phase: corev1.PodRunning,
			Conditions: []corev1.PodCondition{
				{Type: corev1.PodReady, Status: corev1.ConditionTrue},
				{Type: corev1.PodScheduled, Status: corev1.ConditionTrue},
			},
		},
	}
}

// pendingPod is not scheduled yet.
func pendingPod() *corev1.Pod {
	return &corev1.Pod{
		TypeMeta:   typeMeta("v1", "Pod"),
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-2"},
		Spec:       podSpec("nginx:1.27"),
		Status:     corev1.PodStatus{Phase: corev1.PodPending},
	}
}

func deployment() *appsv1.Deployment {
	return &appsv1.Deployment{
		TypeMeta:   typeMeta("apps/v1", "Deployment"),
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", Labels: map[string]string{"app": "web"}},
		Spec:       appsv1.DeploymentSpec{Replicas: ptrTo[int32](3), Template: template("nginx:1.27", "envoy:1.30")},
	}
}

func replicaSet() *appsv1.ReplicaSet {
	return &appsv1.ReplicaSet{
		TypeMeta:   typeMeta("apps/v1", "ReplicaSet"),
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-5d9c7"},
		Spec:       appsv1.ReplicaSetSpec{Template: template("nginx:1.27")},
	}
}

func statefulSet() *appsv1.StatefulSet {
	return &appsv1.StatefulSet{
		TypeMeta:   typeMeta("apps/v1", "StatefulSet"),
		ObjectMeta: metav1.ObjectMeta{Namespace: "db", Name: "pg"},
		Spec:       appsv1.StatefulSetSpec{Template: template("postgres:17")},
	}
}

func daemonSet() *appsv1.DaemonSet {
	return &appsv1.DaemonSet{
		TypeMeta:   typeMeta("apps/v1", "DaemonSet"),
		ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "agent"},
		Spec:       appsv1.DaemonSetSpec{Template: template("agent:2")},
	}
}

func job() *batchv1.Job {
	return &batchv1.Job{
		TypeMeta:   typeMeta("batch/v1", "Job"),
		ObjectMeta: metav1.ObjectMeta{Namespace: "batch", Name: "report"},
		Spec:       batchv1.JobSpec{Template: template("report:1")},
	}
}

func cronJob() *batchv1.CronJob {
	return &batchv1.CronJob{
		TypeMeta:   typeMeta("batch/v1", "CronJob"),
		ObjectMeta: metav1.ObjectMeta{Namespace: "batch", Name: "nightly"},
		Spec: batchv1.CronJobSpec{
			Schedule:    "@daily",
			JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: template("nightly:1")}},
		},
	}
}

func replicationController(withTemplate bool) *corev1.ReplicationController {
	rc := &corev1.ReplicationController{
		TypeMeta:   typeMeta("v1", "ReplicationController"),
		ObjectMeta: metav1.ObjectMeta{Namespace: "legacy", Name: "rc"},
	}
	if withTemplate {
		t := template("legacy:0.9")
		rc.Spec.Template = &t
	}
	return rc
}

func podTemplate() *corev1.PodTemplate {
	return &corev1.PodTemplate{
		TypeMeta:   typeMeta("v1", "PodTemplate"),
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "tpl"},
		Template:   template("tpl:1"),
	}
}

func namespace() *corev1.Namespace {
	return &corev1.Namespace{
		TypeMeta:   typeMeta("v1", "Namespace"),
		ObjectMeta: metav1.ObjectMeta{Name: "shop", Labels: map[string]string{"team": "payments"}},
		Status:     corev1.NamespaceStatus{Phase: corev1.NamespaceActive},
	}
}

func persistentVolume() *corev1.PersistentVolume {
	return &corev1.PersistentVolume{
		TypeMeta:   typeMeta("v1", "PersistentVolume"),
		ObjectMeta: metav1.ObjectMeta{Name: "pv-1"},
		Status:     corev1.PersistentVolumeStatus{Phase: corev1.VolumeAvailable},
	}
}

func persistentVolumeClaim() *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{
		TypeMeta:   typeMeta("v1", "PersistentVolumeClaim"),
		ObjectMeta: metav1.ObjectMeta{Namespace: "db", Name: "data-pg-0"},
		Status:     corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound},
	}
}

func configMap() *corev1.ConfigMap {
	return &corev1.ConfigMap{
		TypeMeta:   typeMeta("v1", "ConfigMap"),
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "settings"},
		Data:       map[string]string{"k": "v"},
	}
}

// node is a typed object outside the fast paths of the phase index, which converts it.
func node() *corev1.Node {
	return &corev1.Node{
		TypeMeta:   typeMeta("v1", "Node"),
		ObjectMeta: metav1.ObjectMeta{Name: "worker-1", Labels: map[string]string{"zone": "a"}},
		Status:     corev1.NodeStatus{Phase: corev1.NodeRunning},
	}
}

// betaDeployment is a typed workload outside the fast paths of the image index, which converts it.
func betaDeployment() *appsv1beta2.Deployment {
	return &appsv1beta2.Deployment{
		TypeMeta:   typeMeta("apps/v1beta2", "Deployment"),
		ObjectMeta: metav1.ObjectMeta{Namespace: "old", Name: "web"},
		Spec:       appsv1beta2.DeploymentSpec{Template: template("old:1", "old:1")},
	}
}

// widget is a custom resource, known only in unstructured form: it has a node, a phase and a pod
// template, and a few fields of other types for JSONPath.
func widget() *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "example.com/v1",
		"kind":       "Widget",
		"metadata": map[string]interface{}{
			"namespace": "shop",
			"name":      "blue-widget",
			"labels":    map[string]interface{}{"app": "web"},
			"ownerReferences": []interface{}{
				map[string]interface{}{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "uid": "uid-deploy"},
			},
		},
		"spec": map[string]interface{}{
			"color":    "blue",
			"nodeName": "worker-2",
			"size":     int64(3),
			"ratio":    1.5,
			"enabled":  true,
			"nothing":  nil,
			"empty":    "",
			"tags":     []interface{}{"a", "b", "a"},
			"template": map[string]interface{}{"spec": map[string]interface{}{
				"containers": []interface{}{
					map[string]interface{}{"name": "w", "image": "widget:1"},
					"not-a-container",
					map[string]interface{}{"name": "no-image"},
				},
			}},
		},
		"status": map[string]interface{}{"phase": "Ready"},
	}}
}

// toUnstructured returns obj as a dynamic informer would hold it.
func toUnstructured(t testing.TB, obj runtime.Object) *unstructured.Unstructured {
	t.Helper()
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return u
	}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		t.Fatalf("ToUnstructured(%T) = %v", obj, err)
	}
	return &unstructured.Unstructured{Object: content}
}

// toMetadata returns obj as a metadata-only informer would hold it.
func toMetadata(t testing.TB, obj runtime.Object) *metav1.PartialObjectMetadata {
	t.Helper()
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return &metav1.PartialObjectMetadata{
			TypeMeta: typeMeta(u.GetAPIVersion(), u.GetKind()),
			ObjectMeta: metav1.ObjectMeta{
				Namespace:       u.GetNamespace(),
				Name:            u.GetName(),
				Labels:          u.GetLabels(),
				Annotations:     u.GetAnnotations(),
				OwnerReferences: u.GetOwnerReferences(),
			},
		}
	}
	m, ok := obj.(metav1.ObjectMetaAccessor)
	if !ok {
		t.Fatalf("%T has no ObjectMeta", obj)
	}
	kinds := obj.GetObjectKind().GroupVersionKind()
	return &metav1.PartialObjectMetadata{
		TypeMeta:   typeMeta(kinds.GroupVersion().String(), kinds.Kind),
		ObjectMeta: *m.GetObjectMeta().(*metav1.ObjectMeta),
	}
}
