package index

import (
	"fmt"
	"strings"
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

// BenchmarkKeys looks up 10,000 pods on 10 nodes: a bucket, its complement against every key, and
// the same complement narrowed by a positive selector.
func BenchmarkKeys(b *testing.B) {
	node, err := (*Set)(nil).Lookup("node")
	if err != nil {
		b.Fatalf("Lookup(node) = %v, want nil", err)
	}
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{"node": node.Func, "namespace": namespaceIndexFunc})
	for i := range 10000 {
		pod := keysPod(fmt.Sprintf("ns-%d", i%100), fmt.Sprintf("pod-%d", i), fmt.Sprintf("w%d", i%10), "web")
		if err := indexer.Add(pod); err != nil {
			b.Fatalf("Add() = %v, want nil", err)
		}
	}
	for _, selectors := range [][]string{{"node=w1"}, {"node!=w1"}, {"namespace=ns-7", "node!=w7"}, {"node"}} {
		var sels []Selector
		for _, s := range selectors {
			sel, err := ParseSelector("--index", s)
			if err != nil {
				b.Fatalf("ParseSelector(%q) = %v, want nil", s, err)
			}
			sels = append(sels, sel)
		}
		b.Run(strings.Join(selectors, ","), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Keys(indexer, sels); err != nil {
					b.Fatalf("Keys() = %v, want nil", err)
				}
			}
		})
	}
}
