package expr

import (
	"context"
	"fmt"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestObjectPaths(t *testing.T) {
	for _, tt := range []struct {
		src  string
		want string
	}{
		{"object.status.phase != 'Running'", "[[status phase]]"},
		{"object.metadata.labels['app'] == 'web'", "[[metadata labels]]"},
		{"has(object.spec.nodeName)", "[[spec nodeName]]"},
		{"object.spec.containers.exists(c, c.image.startsWith('x')) && object.metadata.name != ''", "[[metadata name] [spec containers]]"},
		{"object.metadata.?labels.orValue({}).size() > 0", "[[metadata]]"},
		{"size(object) > 0", "[[]]"},
		{"now > timestamp('2000-01-01T00:00:00Z')", "[]"},
	} {
		e, err := env()
		if err != nil {
			t.Fatal(err)
		}
		a, iss := e.Compile(tt.src)
		if iss.Err() != nil {
			t.Fatalf("%s: %v", tt.src, iss.Err())
		}
		paths := objectPaths(a.NativeRep())
		slices.SortFunc(paths, func(a, b []string) int { return slices.Compare(a, b) })
		if got := fmt.Sprint(paths); got != tt.want {
			t.Errorf("objectPaths(%s) = %s, want %s", tt.src, got, tt.want)
		}
	}
}

// TestProjectedEvaluation evaluates expressions on a typed pod, which reads
// only the parts of it the expression names, and on the same pod whole as
// an unstructured object: the results, and the errors, are the same.
func TestProjectedEvaluation(t *testing.T) {
	typed := deploymentPod()
	bare := &corev1.Pod{}
	for _, src := range []string{
		"object.status.phase != 'Running'",
		"object.spec.nodeName == 'worker-1'",
		"object.metadata.labels['app'] == 'web'",
		"object.metadata.labels.tier == 'frontend'",
		"has(object.spec.priority)",
		"has(object.metadata.deletionTimestamp)",
		"object.metadata.creationTimestamp < now - duration('1h')",
		"object.status.containerStatuses.exists(s, s.restartCount > 3)",
		"object.spec.containers.all(c, has(c.resources.limits) && c.resources.limits.memory != '')",
		"object.spec.securityContext.runAsUser == 0",
		"object.metadata.?annotations.orValue({}).size() > 0",
		"object.kind == 'Pod'",
		"size(object.spec) > 3",
		"object.spec.containers.map(c, c.image).exists(i, i.startsWith('docker.io/'))",
		"quantity(object.spec.containers[0].resources.requests.cpu).isGreaterThan(quantity('100m'))",
	} {
		p, err := Compile("--filter", src, Predicate)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		for _, obj := range []*corev1.Pod{typed, bare} {
			got, gotErr := p.Match(context.Background(), obj, testNow)
			want, wantErr := p.Match(context.Background(), mustUnstructured(t, obj), testNow)
			if got != want || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Errorf("%s on %s: projected %v, %v; whole %v, %v", src, obj.Name, got, gotErr, want, wantErr)
			}
		}
	}
	v, err := Compile("--indexer", "object.spec.containers.map(c, c.image.split('/')[0])", Value)
	if err != nil {
		t.Fatal(err)
	}
	got, gotErr := v.Values(context.Background(), typed, testNow)
	want, wantErr := v.Values(context.Background(), mustUnstructured(t, typed), testNow)
	if fmt.Sprint(got, gotErr) != fmt.Sprint(want, wantErr) {
		t.Errorf("values projected %v, %v; whole %v, %v", got, gotErr, want, wantErr)
	}
}
