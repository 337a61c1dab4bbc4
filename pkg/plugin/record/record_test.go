package record

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/recording"
)

// TestRecorder feeds a queue as an engine does and reads back what the
// recorder wrote.
func TestRecorder(t *testing.T) {
	podsMapping := &meta.RESTMapping{
		Resource:         schema.GroupVersionResource{Version: "v1", Resource: "pods"},
		GroupVersionKind: schema.GroupVersionKind{Version: "v1", Kind: "Pod"},
		Scope:            meta.RESTScopeNamespace,
	}
	deployMapping := &meta.RESTMapping{
		Resource:         schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"},
		GroupVersionKind: schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"},
		Scope:            meta.RESTScopeNamespace,
	}
	types := recordingTypes([]*meta.RESTMapping{podsMapping, deployMapping}, func(m *meta.RESTMapping) ([]string, string) {
		if m.Resource.Resource == "pods" {
			return []string{"po"}, "pod"
		}
		return nil, ""
	})
	if !types[0].BuiltIn || types[0].Kind != "Pod" || !types[0].Namespaced || types[0].ShortNames[0] != "po" || types[1].Group != "apps" {
		t.Fatalf("recordingTypes = %+v", types)
	}
	pods, deployments := &engine.Type{Mapping: podsMapping}, &engine.Type{Mapping: deployMapping}

	// A typed pod, as a typed informer holds it (no apiVersion or kind),
	// and an unstructured deployment.
	pod := func(phase string) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "web-1", Namespace: "shop", UID: "p1",
				ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubelet", Operation: metav1.ManagedFieldsOperationUpdate}}},
			Status: corev1.PodStatus{Phase: corev1.PodPhase(phase)},
		}
	}
	deploy := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]interface{}{"name": "web", "namespace": "shop", "uid": "d1"},
	}}
	q := engine.NewQueue(100)
	q.Push(&engine.Event{Type: engine.Added, Resource: pods, New: pod("Pending"), Key: "shop/web-1", Initial: true})
	q.Push(&engine.Event{Type: engine.Modified, Resource: pods, Old: pod("Pending"), New: pod("Running"), Key: "shop/web-1"})
	// The deployment's initial list comes after a live pod event.
	q.Push(&engine.Event{Type: engine.Added, Resource: deployments, New: deploy, Key: "shop/web", Initial: true})
	q.Push(&engine.Event{Type: engine.Modified, Resource: pods, Old: pod("Running"), New: pod("Running"), Key: "shop/web-1",
		Related: []index.Change{{}}, Cause: "node/n1"})
	q.Push(&engine.Event{Type: engine.Deleted, Resource: pods, Old: pod("Running"), Key: "shop/web-1"})

	var buf bytes.Buffer
	w, err := recording.NewWriter(&buf, recording.Header{Started: time.Now(), Types: types})
	if err != nil {
		t.Fatal(err)
	}
	r := newRecorder(w, types)
	// The clock starts after the header's start: the writer keeps no event
	// time before it.
	clock := time.Now().Add(time.Minute)
	r.now = func() time.Time { clock = clock.Add(time.Second); return clock }
	ctx, cancel := context.WithCancel(t.Context())
	cancel() // the recorder writes what is pending, then ends
	if err := r.run(ctx, q); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if w.Events() != 4 || w.Objects() != 2 {
		t.Errorf("Events, Objects = %d, %d, want 4, 2", w.Events(), w.Objects())
	}

	rd, err := recording.NewReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	type seen struct {
		typ       watch.EventType
		initial   bool
		typeIndex int
		kind      string
		phase     string
	}
	want := []seen{
		{watch.Added, true, 0, "Pod", "Pending"},
		{watch.Modified, false, 0, "Pod", "Running"},
		{watch.Added, false, 1, "Deployment", ""},
		{watch.Deleted, false, 0, "Pod", "Running"},
	}
	var last time.Time
	for i := 0; ; i++ {
		ev, err := rd.Next()
		if errors.Is(err, io.EOF) {
			if i != len(want) {
				t.Fatalf("read %d events, want %d", i, len(want))
			}
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		phase, _, _ := unstructured.NestedString(ev.Object.Object, "status", "phase")
		got := seen{ev.Type, ev.Initial, ev.TypeIndex, ev.Object.GetKind(), phase}
		if i >= len(want) || got != want[i] {
			t.Fatalf("event %d = %+v, want %+v", i, got, want)
		}
		if ev.Type != watch.Deleted && ev.Object.GetKind() == "Pod" && len(ev.Object.GetManagedFields()) != 1 {
			t.Errorf("event %d: managedFields = %v, want kept", i, ev.Object.GetManagedFields())
		}
		if !ev.Time.After(last) {
			t.Errorf("event %d at %v, not after %v", i, ev.Time, last)
		}
		last = ev.Time
	}
}
