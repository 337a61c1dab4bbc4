package engine

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// deploymentPods returns n pods as a typed informer receives the pods of
// one Deployment's ReplicaSet: testdata/deployment-pod.json, a pod that
// kube-controller-manager created and kwok ran, with its managedFields, each
// copy with its own name, UID and pod IP (also in kwok's fieldsV1 set).
func deploymentPods(t testing.TB, n int) []*corev1.Pod {
	t.Helper()
	data, err := os.ReadFile("testdata/deployment-pod.json")
	if err != nil {
		t.Fatal(err)
	}
	pods := make([]*corev1.Pod, n)
	for i := range pods {
		ip := fmt.Sprintf("10.244.%d.%d", i/250, i%250+2)
		s := strings.ReplaceAll(string(data), "10.244.2.1", ip)
		s = strings.ReplaceAll(s, "web-8555666bf8-5pjjm", fmt.Sprintf("web-8555666bf8-%05d", i))
		pod := &corev1.Pod{}
		if err := json.Unmarshal([]byte(s), pod); err != nil {
			t.Fatal(err)
		}
		pod.UID = types.UID(fmt.Sprintf("00000000-0000-0000-0000-%012d", i))
		pods[i] = pod
	}
	return pods
}

func TestInternManagedFields(t *testing.T) {
	pods := deploymentPods(t, 3)
	raw := pods[0].ManagedFields[0].FieldsV1.GetRawString()
	for _, p := range pods {
		trimManagedFields(p, InternManagedFields)
	}
	a, b := pods[0].ManagedFields, pods[1].ManagedFields
	if len(a) != 2 || a[0].FieldsV1 == nil || a[1].FieldsV1 == nil {
		t.Fatalf("interned managedFields = %v, want both entries with their sets", a)
	}
	if a[0].FieldsV1.GetRawString() != raw {
		t.Errorf("interned set = %s, want the bytes sent %s", a[0].FieldsV1.GetRawString(), raw)
	}
	if a[0].FieldsV1 != b[0].FieldsV1 {
		t.Errorf("kube-controller-manager's identical sets of two pods are not shared")
	}
	if a[1].FieldsV1 == b[1].FieldsV1 {
		t.Errorf("kwok's sets of two pods (two pod IPs) are shared")
	}
	// Idempotent, as a transform must be.
	again := pods[0].ManagedFields[0].FieldsV1
	trimManagedFields(pods[0], InternManagedFields)
	if pods[0].ManagedFields[0].FieldsV1 != again {
		t.Errorf("interning twice gave another set")
	}

	// Sets no object holds are forgotten.
	in := newFieldsInterner()
	for i := 0; i < 100; i++ {
		in.intern([]byte(fmt.Sprintf(`{"f:spec":{"f:n%d":{}}}`, i)))
	}
	for i := 0; i < 20 && in.size() > 0; i++ {
		runtime.GC()
	}
	if n := in.size(); n > 0 {
		t.Errorf("after GC the table holds %d sets nothing refers to, want 0", n)
	}
}

// BenchmarkManagedFieldsMemory reports the live heap per cached pod of one
// Deployment for each managedFields mode of the transform: how much watch's
// attribution (InternManagedFields) costs beside SummarizeManagedFields.
// Run with -benchtime 1x.
func BenchmarkManagedFieldsMemory(b *testing.B) {
	const n = 2000
	for _, mode := range []struct {
		name string
		mode ManagedFields
	}{{"drop", DropManagedFields}, {"summarize", SummarizeManagedFields}, {"intern", InternManagedFields}, {"keep", KeepManagedFields}} {
		b.Run(mode.name, func(b *testing.B) {
			for range b.N {
				runtime.GC()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				pods := deploymentPods(b, n)
				for _, p := range pods {
					trimManagedFields(p, mode.mode)
				}
				runtime.GC()
				runtime.GC()
				runtime.ReadMemStats(&after)
				b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/n, "B/pod")
				runtime.KeepAlive(pods)
			}
		})
	}
}
