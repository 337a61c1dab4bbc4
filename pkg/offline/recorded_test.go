package offline

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/recording"
)

// t0 is the start of the test recordings.
var t0 = time.Date(2026, 11, 26, 1, 0, 0, 0, time.UTC)

// recordedPod is a pod as a recording holds it.
func recordedPod(name, uid, image, rv string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "v1",
		"kind":       "Pod",
		"metadata": map[string]interface{}{
			"namespace": "shop", "name": name, "uid": uid, "resourceVersion": rv,
		},
		"spec": map[string]interface{}{
			"containers": []interface{}{map[string]interface{}{"name": "web", "image": image}},
		},
	}}
}

// at is an event of the test recordings, s seconds after t0.
func at(s float64, typ watch.EventType, initial bool, obj *unstructured.Unstructured) recording.Event {
	return recording.Event{Time: t0.Add(time.Duration(s * float64(time.Second))), Type: typ, Initial: initial, TypeIndex: 1, Object: obj}
}

// rolloutEvents are a small recording's events: two pods at the start, a
// third created at 10s, the first updated at 20s and deleted at 30s.
func rolloutEvents() []recording.Event {
	return []recording.Event{
		at(0.1, watch.Added, true, recordedPod("web-1", "u1", "web:v1", "1")),
		at(0.2, watch.Added, true, recordedPod("web-2", "u2", "web:v1", "2")),
		at(10, watch.Added, false, recordedPod("web-3", "u3", "web:v1", "3")),
		at(20, watch.Modified, false, recordedPod("web-1", "u1", "web:v2", "4")),
		at(30, watch.Deleted, false, recordedPod("web-1", "u1", "web:v2", "5")),
	}
}

// writeRecording writes a recording of pods (and of services, of which it
// holds none) with events to a file and returns its path.
func writeRecording(t *testing.T, events []recording.Event) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "rec")
	w, err := recording.Create(path, recording.Header{
		Started: t0,
		Types: []recording.Type{
			{Version: "v1", Resource: "services", Kind: "Service", Namespaced: true},
			{Version: "v1", Resource: "pods", Kind: "Pod", Namespaced: true},
		},
		Namespaces: []string{"shop"},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range events {
		if err := w.Write(ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestReadSpan(t *testing.T) {
	tests := []struct {
		name       string
		events     []recording.Event
		start, end time.Duration
	}{
		{name: "initial lists then events", events: rolloutEvents(), start: 200 * time.Millisecond, end: 30 * time.Second},
		{name: "only the initial lists", events: rolloutEvents()[:2], start: 200 * time.Millisecond, end: 200 * time.Millisecond},
		{name: "no events", start: 0, end: 0},
		{name: "no initial objects", events: rolloutEvents()[2:3], start: 0, end: 10 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			span, err := ReadSpan(writeRecording(t, tt.events))
			if err != nil {
				t.Fatal(err)
			}
			if want := (Span{Start: t0.Add(tt.start), End: t0.Add(tt.end)}); !span.Start.Equal(want.Start) || !span.End.Equal(want.End) || span.Truncated {
				t.Fatalf("ReadSpan() = %+v, want %+v", span, want)
			}
		})
	}
}

func TestReadSpanErrors(t *testing.T) {
	notRecording := filepath.Join(t.TempDir(), "pods.yaml")
	if err := os.WriteFile(notRecording, []byte("kind: Pod\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{notRecording, filepath.Join(t.TempDir(), "missing")} {
		if _, err := ReadSpan(path); err == nil {
			t.Errorf("ReadSpan(%s) = nil error, want one", path)
		}
	}
}

func TestMappings(t *testing.T) {
	got := Mappings(recording.Header{Types: []recording.Type{
		{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", Namespaced: true},
		{Version: "v1", Resource: "nodes", Kind: "Node"},
	}})
	if len(got) != 2 {
		t.Fatalf("Mappings() = %d mappings, want 2", len(got))
	}
	if m := got[0]; m.Resource.String() != "apps/v1, Resource=deployments" || m.GroupVersionKind.Kind != "Deployment" || m.Scope.Name() != "namespace" {
		t.Errorf("Mappings()[0] = %+v, want namespaced apps/v1 deployments", m)
	}
	if m := got[1]; m.Resource.Resource != "nodes" || m.Scope.Name() != "root" {
		t.Errorf("Mappings()[1] = %+v, want cluster-scoped nodes", m)
	}
}

func TestRecorded(t *testing.T) {
	path := writeRecording(t, rolloutEvents())
	tests := []struct {
		at   time.Duration
		want string // name=image of each pod, in order
	}{
		{at: 200 * time.Millisecond, want: "web-1=web:v1 web-2=web:v1"},
		{at: 10 * time.Second, want: "web-1=web:v1 web-2=web:v1 web-3=web:v1"},
		{at: 25 * time.Second, want: "web-1=web:v2 web-2=web:v1 web-3=web:v1"},
		{at: 30 * time.Second, want: "web-2=web:v1 web-3=web:v1"},
	}
	for _, tt := range tests {
		t.Run(tt.at.String(), func(t *testing.T) {
			source, err := Recorded(path, t0.Add(tt.at))
			if err != nil {
				t.Fatal(err)
			}
			if got := listPods(t, source); got != tt.want {
				t.Fatalf("Recorded(at %s) pods = %q, want %q", tt.at, got, tt.want)
			}
			select {
			case <-source.Finished():
			default:
				t.Fatalf("Recorded(at %s) is not finished", tt.at)
			}
			// A recorded type without objects resolves.
			if _, err := engine.Resolve(source.RESTMapper(), []string{"services"}); err != nil {
				t.Fatalf("resolving services: %v", err)
			}
		})
	}
}

// listPods lists the pods of source in namespace shop, as name=image.
func listPods(t *testing.T, source engine.Source) string {
	t.Helper()
	mappings, err := engine.Resolve(source.RESTMapper(), []string{"pods"})
	if err != nil {
		t.Fatal(err)
	}
	list, err := engine.List(context.Background(), source, mappings[0], "shop", true, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		t.Fatal(err)
	}
	var pods []string
	for _, it := range items {
		p := it.(*corev1.Pod)
		pods = append(pods, p.Name+"="+p.Spec.Containers[0].Image)
	}
	return strings.Join(pods, " ")
}
