package index

import (
	"testing"

	"k8s.io/client-go/tools/cache"
)

// lookupBench returns the Definition of index name in a Set with the custom indexes img and team.
func lookupBench(b *testing.B, name string) Definition {
	b.Helper()
	set, err := NewSet(
		Custom{Name: "img", JSONPath: "{.spec.containers[*].image}"},
		Custom{Name: "team", JSONPath: "{.metadata.annotations.example\\.com/team}"},
	)
	if err != nil {
		b.Fatalf("NewSet() = %v, want nil", err)
	}
	def, err := set.Lookup(name)
	if err != nil {
		b.Fatalf("Lookup(%q) = %v, want nil", name, err)
	}
	return def
}

// benchIndexFunc calls f on obj b.N times.
func benchIndexFunc(b *testing.B, f cache.IndexFunc, obj interface{}) {
	b.Helper()
	b.ReportAllocs()
	for b.Loop() {
		values, err := f(obj)
		if err != nil || len(values) == 0 {
			b.Fatalf("IndexFunc(%T) = %q, %v, want values, nil", obj, values, err)
		}
	}
}

func BenchmarkImageIndexTypedPod(b *testing.B) {
	benchIndexFunc(b, lookupBench(b, "image").Func, runningPod())
}

func BenchmarkJSONPathIndex(b *testing.B) {
	f := lookupBench(b, "img").Func
	b.Run("unstructured", func(b *testing.B) {
		benchIndexFunc(b, f, toUnstructured(b, runningPod()))
	})
	b.Run("typed", func(b *testing.B) {
		benchIndexFunc(b, f, runningPod())
	})
	// A path under metadata converts only the metadata of a typed object.
	team := lookupBench(b, "team").Func
	b.Run("typed-metadata", func(b *testing.B) {
		benchIndexFunc(b, team, runningPod())
	})
}

func BenchmarkLabelIndexMetadata(b *testing.B) {
	benchIndexFunc(b, lookupBench(b, "label:app").Func, toMetadata(b, runningPod()))
}
