package aggregate

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/tools/cache"
	resourcehelper "k8s.io/component-helpers/resource"
)

type resourcehelperOptions = resourcehelper.PodResourcesOptions

func podRequestsWith(p *corev1.Pod, o resourcehelperOptions) corev1.ResourceList {
	return resourcehelper.PodRequests(p, o)
}

func podLimitsWith(p *corev1.Pod, o resourcehelperOptions) corev1.ResourceList {
	return resourcehelper.PodLimits(p, o)
}

// The transform has the signature client-go's informers take.
var _ cache.TransformFunc = TransformPod

// realisticPod is a pod as a Deployment's ReplicaSet makes it and the kubelet reports it: an
// app container and a sidecar, env, mounts, probes, a projected token volume, managedFields from
// three managers and the last-applied annotation.
func realisticPod(i int) *corev1.Pod {
	always := corev1.ContainerRestartPolicyAlways
	name := fmt.Sprintf("checkout-7d9f8b6c5-%05d", i)
	probe := &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(8080)}},
		PeriodSeconds: 10, TimeoutSeconds: 1, SuccessThreshold: 1, FailureThreshold: 3}
	env := []corev1.EnvVar{}
	for _, k := range []string{"LOG_LEVEL", "OTEL_EXPORTER_OTLP_ENDPOINT", "DB_HOST", "DB_PORT", "CACHE_URL", "FEATURE_FLAGS"} {
		env = append(env, corev1.EnvVar{Name: k, Value: "value-of-" + strings.ToLower(k)})
	}
	env = append(env, corev1.EnvVar{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.name"}}})
	mounts := []corev1.VolumeMount{{Name: "config", MountPath: "/etc/checkout"}, {Name: "kube-api-access-x7k2p", MountPath: "/var/run/secrets/kubernetes.io/serviceaccount", ReadOnly: true}}
	app := corev1.Container{Name: "checkout", Image: "registry.example.com/shop/checkout:v2.14.3",
		Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}, {Name: "metrics", ContainerPort: 9090, Protocol: corev1.ProtocolTCP}},
		Env:   env, VolumeMounts: mounts, LivenessProbe: probe, ReadinessProbe: probe,
		Resources:              corev1.ResourceRequirements{Requests: rl("cpu", "250m", "memory", "512Mi"), Limits: rl("cpu", "1", "memory", "512Mi")},
		TerminationMessagePath: "/dev/termination-log", TerminationMessagePolicy: corev1.TerminationMessageReadFile, ImagePullPolicy: corev1.PullIfNotPresent}
	proxy := corev1.Container{Name: "envoy", Image: "registry.example.com/mesh/envoy:v1.31.2", RestartPolicy: &always,
		Args:         []string{"--config-path", "/etc/envoy/envoy.yaml", "--log-level", "warn"},
		VolumeMounts: mounts, Resources: corev1.ResourceRequirements{Requests: rl("cpu", "50m", "memory", "64Mi"), Limits: rl("memory", "128Mi")},
		TerminationMessagePath: "/dev/termination-log", TerminationMessagePolicy: corev1.TerminationMessageReadFile, ImagePullPolicy: corev1.PullIfNotPresent}
	lastApplied := `{"apiVersion":"v1","kind":"Pod","metadata":{"annotations":{},"labels":{"app":"checkout"},"name":"` + name + `","namespace":"shop"},"spec":{"containers":[{"image":"registry.example.com/shop/checkout:v2.14.3","name":"checkout","resources":{"limits":{"cpu":"1","memory":"512Mi"},"requests":{"cpu":"250m","memory":"512Mi"}}}]}}`
	fields := func(s string) *metav1.FieldsV1 { return metav1.NewFieldsV1(s) }
	now := metav1.Unix(1760000000, 0)
	status := func(c corev1.Container) corev1.ContainerStatus {
		image := c.Image
		return corev1.ContainerStatus{Name: c.Name, Ready: true, RestartCount: 1, Image: image,
			ImageID:     image + "@sha256:4f1c0c8a6e1b2d3c4e5f60718293a4b5c6d7e8f90123456789abcdef01234567",
			ContainerID: "containerd://" + strings.Repeat("ab", 32), Started: new(bool),
			State:              corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}},
			AllocatedResources: c.Resources.Requests.DeepCopy(),
			Resources:          c.Resources.DeepCopy()}
	}
	return &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop", UID: "4b0d6f3e-1c2a-4e5b-9a7f-0123456789ab",
			ResourceVersion: "123456789", GenerateName: "checkout-7d9f8b6c5-", CreationTimestamp: now,
			Labels:      map[string]string{"app": "checkout", "pod-template-hash": "7d9f8b6c5", "app.kubernetes.io/part-of": "shop", "version": "v2.14.3"},
			Annotations: map[string]string{"kubectl.kubernetes.io/last-applied-configuration": lastApplied, "prometheus.io/scrape": "true", "prometheus.io/port": "9090"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "checkout-7d9f8b6c5",
				UID: "9a8b7c6d-5e4f-4a3b-2c1d-0e9f8a7b6c5d", Controller: new(bool), BlockOwnerDeletion: new(bool)}},
			ManagedFields: []metav1.ManagedFieldsEntry{
				{Manager: "kube-controller-manager", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: &now, FieldsType: "FieldsV1",
					FieldsV1: fields(`{"f:metadata":{"f:generateName":{},"f:labels":{".":{},"f:app":{},"f:pod-template-hash":{}},"f:ownerReferences":{".":{},"k:{\"uid\":\"9a8b7c6d\"}":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"checkout\"}":{".":{},"f:env":{},"f:image":{},"f:imagePullPolicy":{},"f:livenessProbe":{},"f:name":{},"f:ports":{},"f:readinessProbe":{},"f:resources":{},"f:terminationMessagePath":{},"f:terminationMessagePolicy":{},"f:volumeMounts":{}}},"f:dnsPolicy":{},"f:enableServiceLinks":{},"f:initContainers":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:terminationGracePeriodSeconds":{},"f:volumes":{}}}`)},
				{Manager: "kubelet", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: &now, FieldsType: "FieldsV1", Subresource: "status",
					FieldsV1: fields(`{"f:status":{"f:conditions":{"k:{\"type\":\"ContainersReady\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}},"k:{\"type\":\"Initialized\"}":{},"k:{\"type\":\"PodReadyToStartContainers\"}":{},"k:{\"type\":\"Ready\"}":{}},"f:containerStatuses":{},"f:hostIP":{},"f:hostIPs":{},"f:initContainerStatuses":{},"f:phase":{},"f:podIP":{},"f:podIPs":{".":{},"k:{\"ip\":\"10.244.1.17\"}":{}},"f:startTime":{}}}`)},
				{Manager: "kubectl-client-side-apply", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: &now, FieldsType: "FieldsV1",
					FieldsV1: fields(`{"f:metadata":{"f:annotations":{".":{},"f:kubectl.kubernetes.io/last-applied-configuration":{}}}}`)},
			}},
		Spec: corev1.PodSpec{
			NodeName: fmt.Sprintf("worker-%d", i%12), ServiceAccountName: "checkout", SchedulerName: "default-scheduler",
			Containers: []corev1.Container{app}, InitContainers: []corev1.Container{proxy},
			Volumes: []corev1.Volume{
				{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "checkout-config"}}}},
				{Name: "kube-api-access-x7k2p", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
					{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: new(int64)}},
					{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"}, Items: []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}},
					{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{Path: "namespace", FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"}}}}},
				}}}},
			},
			Tolerations: []corev1.Toleration{
				{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: new(int64)},
				{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: new(int64)},
			},
			DNSPolicy: corev1.DNSClusterFirst, RestartPolicy: corev1.RestartPolicyAlways, PreemptionPolicy: new(corev1.PreemptionPolicy),
		},
		Status: corev1.PodStatus{
			Phase: corev1.PodRunning, HostIP: "172.18.0.3", PodIP: "10.244.1.17", QOSClass: corev1.PodQOSBurstable, StartTime: &now,
			HostIPs: []corev1.HostIP{{IP: "172.18.0.3"}}, PodIPs: []corev1.PodIP{{IP: "10.244.1.17"}},
			Conditions: []corev1.PodCondition{
				{Type: corev1.PodReadyToStartContainers, Status: corev1.ConditionTrue, LastTransitionTime: now},
				{Type: corev1.PodInitialized, Status: corev1.ConditionTrue, LastTransitionTime: now},
				{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: now},
				{Type: corev1.ContainersReady, Status: corev1.ConditionTrue, LastTransitionTime: now},
				{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: now},
			},
			ContainerStatuses:     []corev1.ContainerStatus{status(app)},
			InitContainerStatuses: []corev1.ContainerStatus{status(proxy)},
		},
	}
}

