package engine

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// decodedPods returns the realistic pods (benchPodDump's, with their
// managedFields) and the real one of testdata, each decoded from protobuf
// on its own, as an informer receives them.
func decodedPods(t *testing.T, n int) []*corev1.Pod {
	t.Helper()
	pods := append(benchPodDump(t, n), deploymentPods(t, 3)...)
	out := make([]*corev1.Pod, len(pods))
	for i, p := range pods {
		data, err := p.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		out[i] = &corev1.Pod{}
		if err := out[i].Unmarshal(data); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func TestInternObjectKeepsEveryValue(t *testing.T) {
	gvk := schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	for _, mode := range []ManagedFields{KeepManagedFields, InternManagedFields, DropManagedFields} {
		t.Run(fmt.Sprint(mode), func(t *testing.T) {
			pods := decodedPods(t, 61)
			for _, pod := range pods {
				// What the transform did before objects were interned.
				want := pod.DeepCopy()
				want.SetGroupVersionKind(gvk)
				trimManagedFields(want, mode)
				wantJSON, err := json.Marshal(want)
				if err != nil {
					t.Fatal(err)
				}
				got := engineTransform(pod, Typed, gvk, mode, true).(*corev1.Pod)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("pod %s: interned pod differs from the original", pod.Name)
				}
				gotJSON, err := json.Marshal(got)
				if err != nil {
					t.Fatal(err)
				}
				if string(gotJSON) != string(wantJSON) {
					t.Fatalf("pod %s: interned pod marshals as\n%s\nwant\n%s", pod.Name, gotJSON, wantJSON)
				}
				// Idempotent, and a second pass writes nothing.
				labels, image := got.Labels, got.Spec.Containers[0].Image
				again := engineTransform(got, Typed, gvk, mode, true).(*corev1.Pod)
				if !reflect.DeepEqual(again, want) {
					t.Fatalf("pod %s: transformed twice differs from the original", pod.Name)
				}
				if reflect.ValueOf(again.Labels).UnsafePointer() != reflect.ValueOf(labels).UnsafePointer() ||
					unsafe.StringData(again.Spec.Containers[0].Image) != unsafe.StringData(image) {
					t.Errorf("pod %s: a second pass replaced shared values", pod.Name)
				}
			}
			// Pods 0 and 60 are pods of the same ReplicaSet on the same
			// node (hack/benchtool realPod): they share their labels,
			// requests, probe, ports, token volume source, tolerations,
			// image and namespace.
			a, b := pods[0], pods[60]
			if reflect.ValueOf(a.Labels).UnsafePointer() != reflect.ValueOf(b.Labels).UnsafePointer() {
				t.Errorf("pods %s and %s: equal labels not shared", a.Name, b.Name)
			}
			ra, rb := a.Spec.Containers[0].Resources.Requests, b.Spec.Containers[0].Resources.Requests
			if reflect.ValueOf(ra).UnsafePointer() != reflect.ValueOf(rb).UnsafePointer() {
				t.Errorf("pods %s and %s: equal requests not shared", a.Name, b.Name)
			}
			if a.Spec.Containers[0].ReadinessProbe != b.Spec.Containers[0].ReadinessProbe ||
				&a.Spec.Containers[0].Ports[0] != &b.Spec.Containers[0].Ports[0] ||
				a.Spec.Volumes[0].Projected != b.Spec.Volumes[0].Projected ||
				&a.Spec.Tolerations[0] != &b.Spec.Tolerations[0] {
				t.Errorf("pods %s and %s: equal probes, ports, volume sources or tolerations not shared", a.Name, b.Name)
			}
			// They started in the same second: their condition lists,
			// container statuses and start times are equal, and shared.
			if &a.Status.Conditions[0] != &b.Status.Conditions[0] || cap(a.Status.Conditions) != len(a.Status.Conditions) ||
				&a.Status.ContainerStatuses[0] != &b.Status.ContainerStatuses[0] || a.Status.StartTime != b.Status.StartTime {
				t.Errorf("pods %s and %s: equal conditions, container statuses or start times not shared", a.Name, b.Name)
			}
			// A pod's token volume is named once.
			for _, p := range []*corev1.Pod{a, b} {
				if unsafe.StringData(p.Spec.Containers[0].VolumeMounts[0].Name) != unsafe.StringData(p.Spec.Volumes[0].Name) ||
					unsafe.StringData(p.Status.PodIPs[0].IP) != unsafe.StringData(p.Status.PodIP) {
					t.Errorf("pod %s: its volume mount's name or first pod IP is a copy", p.Name)
				}
			}
			if unsafe.StringData(a.Spec.Containers[0].Image) != unsafe.StringData(b.Spec.Containers[0].Image) ||
				unsafe.StringData(a.Namespace) != unsafe.StringData(b.Namespace) {
				t.Errorf("pods %s and %s: equal strings not shared", a.Name, b.Name)
			}
		})
	}
}

func TestInternObjectLeavesUnstructured(t *testing.T) {
	gvk := schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	for _, pod := range decodedPods(t, 20) {
		content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(pod)
		if err != nil {
			t.Fatal(err)
		}
		u := &unstructured.Unstructured{Object: content}
		want := u.DeepCopy()
		got := engineTransform(u, Dynamic, gvk, KeepManagedFields, true)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("unstructured pod %s changed", pod.Name)
		}
	}
}

