package mcp

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// fakeListWatch lists list and watches w.
type fakeListWatch struct {
	list runtime.Object
	w    watch.Interface
}

func (f fakeListWatch) ListWithContext(context.Context, metav1.ListOptions) (runtime.Object, error) {
	return f.list, nil
}

func (f fakeListWatch) WatchWithContext(context.Context, metav1.ListOptions) (watch.Interface, error) {
	return f.w, nil
}

func TestValuelessSecrets(t *testing.T) {
	secret := func() *corev1.Secret {
		return &corev1.Secret{Data: map[string][]byte{"password": []byte("hunter2")}, StringData: map[string]string{"token": "abc"}}
	}
	fake := watch.NewFake()
	lw := valuelessListWatch{next: fakeListWatch{list: &corev1.SecretList{Items: []corev1.Secret{*secret()}}, w: fake}}
	check := func(what string, s *corev1.Secret) {
		t.Helper()
		if v, ok := s.Data["password"]; !ok || len(v) != 0 {
			t.Errorf("%s data = %v, want the key with no value", what, s.Data)
		}
		if v, ok := s.StringData["token"]; !ok || v != "" {
			t.Errorf("%s stringData = %v, want the key with no value", what, s.StringData)
		}
	}
	list, err := lw.ListWithContext(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	check("listed", &list.(*corev1.SecretList).Items[0])
	w, err := lw.WatchWithContext(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	go fake.Add(secret())
	check("watched", (<-w.ResultChan()).Object.(*corev1.Secret))

	u := &unstructured.Unstructured{Object: map[string]any{"kind": "Secret", "data": map[string]any{"password": "aHVudGVyMg=="}}}
	emptySecretValues(u)
	if got := u.Object["data"].(map[string]any)["password"]; got != "" {
		t.Errorf("unstructured data.password = %v, want empty", got)
	}
}

// TestValuelessSecretsOfEveryListForm empties the values of Secrets in the
// list forms a source returns: unstructured, and a warm cache's list of
// objects.
func TestValuelessSecretsOfEveryListForm(t *testing.T) {
	for name, list := range map[string]runtime.Object{
		"unstructured":    &unstructured.UnstructuredList{Items: []unstructured.Unstructured{{Object: map[string]any{"kind": "Secret", "data": map[string]any{"password": "aHVudGVyMg=="}}}}},
		"list of objects": &metav1.List{Items: []runtime.RawExtension{{Object: &corev1.Secret{Data: map[string][]byte{"password": []byte("hunter2")}}}}},
	} {
		got, err := valuelessListWatch{next: fakeListWatch{list: list}}.ListWithContext(t.Context(), metav1.ListOptions{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var value any
		switch got := got.(type) {
		case *unstructured.UnstructuredList:
			value = got.Items[0].Object["data"].(map[string]any)["password"]
		case *metav1.List:
			value = string(got.Items[0].Object.(*corev1.Secret).Data["password"])
		}
		if value != "" {
			t.Errorf("%s: the listed Secret's password = %v, want empty", name, value)
		}
	}
}
