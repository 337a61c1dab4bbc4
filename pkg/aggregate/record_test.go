package aggregate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	goruntime "runtime"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/printers"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/object"
)

// testdataPod is testdata's pod of a Deployment's ReplicaSet as the API
// server serves it (managedFields, owner, defaults, kubelet's status).
func testdataPod(t testing.TB) *corev1.Pod {
	t.Helper()
	data, err := os.ReadFile("../engine/testdata/deployment-pod.json")
	if err != nil {
		t.Fatal(err)
	}
	var pod corev1.Pod
	if err := json.Unmarshal(data, &pod); err != nil {
		t.Fatal(err)
	}
	return &pod
}

// recordObjects are objects of every form a query's cache holds: typed pods
// (the realistic one, and the measures' fixtures: pending, terminal, init
// containers, sidecars, overhead, in-place resize, pod-level resources), the
// realistic pod as unstructured and as metadata only, a Deployment, and a
// tombstone.
func recordObjects(t *testing.T) []runtime.Object {
	real := testdataPod(t)
	objs := []runtime.Object{real, realisticPod(1)}
	for _, p := range allPods() {
		p = p.DeepCopy()
		p.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}
		p.Labels = map[string]string{"app": p.Name}
		objs = append(objs, p)
	}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(real)
	if err != nil {
		t.Fatal(err)
	}
	objs = append(objs, &unstructured.Unstructured{Object: content})
	objs = append(objs, &metav1.PartialObjectMetadata{TypeMeta: real.TypeMeta, ObjectMeta: *real.ObjectMeta.DeepCopy()})
	replicas := int32(3)
	objs = append(objs, &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", UID: "d-1", Labels: map[string]string{"app": "web"}},
		Spec: appsv1.DeploymentSpec{Replicas: &replicas, Template: corev1.PodTemplateSpec{
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1.27"}}},
		}},
	})
	return objs
}

// recordIndexes are every built-in index that reads only its object, a
// JSONPath and a CEL index (one that fails on objects without a status).
func recordIndexes(t *testing.T) []index.Definition {
	set, err := index.NewSet(
		index.Custom{Name: "img", JSONPath: "{.spec.containers[*].image}"},
		index.Custom{Name: "ready", JSONPath: "object.status.conditions.filter(c, c.type == 'Ready').map(c, c.status)"},
	)
	if err != nil {
		t.Fatal(err)
	}
	var defs []index.Definition
	for _, name := range []string{"namespace", "label:app", "label:pod-template-hash", "label:absent", "annotation:note",
		"owner", "owner-uid", "node", "phase", "image", "img", "ready"} {
		def, err := set.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if def.Relation != index.NoRelation {
			t.Fatalf("%s reads other caches", name)
		}
		defs = append(defs, def)
	}
	return defs
}

// recordMeasures are every built-in measure kind and custom ones, one of
// which fails on an object whose field is not a quantity.
func recordMeasures(t *testing.T, pods bool) []Measure {
	names := []string{"replicas=.spec.replicas", "gen=.metadata.generation"}
	if pods {
		names = []string{"requests.cpu", "requests.memory", "limits.cpu", "limits.memory", "requests.nvidia.com/gpu",
			"restarts", "containers", "prio=.spec.priority", "bad=.metadata.name"}
	}
	var ms []Measure
	for _, s := range names {
		m, err := ParseMeasure(s)
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
	}
	return ms
}

func TestRecordAnswersAsTheWholeObject(t *testing.T) {
	defs := recordIndexes(t)
	for _, obj := range recordObjects(t) {
		key, err := object.Key(obj)
		if err != nil {
			t.Fatal(err)
		}
		_, isPod := obj.(*corev1.Pod)
		if u, ok := obj.(*unstructured.Unstructured); ok {
			isPod = u.GetKind() == "Pod"
		}
		ms := recordMeasures(t, isPod)
		plan := RecordPlan(defs, ms)
		wrapped := plan.Definitions()
		name := fmt.Sprintf("%T %s", obj, key)
		t.Run(name, func(t *testing.T) {
			out, err := plan.Transform(obj.DeepCopyObject())
			if err != nil {
				t.Fatal(err)
			}
			rec, ok := out.(*index.Record)
			if !ok {
				t.Fatalf("Transform returned %T", out)
			}
			if again, _ := plan.Transform(rec); again != rec {
				t.Errorf("Transform of a Record returned %T %p, want the Record %p", again, again, rec)
			}
			if k, _ := object.Key(rec); k != key {
				t.Errorf("key %q, want %q", k, key)
			}
			if got, want := printName(t, rec), printName(t, obj); got != want {
				t.Errorf("-o name %q, want %q", got, want)
			}
			if rec.UID != mustAccessor(t, obj).GetUID() || rec.ResourceVersion != mustAccessor(t, obj).GetResourceVersion() {
				t.Errorf("uid %q rv %q, want %q %q", rec.UID, rec.ResourceVersion, mustAccessor(t, obj).GetUID(), mustAccessor(t, obj).GetResourceVersion())
			}
			for i, def := range defs {
				if got, want := index.Values(def, rec), index.Values(def, obj); !reflect.DeepEqual(got, want) {
					t.Errorf("index.Values %s: %q, want %q", def.Name, got, want)
				}
				for _, in := range []interface{}{rec, toolscache.DeletedFinalStateUnknown{Key: key, Obj: rec}} {
					got, gotErr := wrapped[i].Func(in)
					want, wantErr := def.Func(obj)
					if !reflect.DeepEqual(got, want) || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
						t.Errorf("indexer %s of %T: %q, %v; want %q, %v", def.Name, in, got, gotErr, want, wantErr)
					}
				}
				// The wrapped index reads whole objects as before.
				if got, want := index.Values(wrapped[i], obj), index.Values(def, obj); !reflect.DeepEqual(got, want) {
					t.Errorf("wrapped %s of the whole object: %q, want %q", def.Name, got, want)
				}
			}
			got, gotErr := Values(ms, rec)
			want, wantErr := Values(ms, obj)
			if fmt.Sprint(quantities(got)) != fmt.Sprint(quantities(want)) || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Errorf("measures %v, %v; want %v, %v", quantities(got), gotErr, quantities(want), wantErr)
			}
			if wantErr == nil {
				// Without the failing measure, every value is compared.
				ok := ms[:len(ms)-1]
				got, gotErr := Values(ok, rec)
				want, wantErr := Values(ok, obj)
				if gotErr != nil || wantErr != nil || fmt.Sprint(quantities(got)) != fmt.Sprint(quantities(want)) {
					t.Errorf("measures %v, %v; want %v, %v", quantities(got), gotErr, quantities(want), wantErr)
				}
			}
		})
	}
}

