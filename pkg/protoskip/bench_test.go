package protoskip

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/scheme"
)

// BenchmarkDecodePodList decodes a list of 1,000 fixture pods whole, and
// through plans of what the built-in indexes and measures read.
func BenchmarkDecodePodList(b *testing.B) {
	data := encode(b, fixtureList(1000))
	base := protobufSerializer(b)
	for _, bm := range []struct {
		name  string
		paths []string
	}{
		{"whole", nil},
		{"metadata", []string{}},
		{"node", []string{"spec.nodeName"}},
		{"image", []string{"spec.containers.image", "spec.initContainers.image", "spec.ephemeralContainers.image"}},
		{"spec+status", []string{"spec", "status"}},
	} {
		b.Run(bm.name, func(b *testing.B) {
			var s interface {
				Decode([]byte, *schemaGVK, runtimeObject) (runtimeObject, *schemaGVK, error)
			} = base
			if bm.paths != nil {
				plan, err := NewPlan(bm.paths)
				if err != nil {
					b.Fatal(err)
				}
				s = NewSerializer(base, plan, scheme.Scheme)
			}
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := s.Decode(data, nil, &corev1.PodList{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDecodePod decodes one fixture pod, as a watch event's object:
// whole, and for the node index's plan both ways the Serializer can, the
// filtered bytes unmarshalled straight into a new object (into nil) and a
// rewritten envelope handed to the wrapped serializer (into a pod).
func BenchmarkDecodePod(b *testing.B) {
	data := encode(b, fixturePod(1))
	base := protobufSerializer(b)
	plan, err := NewPlan([]string{"spec.nodeName"})
	if err != nil {
		b.Fatal(err)
	}
	s := NewSerializer(base, plan, scheme.Scheme)
	for _, bm := range []struct {
		name string
		dec  func() error
	}{
		{"whole", func() error { _, _, err := base.Decode(data, nil, nil); return err }},
		{"node/straight", func() error { _, _, err := s.Decode(data, nil, nil); return err }},
		{"node/envelope", func() error { _, _, err := s.Decode(data, nil, &corev1.Pod{}); return err }},
	} {
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := bm.dec(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
