package aggregate

import (
	"bytes"
	"math/rand"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/kubectl-informer/kubectl-informer/pkg/protoskip"
)

// TestResourceMeasuresReadWhatTheyDeclare decodes random pods from
// protobuf whole and keeping only what the requests and limits measures
// declare (FieldsRead), and compares the measures of both: a field they read
// but do not declare would be missing from the partial pod.
func TestResourceMeasuresReadWhatTheyDeclare(t *testing.T) {
	names := []string{"requests.cpu", "requests.memory", "limits.cpu", "limits.memory", "requests.nvidia.com/gpu", "requests.hugepages-2Mi", "limits.ephemeral-storage"}
	// All at once, and each alone: a measure of one resource declares
	// only that resource's entries of the resource lists.
	sets := [][]string{names}
	for _, name := range names {
		sets = append(sets, []string{name})
	}
	for _, set := range sets {
		t.Run(strings.Join(set, ","), func(t *testing.T) {
			var ms []Measure
			for _, name := range set {
				m, err := ParseMeasure(name)
				if err != nil {
					t.Fatal(err)
				}
				ms = append(ms, m)
			}
			measuresReadWhatTheyDeclare(t, ms)
		})
	}
}

func measuresReadWhatTheyDeclare(t *testing.T, ms []Measure) {
	paths, ok := FieldsRead(ms)
	if !ok {
		t.Fatal("FieldsRead of the resource measures = not declared")
	}
	plan, err := protoskip.NewPlan(paths)
	if err != nil {
		t.Fatal(err)
	}
	base := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme)
	partial := protoskip.NewSerializer(base, plan, scheme.Scheme)
	g := randomPodGen{r: rand.New(rand.NewSource(7))}
	n := 3000
	if testing.Short() {
		n = 500
	}
	for i := 0; i < n && !t.Failed(); i++ {
		pod := g.pod(i)
		pod.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}
		for j := range pod.Spec.Containers {
			pod.Spec.Containers[j].Image = "registry.example.com/app:v1" // read by no measure
		}
		var buf bytes.Buffer
		if err := base.Encode(pod, &buf); err != nil {
			t.Fatal(err)
		}
		whole, _, err := base.Decode(buf.Bytes(), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		part, _, err := partial.Decode(buf.Bytes(), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if p := part.(*corev1.Pod); len(p.Spec.Containers) > 0 && p.Spec.Containers[0].Image != "" {
			t.Fatalf("the partial pod kept the image %q, which no measure reads", p.Spec.Containers[0].Image)
		}
		want, wantErr := Values(ms, whole)
		got, err := Values(ms, part)
		if (err == nil) != (wantErr == nil) || len(got) != len(want) {
			t.Fatalf("pod %d: measures of the partial pod = %v, %v; of the whole = %v, %v", i, got, err, want, wantErr)
		}
		for j := range want {
			if got[j].String() != want[j].String() || got[j].Cmp(want[j]) != 0 {
				t.Errorf("pod %d: %s of the partial pod = %s, of the whole = %s", i, ms[j].Name, got[j].String(), want[j].String())
			}
		}
	}
}
