package engine

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/kubectl-informer/kubectl-informer/pkg/protoskip"
)

// TestTypedListerWatcherDecodesWhatTheEngineReads lists and watches pods
// in protobuf with and without an engine's Config.Reads on the requests'
// context: with it, lists and watch events decode the metadata without
// managedFields and the fields read; without it, whole pods.
func TestTypedListerWatcherDecodesWhatTheEngineReads(t *testing.T) {
	pod := corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: "web-1", Namespace: "shop", ResourceVersion: "7", Labels: map[string]string{"app": "web"},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply}}},
		Spec:   corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{Name: "app", Image: "nginx"}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning},
	}
	info, ok := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), runtime.ContentTypeProtobuf)
	if !ok {
		t.Fatal("no protobuf serializer")
	}
	var list, event bytes.Buffer
	if err := info.Serializer.Encode(&corev1.PodList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PodList"}, ListMeta: metav1.ListMeta{ResourceVersion: "42"}, Items: []corev1.Pod{pod}}, &list); err != nil {
		t.Fatal(err)
	}
	if err := info.Serializer.Encode(&pod, &event); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("watch") != "true" {
			w.Header().Set("Content-Type", runtime.ContentTypeProtobuf)
			_, _ = w.Write(list.Bytes())
			return
		}
		w.Header().Set("Content-Type", runtime.ContentTypeProtobuf+";stream=watch")
		enc := streaming.NewEncoder(info.StreamSerializer.Framer.NewFrameWriter(w), info.StreamSerializer.Serializer)
		_ = enc.Encode(&metav1.WatchEvent{Type: "ADDED", Object: runtime.RawExtension{Raw: event.Bytes()}})
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
	l, _, err := c.listerWatcher(mapping, "")
	if err != nil {
		t.Fatal(err)
	}
	plan, err := protoskip.NewPlan([]string{"spec.nodeName"})
	if err != nil {
		t.Fatal(err)
	}
	partial := pod.DeepCopy()
	partial.ManagedFields = nil
	partial.Spec = corev1.PodSpec{NodeName: "node-1"}
	partial.Status = corev1.PodStatus{}
	for _, tt := range []struct {
		name string
		ctx  context.Context
		want *corev1.Pod
	}{
		{"whole", t.Context(), &pod},
		{"reads spec.nodeName", withRequestOptions(t.Context(), &requestOptions{reads: plan}), partial},
	} {
		t.Run(tt.name, func(t *testing.T) {
			obj, err := l.ListWithContext(tt.ctx, metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			want := tt.want.DeepCopy()
			want.TypeMeta = metav1.TypeMeta{}
			if items := obj.(*corev1.PodList).Items; len(items) != 1 || !equalPods(&items[0], want) {
				t.Errorf("List() items = %+v, want [%+v]", items, want)
			}
			w, err := l.WatchWithContext(tt.ctx, metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			ev := <-w.ResultChan()
			got, ok := ev.Object.(*corev1.Pod)
			if !ok || !equalPods(got, want) {
				t.Errorf("Watch() event = %s %+v, want ADDED %+v", ev.Type, ev.Object, want)
			}
		})
	}
}

// equalPods compares pods by their protobuf encoding.
func equalPods(a, b *corev1.Pod) bool {
	ab, aerr := a.Marshal()
	bb, berr := b.Marshal()
	return aerr == nil && berr == nil && bytes.Equal(ab, bb)
}