func TestTransformPodKeepsWhatMeasuresRead(t *testing.T) {
	infeasible := resizedPod.DeepCopy()
	infeasible.Name = "resize-infeasible"
	infeasible.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodResizePending, Status: corev1.ConditionTrue, Reason: corev1.PodReasonInfeasible}}
	podLevelResized := podLevelPod.DeepCopy()
	podLevelResized.Name = "pod-level-resized"
	podLevelResized.Status.Resources = &corev1.ResourceRequirements{Requests: rl("cpu", "3"), Limits: rl("cpu", "5")}
	podLevelResized.Status.AllocatedResources = rl("cpu", "3", "memory", "2Gi")

	pods := append(allPods(), realisticPod(1), infeasible, podLevelResized)
	measures := []Measure{mustMeasure(t, "restarts"), mustMeasure(t, "containers")}
	for _, p := range pods {
		t.Run(p.Name, func(t *testing.T) {
			before := p.DeepCopy()
			obj, err := TransformPod(p)
			if err != nil {
				t.Fatal(err)
			}
			stripped := obj.(*corev1.Pod)
			if !equality.Semantic.DeepEqual(p, before) {
				t.Errorf("TransformPod changed its argument")
			}
			// The helper itself, with the scheduler's options and with the defaults.
			for _, opts := range []struct {
				name string
				o    resourcehelperOptions
			}{{"scheduler", SchedulerOptions}, {"defaults", resourcehelperOptions{}}} {
				if got, want := podRequestsWith(stripped, opts.o), podRequestsWith(p, opts.o); !sameResources(got, want) {
					t.Errorf("PodRequests(%s) after transform = %v, want %v", opts.name, got, want)
				}
				if got, want := podLimitsWith(stripped, opts.o), podLimitsWith(p, opts.o); !sameResources(got, want) {
					t.Errorf("PodLimits(%s) after transform = %v, want %v", opts.name, got, want)
				}
			}
			got, err := Values(measures, stripped)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := Values(measures, p)
			for i := range want {
				if got[i].Cmp(want[i]) != 0 {
					t.Errorf("%s after transform = %s, want %s", measures[i].Name, got[i].String(), want[i].String())
				}
			}
			if stripped.Spec.NodeName != p.Spec.NodeName || stripped.Status.Phase != p.Status.Phase ||
				stripped.Name != p.Name || stripped.Namespace != p.Namespace || stripped.ResourceVersion != p.ResourceVersion {
				t.Errorf("transform lost node, phase or identity: %+v", stripped.ObjectMeta)
			}
			again, _ := TransformPod(stripped)
			if !equality.Semantic.DeepEqual(again, stripped) {
				t.Errorf("TransformPod is not idempotent")
			}
		})
	}
	tombstone := cache.DeletedFinalStateUnknown{Key: "a/b", Obj: plainPod}
	if got, _ := TransformPod(tombstone); got != tombstone {
		t.Errorf("TransformPod(tombstone) = %v, want it unchanged", got)
	}
}

