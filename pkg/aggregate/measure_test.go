package aggregate

import (
	"strings"
	"sync"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"
)

func mustMeasure(t testing.TB, s string) Measure {
	t.Helper()
	m, err := ParseMeasure(s)
	if err != nil {
		t.Fatalf("ParseMeasure(%q) = %v", s, err)
	}
	return m
}

func TestBuiltinMeasures(t *testing.T) {
	tests := []struct {
		name    string
		pod     *corev1.Pod
		measure string
		want    string
	}{
		{"exact cpu sum", plainPod, "requests.cpu", "1330m"},
		{"exact memory sum", plainPod, "requests.memory", "4256Mi"},
		{"limit unset in one container counts what is set", plainPod, "limits.cpu", "2"},
		{"memory limits", plainPod, "limits.memory", "4352Mi"},
		{"large init container sets cpu", bigInitPod, "requests.cpu", "2"},
		{"large init container sets memory", bigInitPod, "requests.memory", "1Gi"},
		{"init container limits", bigInitPod, "limits.cpu", "2"},
		{"sidecar plus init container that follows it", sidecarPod, "requests.cpu", "1200m"},
		{"sidecar plus app containers", sidecarPod, "requests.memory", "768Mi"},
		{"overhead added to requests", overheadPod, "requests.cpu", "370m"},
		{"overhead added to memory requests", overheadPod, "requests.memory", "184Mi"},
		{"overhead added to a non-zero limit", overheadPod, "limits.cpu", "620m"},
		{"overhead not added to an absent limit", overheadPod, "limits.memory", "0"},
		{"terminal pod requests nothing", succeededPod, "requests.cpu", "0"},
		{"terminal pod limits nothing", succeededPod, "limits.memory", "0"},
		{"terminal pod restarts still count", succeededPod, "restarts", "2"},
		{"extended resource request", gpuPod, "requests.nvidia.com/gpu", "2"},
		{"extended resource limit", gpuPod, "limits.nvidia.com/gpu", "2"},
		{"absent resource", gpuPod, "requests.ephemeral-storage", "0"},
		{"in-place resize not yet actuated holds the larger", resizedPod, "requests.cpu", "1"},
		{"pod-level requests replace containers", podLevelPod, "requests.cpu", "2"},
		{"pod-level limits", podLevelPod, "limits.memory", "2Gi"},
		{"restarts", resizedPod, "restarts", "3"},
		{"containers count app and sidecar", sidecarPod, "containers", "2"},
		{"containers without sidecar", plainPod, "containers", "2"},
		{"pending pod requests count", pendingPod, "requests.cpu", "1"},
		{"custom measure sums every result", plainPod, "cpu=.spec.containers[*].resources.requests.cpu", "1330m"},
		{"custom measure on a missing field", plainPod, "x={.spec.nothing}", "0"},
		{"custom measure with a number", plainPod, "prio=spec.priority", "0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := mustMeasure(t, tt.measure)
			got, err := m.Value(tt.pod)
			if err != nil {
				t.Fatalf("%s.Value(%s) error: %v", tt.measure, tt.pod.Name, err)
			}
			if got.String() != tt.want {
				t.Errorf("%s.Value(%s) = %s, want %s", tt.measure, tt.pod.Name, got.String(), tt.want)
			}
			// The same pod as unstructured, and inside a tombstone, gives the same value.
			content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(tt.pod)
			if err != nil {
				t.Fatal(err)
			}
			u := &unstructured.Unstructured{Object: content}
			u.SetAPIVersion("v1")
			u.SetKind("Pod")
			for _, obj := range []interface{}{u, cache.DeletedFinalStateUnknown{Key: "default/x", Obj: tt.pod}} {
				got, err := m.Value(obj)
				if err != nil {
					t.Fatalf("%s.Value(%T) error: %v", tt.measure, obj, err)
				}
				if got.String() != tt.want {
					t.Errorf("%s.Value(%T) = %s, want %s", tt.measure, obj, got.String(), tt.want)
				}
			}
		})
	}
}

func TestValuesSharesOnePodComputation(t *testing.T) {
	ms := []Measure{mustMeasure(t, "requests.cpu"), mustMeasure(t, "limits.cpu"), mustMeasure(t, "requests.memory"),
		mustMeasure(t, "restarts"), mustMeasure(t, "c=.spec.containers[*].resources.limits.memory")}
	got, err := Values(ms, plainPod)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"1330m", "2", "4256Mi", "0", "4352Mi"}
	for i := range want {
		if got[i].String() != want[i] {
			t.Errorf("Values(...)[%d] (%s) = %s, want %s", i, ms[i].Name, got[i].String(), want[i])
		}
	}
}

