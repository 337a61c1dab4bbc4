package object

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func pod() *corev1.Pod {
	return &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: "web-1", Namespace: "shop", Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{
			NodeName: "worker-1",
			Containers: []corev1.Container{{
				Name:      "web",
				Image:     "nginx:1.27",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m")}},
			}},
		},
	}
}

func TestContent(t *testing.T) {
	podContent := map[string]interface{}{
		"apiVersion": "v1",
		"kind":       "Pod",
		"metadata": map[string]interface{}{
			"name":      "web-1",
			"namespace": "shop",
			"labels":    map[string]interface{}{"app": "web"},
		},
		"spec": map[string]interface{}{
			"nodeName": "worker-1",
			"containers": []interface{}{map[string]interface{}{
				"name":      "web",
				"image":     "nginx:1.27",
				"resources": map[string]interface{}{"requests": map[string]interface{}{"cpu": "250m"}},
			}},
		},
		"status": map[string]interface{}{},
	}
	u := &unstructured.Unstructured{Object: map[string]interface{}{"kind": "Widget", "spec": map[string]interface{}{"size": int64(3)}}}
	tests := []struct {
		name    string
		obj     interface{}
		want    map[string]interface{}
		wantErr bool
	}{
		{name: "typed pod, as the API returns it", obj: pod(), want: podContent},
		{name: "unstructured", obj: u, want: u.Object},
		{name: "unstructured list", obj: &unstructured.UnstructuredList{Object: map[string]interface{}{"kind": "List"}},
			want: map[string]interface{}{"kind": "List", "items": []interface{}{}}},
		{name: "content", obj: u.Object, want: u.Object},
		{name: "nil", obj: nil, wantErr: true},
		{name: "nil map", obj: map[string]interface{}(nil), wantErr: true},
		{name: "nil unstructured", obj: (*unstructured.Unstructured)(nil), wantErr: true},
		{name: "unstructured without content", obj: &unstructured.Unstructured{}, wantErr: true},
		{name: "nil typed object", obj: (*corev1.Pod)(nil), wantErr: true},
		{name: "not an object", obj: "a string", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Content(tt.obj)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Content(%T) error = %v, want error %v", tt.obj, err, tt.wantErr)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Content(%T) = %#v, want %#v", tt.obj, got, tt.want)
			}
		})
	}
}

// Content gives an unstructured object's own map, and converts a typed
// object into a new map that shares nothing with it; neither is changed.
func TestContentSharesOnlyUnstructuredContent(t *testing.T) {
	u := &unstructured.Unstructured{Object: map[string]interface{}{"kind": "Widget"}}
	got, err := Content(u)
	if err != nil {
		t.Fatal(err)
	}
	if reflect.ValueOf(got).Pointer() != reflect.ValueOf(u.Object).Pointer() {
		t.Errorf("Content(unstructured) copied the map, want the object's own")
	}

	p := pod()
	before := p.DeepCopy()
	got, err = Content(p)
	if err != nil {
		t.Fatal(err)
	}
	got["metadata"].(map[string]interface{})["labels"].(map[string]interface{})["app"] = "changed"
	if !reflect.DeepEqual(p, before) {
		t.Errorf("changing Content(pod) changed the pod")
	}
}