// TestRecordMeasuresByName checks that a Record answers measures in the
// order asked, and refuses (ok false) one it does not hold.
func TestRecordMeasuresByName(t *testing.T) {
	ms := recordMeasures(t, true)[:3]
	pod := testdataPod(t)
	out, err := RecordPlan(nil, ms).Transform(pod)
	if err != nil {
		t.Fatal(err)
	}
	rec := out.(*index.Record)
	reversed := []Measure{ms[2], ms[1], ms[0]}
	got, err := Values(reversed, rec)
	want, wantErr := Values(reversed, pod)
	if err != nil || wantErr != nil || fmt.Sprint(quantities(got)) != fmt.Sprint(quantities(want)) {
		t.Errorf("reversed: %v, %v; want %v, %v", quantities(got), err, quantities(want), wantErr)
	}
	restarts, err := ParseMeasure("restarts")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := rec.Measures([]string{restarts.Name}); ok {
		t.Errorf("Measures(restarts) ok on a Record that does not hold it")
	}
}

func quantities(qs interface{}) []string {
	v := reflect.ValueOf(qs)
	out := make([]string, v.Len())
	for i := range out {
		out[i] = fmt.Sprint(v.Index(i).Addr().Interface())
	}
	return out
}

func mustAccessor(t *testing.T, obj runtime.Object) metav1.Object {
	t.Helper()
	m, err := meta.Accessor(obj)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func printName(t *testing.T, obj runtime.Object) string {
	t.Helper()
	var b bytes.Buffer
	if err := (&printers.NamePrinter{}).PrintObj(obj, &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// BenchmarkRecordBytesPerPod reports the bytes the heap keeps per realistic
// pod in its Record form (a --group-by node --sum requests.cpu query's) and
// as the whole pod without managedFields (what a query keeps otherwise).
func BenchmarkRecordBytesPerPod(b *testing.B) {
	pod := testdataPod(b)
	pod.ManagedFields = nil
	set, err := index.NewSet()
	if err != nil {
		b.Fatal(err)
	}
	node, err := set.Lookup("node")
	if err != nil {
		b.Fatal(err)
	}
	cpu, err := ParseMeasure("requests.cpu")
	if err != nil {
		b.Fatal(err)
	}
	plan := RecordPlan([]index.Definition{node}, []Measure{cpu})
	wire, err := pod.Marshal()
	if err != nil {
		b.Fatal(err)
	}
	const n = 2000
	for _, form := range []struct {
		name string
		keep func(p *corev1.Pod) interface{}
	}{
		{"record", func(p *corev1.Pod) interface{} { r, _ := plan.Transform(p); return r }},
		{"whole", func(p *corev1.Pod) interface{} { return p }},
	} {
		b.Run(form.name, func(b *testing.B) {
			var perPod float64
			for b.Loop() {
				kept := make([]interface{}, n)
				base := heapInUse()
				for i := range kept {
					// Decoded as a list's items are: every string its own.
					var p corev1.Pod
					if err := p.Unmarshal(wire); err != nil {
						b.Fatal(err)
					}
					p.TypeMeta = pod.TypeMeta
					p.Name = fmt.Sprintf("%s-%d", pod.Name, i)
					kept[i] = form.keep(&p)
				}
				perPod = float64(heapInUse()-base) / n
				goruntime.KeepAlive(kept)
			}
			b.ReportMetric(perPod, "B/pod")
		})
	}
}

// heapInUse returns the bytes of live heap objects after a full collection.
func heapInUse() int64 {
	goruntime.GC()
	var m goruntime.MemStats
	goruntime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
