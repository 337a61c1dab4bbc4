package server

import (
	"fmt"
	"os"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/watch"
)

// benchPod is a pod of a realistic size: three containers with
// resources, env and probes, conditions in its status.
func benchPod(name string, rv int) *corev1.Pod {
	p := recPod(name, fmt.Sprint(rv))
	p.Labels = map[string]string{"app": "shop", "pod-template-hash": "5d9f8c7b6d", "tier": "web"}
	for i := range 3 {
		p.Spec.Containers = append(p.Spec.Containers, corev1.Container{
			Name: fmt.Sprintf("c%d", i), Image: "registry.example/team/app:v1.2.3",
			Env: []corev1.EnvVar{{Name: "MODE", Value: "production"}, {Name: "REGION", Value: "eu-west-1"}},
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi")}},
		})
	}
	p.Spec.NodeName = "node-1"
	p.Status.Phase = corev1.PodRunning
	p.Status.PodIP = "10.0.0.1"
	for _, c := range []corev1.PodConditionType{corev1.PodScheduled, corev1.PodInitialized, corev1.ContainersReady, corev1.PodReady} {
		p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: c, Status: corev1.ConditionTrue})
	}
	return p
}

// BenchmarkRecordEvent measures the recorder's cost of one update of a
// pod (a changed annotation, as a controller's status update), 1000 pods
// recorded, and reports the segment's bytes per event.
func BenchmarkRecordEvent(b *testing.B) {
	tr := &testRecorder{clock: time.Now()}
	tr.Recorder = newRecorder(b.TempDir(), time.Hour, "https://bench", func() []recType { return tr.plan }, nil)
	tr.now = func() time.Time { return tr.clock }
	pods := newFakeSource("pods", podsMapping)
	for i := range 1000 {
		pods.objs[fmt.Sprint(i)] = benchPod(fmt.Sprintf("p%d", i), 1)
	}
	tr.plan = []recType{{mapping: podsMapping, sources: []*recSource{pods.src}}}
	tr.replan()
	tr.flush()
	before, _ := os.Stat(tr.seg.path)
	b.ResetTimer()
	for i := range b.N {
		p := benchPod(fmt.Sprintf("p%d", i%1000), i+2)
		p.Annotations = map[string]string{"heartbeat": fmt.Sprint(i)}
		if _, err := tr.seg.apply(recEvent{src: pods.src, typ: watch.Modified, obj: p, time: tr.clock}, false); err != nil {
			b.Fatal(err)
		}
	}
	tr.flush()
	b.StopTimer()
	after, _ := os.Stat(tr.seg.path)
	b.ReportMetric(float64(after.Size()-before.Size())/float64(b.N), "bytes/event")
	b.ReportMetric(float64(before.Size())/1000, "bytes/initial-pod")
	tr.stop()
}
