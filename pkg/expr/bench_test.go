package expr

import (
	"context"
	"encoding/json"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

const benchFilter = "object.status.containerStatuses.exists(c, c.restartCount > 3) && object.metadata.labels.app == 'web'"

// BenchmarkToObject compares ways of turning a typed pod into the API's form.
func BenchmarkToObject(b *testing.B) {
	pod := deploymentPod()
	b.Run("DefaultUnstructuredConverter", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := runtime.DefaultUnstructuredConverter.ToUnstructured(pod); err != nil {
				b.Fatal(err)
			}
		}
	})
	// The numbers come back as int64 or float64, as in unstructured objects.
	b.Run("JSONRoundTripUtilJSON", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			data, err := json.Marshal(pod)
			if err != nil {
				b.Fatal(err)
			}
			var m map[string]any
			if err := utiljson.Unmarshal(data, &m); err != nil {
				b.Fatal(err)
			}
		}
	})
	// Numbers come back as float64: cheaper, but not the API's form.
	b.Run("JSONRoundTripStdlib", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			data, err := json.Marshal(pod)
			if err != nil {
				b.Fatal(err)
			}
			var m map[string]any
			if err := json.Unmarshal(data, &m); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkMatch is the cost of one --filter evaluation on a pod.
func BenchmarkMatch(b *testing.B) {
	p, err := Compile("--filter", benchFilter, Predicate)
	if err != nil {
		b.Fatal(err)
	}
	typed := deploymentPod()
	unstr := mustUnstructured(b, typed)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, bc := range []struct {
		name string
		ctx  context.Context
		obj  any
	}{
		{"Unstructured", context.Background(), unstr},
		{"UnstructuredCancellable", ctx, unstr},
		{"TypedConvertAndEval", context.Background(), typed},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				ok, err := p.Match(bc.ctx, bc.obj, testNow)
				if err != nil || !ok {
					b.Fatalf("Match = %v, %v, want true, nil", ok, err)
				}
			}
		})
	}
}

// BenchmarkValues is the cost of one computed index value on a pod.
func BenchmarkValues(b *testing.B) {
	p, err := Compile("--indexer", "object.spec.containers.map(c, c.image.split('/')[0])", Value)
	if err != nil {
		b.Fatal(err)
	}
	unstr := mustUnstructured(b, deploymentPod())
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Values(context.Background(), unstr, testNow); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCostLimit is the time one evaluation takes to hit the cost limit:
// the most a single object can hold the plugin up.
func BenchmarkCostLimit(b *testing.B) {
	p, err := Compile("--filter", "lists.range(1000).all(x, lists.range(1000).all(y, x + y >= 0))", Predicate)
	if err != nil {
		b.Fatal(err)
	}
	unstr := mustUnstructured(b, deploymentPod())
	for b.Loop() {
		if _, err := p.Match(context.Background(), unstr, testNow); err == nil {
			b.Fatal("Match within the cost limit, want it over")
		}
	}
}

// BenchmarkCompile is the start-up cost of one expression (the environment is
// built once, on the first Compile).
func BenchmarkCompile(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compile("--filter", benchFilter, Predicate); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMatchTypedField is a filter of one field on a typed pod, as a
// warm cache holds it: the pod is converted only as far as the field.
func BenchmarkMatchTypedField(b *testing.B) {
	p, err := Compile("--filter", "object.status.phase == 'Running'", Predicate)
	if err != nil {
		b.Fatal(err)
	}
	typed := deploymentPod()
	b.ReportAllocs()
	for b.Loop() {
		if ok, err := p.Match(context.Background(), typed, testNow); err != nil || !ok {
			b.Fatalf("Match = %v, %v, want true, nil", ok, err)
		}
	}
}
