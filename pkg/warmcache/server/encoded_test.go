package server

import (
	"bytes"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// countedPod is a pod whose Marshal calls are counted.
type countedPod struct {
	corev1.Pod
	marshals int
}

func (p *countedPod) Marshal() ([]byte, error) {
	p.marshals++
	return p.Pod.Marshal()
}

func TestEncodedObjectsEncodeEachObjectOnce(t *testing.T) {
	var e encodedObjects
	a := &countedPod{Pod: corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "a", ResourceVersion: "1"}}}
	b := &countedPod{Pod: corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "a", ResourceVersion: "2"}}}
	first, proto, err := e.encode(a)
	if err != nil || !proto {
		t.Fatalf("encode(a) = proto %v, %v, want protobuf", proto, err)
	}
	again, _, _ := e.encode(a)
	if a.marshals != 1 || &again[0] != &first[0] {
		t.Errorf("a encoded twice: %d marshals, same bytes %v; want 1 and the same bytes", a.marshals, &again[0] == &first[0])
	}
	want, _ := a.Pod.Marshal()
	if !bytes.Equal(first, want) {
		t.Errorf("encode(a) differs from a's protobuf")
	}
	other, _, _ := e.encode(b)
	if b.marshals != 1 || bytes.Equal(other, first) {
		t.Errorf("b (another object) = %d marshals, same bytes as a: %v; want its own", b.marshals, bytes.Equal(other, first))
	}
}

func TestEncodedObjectsKeepTheLatest(t *testing.T) {
	var e encodedObjects
	pods := make([]*countedPod, encodedLimit+10)
	for i := range pods {
		pods[i] = &countedPod{}
		if _, _, err := e.encode(pods[i]); err != nil {
			t.Fatal(err)
		}
	}
	if len(e.bytes) != encodedLimit {
		t.Errorf("kept %d encodings, want %d", len(e.bytes), encodedLimit)
	}
	_, _, _ = e.encode(pods[len(pods)-1])
	_, _, _ = e.encode(pods[0])
	if last, oldest := pods[len(pods)-1].marshals, pods[0].marshals; last != 1 || oldest != 2 {
		t.Errorf("marshals of the newest = %d, of the oldest = %d; want 1 (kept) and 2 (dropped, encoded again)", last, oldest)
	}
}

func TestEncodedObjectsJSONForOtherObjects(t *testing.T) {
	var e encodedObjects
	u := &unstructured.Unstructured{Object: map[string]interface{}{"kind": "Widget", "apiVersion": "example.com/v1"}}
	raw, proto, err := e.encode(u)
	if err != nil || proto || !bytes.Contains(raw, []byte(`"kind":"Widget"`)) {
		t.Errorf("encode(unstructured) = %s, proto %v, %v; want its JSON", raw, proto, err)
	}
	raw, proto, err = e.encode(u.Object)
	if err != nil || proto || !bytes.Contains(raw, []byte(`"kind":"Widget"`)) {
		t.Errorf("encode(map) = %s, proto %v, %v; want its JSON", raw, proto, err)
	}
}