func TestMapInternerIsBounded(t *testing.T) {
	in := &mapInterner[map[string]string, string, string]{key: stringMaps.key}
	first := map[string]string{"app": "x"}
	in.intern(&first)
	for i := range 2*maxSharedMaps + 1 {
		m := map[string]string{"n": fmt.Sprint(i)}
		in.intern(&m)
		if len(in.maps) > maxSharedMaps {
			t.Fatalf("table holds %d maps, more than %d", len(in.maps), maxSharedMaps)
		}
	}
	// A map equal to one forgotten is shared again from then on.
	again, other := map[string]string{"app": "x"}, map[string]string{"app": "x"}
	in.intern(&again)
	in.intern(&other)
	if reflect.ValueOf(again).UnsafePointer() != reflect.ValueOf(other).UnsafePointer() {
		t.Errorf("equal maps not shared after the table started over")
	}
	// Keys are length-prefixed: these two differ.
	x, y := map[string]string{"a": "b:c"}, map[string]string{"a:b": "c"}
	in.intern(&x)
	in.intern(&y)
	if y["a:b"] != "c" || x["a"] != "b:c" {
		t.Errorf("distinct maps shared: %v, %v", x, y)
	}
}

// TestInternObjectSharesOnlyEqualStatuses: pods whose status times differ
// (ownStatusTimes) keep statuses of their own, each equal to its original.
func TestInternObjectSharesOnlyEqualStatuses(t *testing.T) {
	gvk := schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	pods := decodedPods(t, 61)
	for i, pod := range pods {
		ownStatusTimes(pod, i)
	}
	var got []*corev1.Pod
	for _, pod := range pods {
		want := pod.DeepCopy()
		want.SetGroupVersionKind(gvk)
		trimManagedFields(want, DropManagedFields)
		p := engineTransform(pod, Typed, gvk, DropManagedFields, true).(*corev1.Pod)
		if !reflect.DeepEqual(p, want) {
			t.Fatalf("pod %s: interned pod differs from the original", pod.Name)
		}
		got = append(got, p)
	}
	a, b := got[0], got[60]
	if &a.Status.Conditions[0] == &b.Status.Conditions[0] || &a.Status.ContainerStatuses[0] == &b.Status.ContainerStatuses[0] ||
		a.Status.StartTime == b.Status.StartTime {
		t.Errorf("pods %s and %s: statuses that differ shared", a.Name, b.Name)
	}
	if cap(a.Status.Conditions) != len(a.Status.Conditions) {
		t.Errorf("pod %s: conditions keep %d entries of room for %d", a.Name, cap(a.Status.Conditions), len(a.Status.Conditions))
	}
}
