package engine

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
)

func TestTypedClientServes(t *testing.T) {
	c, err := newTypedClient(&rest.Config{Host: "https://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		gvk  schema.GroupVersionKind
		want bool
	}{
		{schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, true},
		{schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, true},
		{schema.GroupVersionKind{Group: "autoscaling", Version: "v2", Kind: "HorizontalPodAutoscaler"}, true},
		{schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}, false},
		{schema.GroupVersionKind{Group: "apps", Version: "v9", Kind: "Deployment"}, false},
	} {
		if got := c.Serves(tt.gvk); got != tt.want {
			t.Errorf("Serves(%s) = %v, want %v", tt.gvk, got, tt.want)
		}
	}
}

// TestTypedListerWatcherDecodesProtobuf lists pods in a namespace from a server
// that answers in protobuf, and checks the request and the decoded Go type.
func TestTypedListerWatcherDecodesProtobuf(t *testing.T) {
	list := &corev1.PodList{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PodList"},
		ListMeta: metav1.ListMeta{ResourceVersion: "42"},
		Items:    []corev1.Pod{{ObjectMeta: metav1.ObjectMeta{Name: "web-1", Namespace: "shop"}, Spec: corev1.PodSpec{NodeName: "node-1"}}},
	}
	var body bytes.Buffer
	if err := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme).Encode(list, &body); err != nil {
		t.Fatal(err)
	}
	var gotPath, gotQuery, gotAccept string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotPath, gotQuery, gotAccept = r.URL.Path, r.URL.RawQuery, r.Header.Get("Accept")
		w.Header().Set("Content-Type", "application/vnd.kubernetes.protobuf")
		_, _ = w.Write(body.Bytes())
	}))
	defer srv.Close()

	c, err := newTypedClient(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	mapping := &meta.RESTMapping{
		Resource:         schema.GroupVersionResource{Version: "v1", Resource: "pods"},
		GroupVersionKind: schema.GroupVersionKind{Version: "v1", Kind: "Pod"},
	}
	l, example, err := c.listerWatcher(mapping, "shop")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := example.(*corev1.Pod); !ok {
		t.Errorf("example object is %T, want *v1.Pod", example)
	}
	obj, err := l.ListWithContext(t.Context(), metav1.ListOptions{LabelSelector: "app=web"})
	if err != nil {
		t.Fatal(err)
	}
	if gotPath != "/api/v1/namespaces/shop/pods" || gotQuery != "labelSelector=app%3Dweb" {
		t.Errorf("request = %s?%s, want /api/v1/namespaces/shop/pods?labelSelector=app%%3Dweb", gotPath, gotQuery)
	}
	if gotAccept != "application/vnd.kubernetes.protobuf,application/json" {
		t.Errorf("Accept = %q, want protobuf first", gotAccept)
	}
	pods, ok := obj.(*corev1.PodList)
	if !ok {
		t.Fatalf("List returned %T, want *v1.PodList", obj)
	}
	if len(pods.Items) != 1 || pods.Items[0].Spec.NodeName != "node-1" || pods.ResourceVersion != "42" {
		t.Errorf("List decoded %+v", pods)
	}
}
