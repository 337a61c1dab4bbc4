package object

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	toolscache "k8s.io/client-go/tools/cache"
)

func TestKey(t *testing.T) {
	clusterScoped := &unstructured.Unstructured{}
	clusterScoped.SetName("worker-1")
	namespaced := &unstructured.Unstructured{}
	namespaced.SetNamespace("team-a")
	namespaced.SetName("web-1")
	tests := []struct {
		name string
		obj  any
		want string
	}{
		{"namespaced typed", &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "web-0"}}, "team/web-0"},
		{"namespaced unstructured", namespaced, "team-a/web-1"},
		{"namespaced metadata only", &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "dns"}}, "kube-system/dns"},
		{"cluster-scoped typed", &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "worker-0"}}, "worker-0"},
		{"cluster-scoped unstructured", clusterScoped, "worker-1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Key(tt.obj)
			if err != nil || got != tt.want {
				t.Errorf("Key(%s) = %q, %v, want %q", tt.name, got, err, tt.want)
			}
			// The key is client-go's: an informer's store finds the
			// object under it.
			clientGo, err := toolscache.MetaNamespaceKeyFunc(tt.obj)
			if err != nil || got != clientGo {
				t.Errorf("Key(%s) = %q, want client-go's MetaNamespaceKeyFunc %q (err %v)", tt.name, got, clientGo, err)
			}
		})
	}
}

func TestKeyWithoutMetadata(t *testing.T) {
	for _, obj := range []any{nil, "default/web", 42} {
		if got, err := Key(obj); err == nil {
			t.Errorf("Key(%#v) = %q, nil, want an error", obj, got)
		}
	}
}