func TestCustomMeasureOnOtherResources(t *testing.T) {
	replicas := int32(3)
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: appsv1.DeploymentSpec{Replicas: &replicas}}
	got, err := mustMeasure(t, "replicas={.spec.replicas}").Value(d)
	if err != nil || got.String() != "3" {
		t.Errorf("replicas.Value(deployment) = %s, %v, want 3, nil", got.String(), err)
	}
	if _, err := mustMeasure(t, "requests.cpu").Value(d); err == nil || !strings.Contains(err.Error(), "read pods") {
		t.Errorf("requests.cpu.Value(deployment) error = %v, want one saying it reads pods", err)
	}
	cm := &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]interface{}{"name": "c", "namespace": "ns"},
		"data":     map[string]interface{}{"size": "1.5Gi", "flag": "yes", "n": int64(2), "f": 0.25}}}
	for _, tt := range []struct{ measure, want, wantErr string }{
		{"s=.data.size", "1536Mi", ""},
		{"n=.data.n", "2", ""},
		{"f=.data.f", "250m", ""},
		{"flag=.data.flag", "", `measure flag of configmap ns/c: value "yes" is not a quantity`},
		{"d=.data", "", "a map is not a quantity"},
	} {
		got, err := mustMeasure(t, tt.measure).Value(cm)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s.Value(configmap) error = %v, want %q", tt.measure, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got.String() != tt.want {
			t.Errorf("%s.Value(configmap) = %s, %v, want %s", tt.measure, got.String(), err, tt.want)
		}
	}
	if _, err := mustMeasure(t, "requests.cpu").Value(&metav1.PartialObjectMetadata{}); err == nil {
		t.Errorf("requests.cpu.Value(metadata only) = nil error, want one")
	}
}

func TestParseMeasure(t *testing.T) {
	tests := []struct {
		in       string
		wantName string
		wantPath string
		wantErr  string
	}{
		{in: "requests.cpu", wantName: "requests.cpu"},
		{in: "limits.nvidia.com/gpu", wantName: "limits.nvidia.com/gpu"},
		{in: "requests.hugepages-2Mi", wantName: "requests.hugepages-2Mi"},
		{in: "restarts", wantName: "restarts"},
		{in: "containers", wantName: "containers"},
		{in: "gpu=.spec.containers[*].resources.limits.nvidia\\.com/gpu", wantName: "gpu",
			wantPath: "{.spec.containers[*].resources.limits.nvidia\\.com/gpu}"},
		{in: "r={.spec.replicas}", wantName: "r", wantPath: "{.spec.replicas}"},
		{in: `x={.spec.containers[?(@.name=="app")].resources.requests.cpu}`, wantName: "x",
			wantPath: `{.spec.containers[?(@.name=="app")].resources.requests.cpu}`},
		{in: "requests.nvidia.com/*", wantName: "requests.nvidia.com/*"},
		{in: "limits.nvidia.com/mig-*", wantName: "limits.nvidia.com/mig-*"},
		{in: "requests.nvidia.com/[", wantErr: `--sum requests.nvidia.com/[: malformed glob "nvidia.com/["`},
		{in: "", wantErr: `--sum needs MEASURE or NAME=JSONPATH, got ""`},
		{in: "cpu", wantErr: `--sum needs MEASURE or NAME=JSONPATH, got "cpu"`},
		{in: "requests.", wantErr: `--sum requests.: invalid resource name ""`},
		{in: "requests.a b", wantErr: `invalid resource name "a b"`},
		{in: "=.spec.x", wantErr: `--sum needs NAME=JSONPATH, got "=.spec.x"`},
		{in: "x=", wantErr: `--sum needs NAME=JSONPATH, got "x="`},
		{in: "count=.spec.x", wantErr: `measure name "count" is taken`},
		{in: "requests.cpu=.spec.x", wantErr: `measure name "requests.cpu" is taken`},
		{in: "a b=.spec.x", wantErr: `invalid measure name "a b"`},
		{in: "x={.a}{.b}", wantErr: "--sum x: invalid JSONPath"},
		{in: "x={.a[}", wantErr: "--sum x: invalid JSONPath"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			m, err := ParseMeasure(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseMeasure(%q) error = %v, want %q", tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseMeasure(%q) error = %v", tt.in, err)
			}
			if m.Name != tt.wantName || m.JSONPath != tt.wantPath {
				t.Errorf("ParseMeasure(%q) = {%q, %q}, want {%q, %q}", tt.in, m.Name, m.JSONPath, tt.wantName, tt.wantPath)
			}
			if m.PodsOnly != (tt.wantPath == "") {
				t.Errorf("ParseMeasure(%q).PodsOnly = %t, want %t", tt.in, m.PodsOnly, tt.wantPath == "")
			}
		})
	}
}

// A custom measure is used by several goroutines at once (go test -race checks it).
func TestCustomMeasureConcurrent(t *testing.T) {
	m := mustMeasure(t, "cpu=.spec.containers[*].resources.requests.cpu")
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 50; j++ {
				if got, err := m.Value(plainPod); err != nil || got.String() != "1330m" {
					t.Errorf("Value = %s, %v, want 1330m", got.String(), err)
					return
				}
			}
		}()
	}
	wg.Wait()
}
