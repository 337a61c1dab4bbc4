package diff

import (
	"io"
	"testing"
)

// podLabelChange is the most common watch event: a pod update that changes
// one label (and, as every write does, resourceVersion and managedFields).
func podLabelChange(b *testing.B) (old, new map[string]interface{}) {
	b.Helper()
	return podPair(b, func(p map[string]interface{}) {
		md := field(p, "metadata")
		md["resourceVersion"] = "48214"
		mf := md["managedFields"].([]interface{})
		mf[0].(map[string]interface{})["time"] = "2025-03-01T10:05:00Z"
		field(md, "labels")["tier"] = "backend"
	})
}

func BenchmarkComparePodLabelChange(b *testing.B) {
	old, new := podLabelChange(b)
	opts := Options{Ignore: DefaultIgnore()}
	b.ReportAllocs()
	for b.Loop() {
		if changes := Compare(old, new, opts); len(changes) != 1 {
			b.Fatalf("Compare(pod, edited pod) = %v, want 1 change", changes)
		}
	}
}

func BenchmarkComparePodNoChange(b *testing.B) {
	old, new := podPair(b, func(p map[string]interface{}) {})
	opts := Options{Ignore: DefaultIgnore()}
	b.ReportAllocs()
	for b.Loop() {
		if changes := Compare(old, new, opts); len(changes) != 0 {
			b.Fatalf("Compare(pod, pod) = %v, want no change", changes)
		}
	}
}

func BenchmarkChangedPodLabelChange(b *testing.B) {
	old, new := podLabelChange(b)
	opts := Options{Ignore: DefaultIgnore()}
	b.ReportAllocs()
	for b.Loop() {
		if !Changed(old, new, opts) {
			b.Fatal("Changed(pod, edited pod) = false, want true")
		}
	}
}

func BenchmarkJSONPatchPod(b *testing.B) {
	old, new := podLabelChange(b)
	opts := Options{Ignore: DefaultIgnore()}
	b.ReportAllocs()
	for b.Loop() {
		if ops := JSONPatch(old, new, opts); len(ops) != 1 {
			b.Fatalf("JSONPatch(pod, edited pod) = %v, want 1 operation", ops)
		}
	}
}

func BenchmarkWriteCompact(b *testing.B) {
	changes := []Change{
		{Path: "metadata.labels.tier", Op: Modified, Old: "frontend", New: "backend"},
		{Path: `metadata.annotations["kubectl.kubernetes.io/restartedAt"]`, Op: Added, New: "2025-03-01T10:05:00Z"},
		{Path: "status.containerStatuses[name=web].restartCount", Op: Modified, Old: int64(0), New: int64(1)},
		{Path: "status.containerStatuses[name=web].lastState.terminated", Op: Added,
			New: map[string]interface{}{"exitCode": int64(137), "reason": "OOMKilled", "startedAt": "2025-03-01T10:00:04Z"}},
		{Path: "data.password", Op: Modified, Redacted: true},
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := WriteCompact(io.Discard, changes, "    ", true); err != nil {
			b.Fatalf("WriteCompact() = %v, want nil", err)
		}
	}
}

func BenchmarkUnifiedPod(b *testing.B) {
	old, new := podLabelChange(b)
	opts := Options{Ignore: DefaultIgnore()}
	b.ReportAllocs()
	for b.Loop() {
		if err := Unified(io.Discard, "old", "new", old, new, opts, 3, false); err != nil {
			b.Fatalf("Unified() = %v, want nil", err)
		}
	}
}
