package protoskip

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/scheme"
)

// FuzzFilter feeds the wire walker arbitrary bytes as a Pod and as a
// PodList, and whole envelopes to the Serializer. The walker must return an
// error or bytes no longer than its input, never panic; when the generated
// Unmarshal accepts the input, it must accept what the walker kept and give
// the input's object without the fields the plan drops.
func FuzzFilter(f *testing.F) {
	f.Add(encode(f, fixturePod(1))[len(envelopePrefix):])
	f.Add(encode(f, fixtureList(2))[len(envelopePrefix):])
	f.Add(mustMarshal(f, fixturePod(2)))
	f.Add(mustMarshal(f, fixtureList(2)))
	f.Add([]byte{0x0a, 0x80, 0x80, 0x80, 0x80, 0x10})
	f.Add([]byte{0x12, 0x02, 0x0a})
	plan, err := NewPlan([]string{"spec.nodeName", "spec.containers.image", "status.phase", "spec.overhead.cpu", "spec.containers.resources.requests.cpu"})
	if err != nil {
		f.Fatal(err)
	}
	base := protobufSerializer(f)
	s := NewSerializer(base, plan, scheme.Scheme)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, newObj := range []func() unmarshaler{
			func() unmarshaler { return &corev1.Pod{} },
			func() unmarshaler { return &corev1.PodList{} },
		} {
			whole := newObj()
			filter := plan.filterFor(reflect.TypeOf(whole))
			kept, err := filterMessage(nil, data, filter, 0)
			if err != nil {
				continue
			}
			if len(kept) > len(data) {
				t.Fatalf("filterMessage kept %d bytes of %d", len(kept), len(data))
			}
			if whole.Unmarshal(data) != nil {
				continue
			}
			part := newObj()
			if err := part.Unmarshal(kept); err != nil {
				t.Fatalf("Unmarshal(kept) error = %v, but the whole input unmarshals", err)
			}
			project(reflect.ValueOf(whole), filter)
			if !reflect.DeepEqual(part, whole) {
				t.Fatalf("Unmarshal(kept) = %#v, want %#v", part, whole)
			}
		}
		// The serializer on an envelope of data: an error or an object.
		envelope := append(append([]byte(nil), envelopePrefix...), data...)
		_, _, _ = s.Decode(envelope, nil, nil)
		_, _, _ = s.Decode(envelope, nil, &corev1.PodList{})
	})
}

// unmarshaler is what the generated types of the API have.
type unmarshaler interface {
	Unmarshal([]byte) error
}

func mustMarshal(t testing.TB, m interface{ Marshal() ([]byte, error) }) []byte {
	t.Helper()
	b, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}