// retainedBytes returns the heap bytes held per object by build, measured across a GC.
func retainedBytes(n int, build func(i int) interface{}) float64 {
	held := make([]interface{}, n)
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	for i := range held {
		held[i] = build(i)
	}
	runtime.GC()
	runtime.ReadMemStats(&m1)
	runtime.KeepAlive(held)
	return float64(m1.HeapAlloc-m0.HeapAlloc) / float64(n)
}

// decodedPod is realisticPod(i) as an informer holds it: decoded from the wire, sharing nothing.
func decodedPod(tb testing.TB, i int) *corev1.Pod {
	data, err := json.Marshal(realisticPod(i))
	if err == nil {
		p := &corev1.Pod{}
		if err = json.Unmarshal(data, p); err == nil {
			return p
		}
	}
	if tb != nil {
		tb.Fatal(err)
	}
	panic(err)
}

// retained is what a cache keeps per realistic pod, measured once per test binary: heap bytes
// retained after GC over 2000 pods, and protobuf bytes, before and after TransformPod.
var retained = sync.OnceValue(func() (r struct{ heapBefore, heapAfter, protoBefore, protoAfter float64 }) {
	const n = 2000
	r.heapBefore = retainedBytes(n, func(i int) interface{} { return decodedPod(nil, i) })
	r.heapAfter = retainedBytes(n, func(i int) interface{} {
		out, _ := TransformPod(decodedPod(nil, i))
		return out
	})
	p := decodedPod(nil, 0)
	stripped, _ := TransformPod(p)
	r.protoBefore, r.protoAfter = float64(p.Size()), float64(stripped.(*corev1.Pod).Size())
	return r
})

