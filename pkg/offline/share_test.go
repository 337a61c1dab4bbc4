package offline

import (
	"context"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
)

// TestTypedFieldSet checks that the field sets read from pods' and nodes'
// Go types equal those fieldSet reads from their JSON-like content.
func TestTypedFieldSet(t *testing.T) {
	tests := []struct {
		name string
		obj  runtime.Object
	}{
		{"empty pod", &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"}}},
		{"pod with podIPs", &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"},
			Spec: corev1.PodSpec{NodeName: "n1", RestartPolicy: corev1.RestartPolicyAlways, SchedulerName: "default-scheduler",
				ServiceAccountName: "sa", HostNetwork: true},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.0.0.1", PodIPs: []corev1.PodIP{{IP: "10.0.0.2"}, {IP: "fd00::2"}},
				NominatedNodeName: "n2"},
		}},
		{"pod with podIP only", &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"},
			Status: corev1.PodStatus{PodIP: "10.0.0.1"}}},
		{"pod whose first podIPs entry is empty", &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"},
			Status: corev1.PodStatus{PodIP: "10.0.0.1", PodIPs: []corev1.PodIP{{}}}}},
		{"schedulable node", &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n"}}},
		{"cordoned node", &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n"}, Spec: corev1.NodeSpec{Unschedulable: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, _ := meta.Accessor(tt.obj)
			got, ok := typedFieldSet(tt.obj, m.GetName(), m.GetNamespace())
			if !ok {
				t.Fatal("typedFieldSet() = false, want a set")
			}
			content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(tt.obj)
			if err != nil {
				t.Fatal(err)
			}
			kind := reflect.TypeOf(tt.obj).Elem().Name()
			want := fieldSet(schema.GroupKind{Kind: kind}, &unstructured.Unstructured{Object: content})
			if !reflect.DeepEqual(map[string]string(got), map[string]string(want)) {
				t.Errorf("typedFieldSet() = %v, want %v", got, want)
			}
		})
	}
	if _, ok := typedFieldSet(&corev1.Service{}, "s", "ns"); ok {
		t.Error("typedFieldSet(Service) = true, want false (read from content)")
	}
}

// TestListSharesObjects checks which objects lists hand out themselves
// (owned by the source, without managedFields) and which as copies.
func TestListSharesObjects(t *testing.T) {
	pod := func(name string, managed bool) *corev1.Pod {
		p := &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", Labels: map[string]string{"app": name}}}
		if managed {
			p.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationUpdate}}
		}
		return p
	}
	widget := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]interface{}{"name": "w", "namespace": "ns", "labels": map[string]interface{}{"app": "w"}},
	}}
	plain, managed := pod("plain", false), pod("managed", true)
	owned, err := NewSourceOf([]runtime.Object{plain, managed, widget.DeepCopy()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	copied, err := NewSource([]*unstructured.Unstructured{widget}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// labelsOf returns the address of each listed object's labels map by
	// name: the same address as the source's own object means the object
	// itself was handed out.
	labelsOf := func(s *Source, resource string) map[string]uintptr {
		t.Helper()
		mapping, err := s.RESTMapper().RESTMapping(schema.GroupKind{Group: map[string]string{"pods": "", "widgets": "example.com"}[resource],
			Kind: map[string]string{"pods": "Pod", "widgets": "Widget"}[resource]})
		if err != nil {
			t.Fatal(err)
		}
		list, err := engine.List(context.Background(), s, mapping, "", true, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		items, err := meta.ExtractList(list)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]uintptr{}
		for _, item := range items {
			switch o := item.(type) {
			case *corev1.Pod:
				out[o.Name] = reflect.ValueOf(o.Labels).Pointer()
			case *unstructured.Unstructured:
				out[o.GetName()] = reflect.ValueOf(o.Object["metadata"]).Pointer()
			}
		}
		return out
	}
	pods := labelsOf(owned, "pods")
	if got, want := pods["plain"], reflect.ValueOf(plain.Labels).Pointer(); got != want {
		t.Error("a pod without managedFields was copied, want the source's own object")
	}
	if pods["managed"] == reflect.ValueOf(managed.Labels).Pointer() {
		t.Error("a pod with managedFields was handed out itself, want a copy (the engine may trim its managedFields)")
	}
	if again := labelsOf(owned, "pods"); again["plain"] != pods["plain"] {
		t.Error("a second list handed out another object, want the same one")
	}
	if got := labelsOf(copied, "widgets")["w"]; got == reflect.ValueOf(widget.Object["metadata"]).Pointer() {
		t.Error("NewSource handed out the caller's object, want a copy")
	}
	ownedWidget := owned.objects[schema.GroupKind{Group: "example.com", Kind: "Widget"}]["ns/w"].obj.(*unstructured.Unstructured)
	if got := labelsOf(owned, "widgets")["w"]; got != reflect.ValueOf(ownedWidget.Object["metadata"]).Pointer() {
		t.Error("a custom resource NewSourceOf owns was copied, want the source's own object")
	}
}
