package aggregate

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// rl builds a ResourceList from name, quantity pairs: rl("cpu", "500m", "memory", "1Gi").
func rl(kv ...string) corev1.ResourceList {
	l := corev1.ResourceList{}
	for i := 0; i+1 < len(kv); i += 2 {
		l[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return l
}

// ctr is a container with requests and limits.
func ctr(name string, requests, limits corev1.ResourceList) corev1.Container {
	return corev1.Container{Name: name, Image: "registry.example/" + name + ":1.0",
		Resources: corev1.ResourceRequirements{Requests: requests, Limits: limits}}
}

// sidecar is a restartable init container.
func sidecar(name string, requests, limits corev1.ResourceList) corev1.Container {
	c := ctr(name, requests, limits)
	always := corev1.ContainerRestartPolicyAlways
	c.RestartPolicy = &always
	return c
}

// podOn is a running pod bound to node.
func podOn(name, node string, containers ...corev1.Container) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: "uid-" + "name"},
		Spec:       corev1.PodSpec{NodeName: node, Containers: containers},
		Status:     corev1.PodStatus{Phase: corev1.PodRunning},
	}
}

// The pods of the tests, each showing one rule of the scheduler's accounting.
var (
	// plainPod sums to 1330m and 4256Mi: canonical strings of exact sums.
	plainPod = podOn("plain", "node-1",
		ctr("app", rl("cpu", "1", "memory", "4Gi"), rl("cpu", "2", "memory", "4Gi")),
		ctr("log", rl("cpu", "330m", "memory", "160Mi"), rl("memory", "256Mi")))

	// bigInitPod: its init container asks more than its app container, so it sets the request.
	bigInitPod = func() *corev1.Pod {
		p := podOn("big-init", "node-1", ctr("app", rl("cpu", "100m", "memory", "128Mi"), nil))
		p.Spec.InitContainers = []corev1.Container{ctr("migrate", rl("cpu", "2", "memory", "1Gi"), rl("cpu", "2"))}
		return p
	}()

	// sidecarPod: the sidecar runs beside the app (added to it) and beside the init container
	// that follows it (added to that one too).
	sidecarPod = func() *corev1.Pod {
		p := podOn("sidecar", "node-2", ctr("app", rl("cpu", "300m", "memory", "512Mi"), nil))
		p.Spec.InitContainers = []corev1.Container{
			sidecar("proxy", rl("cpu", "200m", "memory", "256Mi"), nil),
			ctr("setup", rl("cpu", "1", "memory", "64Mi"), nil),
		}
		return p
	}()

	// overheadPod runs with a RuntimeClass overhead, added to requests and to non-zero limits.
	overheadPod = func() *corev1.Pod {
		p := podOn("overhead", "node-2", ctr("app", rl("cpu", "250m", "memory", "64Mi"), rl("cpu", "500m")))
		p.Spec.Overhead = rl("cpu", "120m", "memory", "120Mi")
		return p
	}()

	// succeededPod is terminal: it holds nothing.
	succeededPod = func() *corev1.Pod {
		p := podOn("done", "node-1", ctr("job", rl("cpu", "1", "memory", "1Gi"), nil))
		p.Status.Phase = corev1.PodSucceeded
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "job", RestartCount: 2}}
		return p
	}()

	// gpuPod asks for an extended resource.
	gpuPod = podOn("train", "gpu-1",
		ctr("trainer", rl("cpu", "4", "memory", "16Gi", "nvidia.com/gpu", "2"), rl("nvidia.com/gpu", "2")))

	// resizedPod was resized in place from 1 CPU down to 500m, and the kubelet has not actuated it
	// yet: the node still holds 1 CPU for it, and so does the scheduler.
	resizedPod = func() *corev1.Pod {
		p := podOn("resized", "node-1", ctr("app", rl("cpu", "500m"), nil))
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{
			Name:               "app",
			RestartCount:       3,
			AllocatedResources: rl("cpu", "500m"),
			Resources:          &corev1.ResourceRequirements{Requests: rl("cpu", "1")},
		}}
		return p
	}()

	// podLevelPod sets pod-level resources, which replace the containers' sum.
	podLevelPod = func() *corev1.Pod {
		p := podOn("pod-level", "node-2", ctr("a", rl("cpu", "200m"), nil), ctr("b", nil, nil))
		p.Spec.Resources = &corev1.ResourceRequirements{Requests: rl("cpu", "2", "memory", "2Gi"), Limits: rl("cpu", "4", "memory", "2Gi")}
		return p
	}()

	// pendingPod has no node yet.
	pendingPod = podOn("pending", "", ctr("app", rl("cpu", "1"), nil))
)

// allPods are the pods above.
func allPods() []*corev1.Pod {
	return []*corev1.Pod{plainPod, bigInitPod, sidecarPod, overheadPod, succeededPod, gpuPod, resizedPod, podLevelPod, pendingPod}
}