// BenchmarkTransformPod times the transform and reports what a cache keeps per realistic pod.
func BenchmarkTransformPod(b *testing.B) {
	pods := make([]*corev1.Pod, 1000)
	for i := range pods {
		pods[i] = decodedPod(b, i)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := TransformPod(pods[i%len(pods)]); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	r := retained()
	b.ReportMetric(r.heapBefore, "heap-B/pod-before")
	b.ReportMetric(r.heapAfter, "heap-B/pod-after")
	b.ReportMetric(r.protoBefore, "proto-B/pod-before")
	b.ReportMetric(r.protoAfter, "proto-B/pod-after")
}

// Check that the fixture's numbers are what the helper says before relying on them above.
func TestRealisticPodRequests(t *testing.T) {
	p := realisticPod(0)
	reqs := PodRequests(p)
	// app 250m + sidecar 50m; 512Mi + 64Mi.
	if want := resource.MustParse("300m"); reqs.Cpu().Cmp(want) != 0 || reqs.Memory().String() != "576Mi" {
		t.Errorf("PodRequests(realistic) = %v, want cpu 300m, memory 576Mi", reqs)
	}
}

func TestTransformNodeKeepsWhatCapacityReads(t *testing.T) {
	n := node("node-1", "a", rl("cpu", "4", "memory", "16Gi", "pods", "110"), rl("cpu", "4", "memory", "16Gi", "pods", "110"))
	n.Annotations = map[string]string{"big": strings.Repeat("x", 1000)}
	n.Status.Images = []corev1.ContainerImage{{Names: []string{"nginx:1.27"}, SizeBytes: 1 << 20}}
	n.Spec.PodCIDR = "10.0.0.0/24"
	out, err := TransformNode(n)
	if err != nil {
		t.Fatal(err)
	}
	stripped := out.(*corev1.Node)
	if stripped == n || stripped.Annotations != nil || stripped.Status.Images != nil || stripped.Spec.PodCIDR != "" {
		t.Errorf("TransformNode kept annotations, images or spec: %+v", stripped)
	}
	if n.Status.Images == nil {
		t.Errorf("TransformNode changed its argument")
	}
	before, _ := Capacity(nil, CapacityOptions{Nodes: []*corev1.Node{n}, NodesKnown: true, GroupBy: "zone", GroupValue: NodeLabel(corev1.LabelTopologyZone)})
	after, _ := Capacity(nil, CapacityOptions{Nodes: []*corev1.Node{stripped}, NodesKnown: true, GroupBy: "zone", GroupValue: NodeLabel(corev1.LabelTopologyZone)})
	_, b := before.Strings()
	_, a := after.Strings()
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("capacity after TransformNode = %v, want %v", a, b)
	}
	again, _ := TransformNode(stripped)
	if !equality.Semantic.DeepEqual(again, stripped) {
		t.Errorf("TransformNode is not idempotent")
	}
	if got, _ := TransformNode(plainPod); got != plainPod {
		t.Errorf("TransformNode(pod) = %v, want it unchanged", got)
	}
}
