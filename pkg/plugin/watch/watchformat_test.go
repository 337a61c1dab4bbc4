package watch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-informer/kubectl-informer/internal/testpods"
	"github.com/kubectl-informer/kubectl-informer/pkg/diff"
	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
)

var podsType = &engine.Type{Mapping: &meta.RESTMapping{
	Resource:         schema.GroupVersionResource{Version: "v1", Resource: "pods"},
	GroupVersionKind: schema.GroupVersionKind{Version: "v1", Kind: "Pod"},
	Scope:            meta.RESTScopeNamespace,
}}

// testPrinter returns an event printer writing to out with -o output and
// --diff mode, as Complete would set it up.
func testPrinter(t testing.TB, out io.Writer, output, mode string) *EventPrinter {
	t.Helper()
	cfg, _, err := (&PrintFlags{Output: output, Diff: mode, Color: "never"}).Complete()
	if err != nil {
		t.Fatal(err)
	}
	return NewEventPrinter(cfg, nil, out, io.Discard)
}

// printEvent prints one Modified event and returns the output.
func printEvent(t testing.TB, p *EventPrinter, out *bytes.Buffer, old, new interface{}) string {
	t.Helper()
	out.Reset()
	if _, err := p.Handle(&engine.Event{Type: engine.Modified, Resource: podsType, Old: old, New: new, Key: "seed-0/pod-00042"}); err != nil {
		t.Fatalf("handle: %v", err)
	}
	if err := p.Out.Flush(); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// BenchmarkWatchPrinter measures the printer's CPU per pod update, from the
// typed objects the informer hands over to the bytes written.
func BenchmarkWatchPrinter(b *testing.B) {
	for _, output := range []struct{ output, diff string }{
		{"text", "compact"}, {"json", "compact"}, {"name", "compact"}, {"text", "none"}, {"text", "unified"},
	} {
		for _, edit := range testpods.Edits[:4] {
			name := fmt.Sprintf("%s-%s/%s", output.output, output.diff, edit.Name)
			b.Run(name, func(b *testing.B) {
				old, new := testpods.Pair(edit.Edit)
				p := testPrinter(b, io.Discard, output.output, output.diff)
				b.ReportAllocs()
				for b.Loop() {
					if _, err := p.Handle(&engine.Event{Type: engine.Modified, Resource: podsType, Old: old, New: new, Key: "seed-0/pod-00042"}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// unstructuredPod returns pod as the dynamic informer would hold it: the
// reference the typed fast path must print the same as.
func unstructuredPod(t testing.TB, pod *corev1.Pod) *unstructured.Unstructured {
	t.Helper()
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(pod)
	if err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: m}
}

// decodeLines decodes each line of NDJSON, so outputs that differ only in
// key order compare equal.
func decodeLines(t *testing.T, s string) []interface{} {
	t.Helper()
	var out []interface{}
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		if l == "" {
			continue
		}
		var v interface{}
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("not JSON: %v: %s", err, l)
		}
		out = append(out, v)
	}
	return out
}

// TestTypedUpdatesPrintAsUnstructured checks that an update of typed objects,
// whose maps diff.UpdateMaps prunes, prints exactly what the same update of the
// whole objects as unstructured maps prints, in every output, with --only
// and --ignore paths in and around the pruned parts.
func TestTypedUpdatesPrintAsUnstructured(t *testing.T) {
	filters := []struct {
		name         string
		only, ignore []string
	}{
		{"defaults", nil, nil},
		{"only labels", []string{"metadata.labels"}, nil},
		{"only spec", []string{"spec"}, nil},
		{"only a container", []string{"spec.containers[name=main].image"}, nil},
		{"ignore status", nil, []string{"status"}},
		{"ignore annotations", nil, []string{"metadata.annotations"}},
	}
	outputs := []struct{ output, diff string }{
		{"text", "compact"}, {"text", "unified"}, {"text", "none"}, {"json", "compact"}, {"yaml", "compact"}, {"name", "compact"},
	}
	for _, edit := range testpods.Edits {
		for _, f := range filters {
			for _, o := range outputs {
				t.Run(fmt.Sprintf("%s/%s/%s-%s", edit.Name, f.name, o.output, o.diff), func(t *testing.T) {
					old, new := testpods.Pair(edit.Edit)
					print := func(old, new interface{}) string {
						var out bytes.Buffer
						p := testPrinter(t, &out, o.output, o.diff)
						for _, s := range f.only {
							path, err := diff.ParsePath(s)
							if err != nil {
								t.Fatal(err)
							}
							p.Cfg.DiffOptions.Only = append(p.Cfg.DiffOptions.Only, path)
						}
						for _, s := range f.ignore {
							path, err := diff.ParsePath(s)
							if err != nil {
								t.Fatal(err)
							}
							p.Cfg.DiffOptions.Ignore = append(p.Cfg.DiffOptions.Ignore, path)
						}
						return printEvent(t, p, &out, old, new)
					}
					got := print(old, new)
					want := print(unstructuredPod(t, old), unstructuredPod(t, new))
					if o.output == "json" {
						if g, w := decodeLines(t, got), decodeLines(t, want); !reflect.DeepEqual(g, w) {
							t.Errorf("typed update printed\n%s\nwant (as unstructured)\n%s", got, want)
						}
						return
					}
					if got != want {
						t.Errorf("typed update printed\n%s\nwant (as unstructured)\n%s", got, want)
					}
				})
			}
		}
	}
}

// TestPrintedObjectsAreNotMutated checks that printing leaves the cache's
// objects as they were.
func TestPrintedObjectsAreNotMutated(t *testing.T) {
	for _, output := range []string{"text", "json"} {
		for _, edit := range testpods.Edits {
			old, new := testpods.Pair(edit.Edit)
			oldCopy, newCopy := old.DeepCopy(), new.DeepCopy()
			var out bytes.Buffer
			printEvent(t, testPrinter(t, &out, output, "compact"), &out, old, new)
			if !reflect.DeepEqual(old, oldCopy) || !reflect.DeepEqual(new, newCopy) {
				t.Errorf("-o %s, %s: printing changed the objects it printed", output, edit.Name)
			}
		}
	}
}

// TestTypedUpdatesOfOtherKinds checks the typed fast path against the
// unstructured printing for kinds with other shapes: a Deployment (a pod
// template two levels down, IntOrString, pointers to structs) and a Secret
// (redacted data, []byte values).
func TestTypedUpdatesOfOtherKinds(t *testing.T) {
	two, three := int32(2), int32(3)
	surge := intstr.FromString("25%")
	deployment := &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", ResourceVersion: "1", Generation: 1},
		Spec: appsv1.DeploymentSpec{
			Replicas: &two,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &surge}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       testpods.Pod().Spec,
			},
		},
		Status: appsv1.DeploymentStatus{Replicas: 2, ReadyReplicas: 2, ObservedGeneration: 1},
	}
	secret := &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Name: "creds", Namespace: "shop", ResourceVersion: "1"},
		Type:       corev1.SecretTypeOpaque,
		Data:       map[string][]byte{"user": []byte("admin"), "password": []byte("hunter2")},
	}
	deployments := &engine.Type{Mapping: &meta.RESTMapping{
		Resource:         schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"},
		GroupVersionKind: schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"},
		Scope:            meta.RESTScopeNamespace,
	}}
	secrets := &engine.Type{Mapping: &meta.RESTMapping{
		Resource:         schema.GroupVersionResource{Version: "v1", Resource: "secrets"},
		GroupVersionKind: schema.GroupVersionKind{Version: "v1", Kind: "Secret"},
		Scope:            meta.RESTScopeNamespace,
	}}
	tests := []struct {
		name string
		typ  *engine.Type
		old  runtime.Object
		edit func(obj runtime.Object)
	}{
		{"scale", deployments, deployment, func(o runtime.Object) { o.(*appsv1.Deployment).Spec.Replicas = &three }},
		{"template image", deployments, deployment, func(o runtime.Object) {
			d := o.(*appsv1.Deployment)
			d.Generation = 2
			d.Spec.Template.Spec.Containers[0].Image = "registry.example.com/image-9:v9"
		}},
		{"template label", deployments, deployment, func(o runtime.Object) {
			o.(*appsv1.Deployment).Spec.Template.Labels["version"] = "2"
		}},
		{"max surge", deployments, deployment, func(o runtime.Object) {
			s := intstr.FromInt32(1)
			o.(*appsv1.Deployment).Spec.Strategy.RollingUpdate.MaxSurge = &s
		}},
		{"rolling update removed", deployments, deployment, func(o runtime.Object) {
			o.(*appsv1.Deployment).Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
		}},
		{"status", deployments, deployment, func(o runtime.Object) { o.(*appsv1.Deployment).Status.ReadyReplicas = 1 }},
		{"secret value", secrets, secret, func(o runtime.Object) { o.(*corev1.Secret).Data["password"] = []byte("hunter3") }},
		{"secret key added", secrets, secret, func(o runtime.Object) { o.(*corev1.Secret).Data["token"] = []byte("t") }},
	}
	for _, tt := range tests {
		for _, output := range []string{"text", "json"} {
			t.Run(tt.name+"/"+output, func(t *testing.T) {
				old := tt.old.DeepCopyObject()
				new := old.DeepCopyObject()
				meta.NewAccessor().SetResourceVersion(new, "2")
				tt.edit(new)
				print := func(old, new interface{}) string {
					var out bytes.Buffer
					p := testPrinter(t, &out, output, "compact")
					if _, err := p.Handle(&engine.Event{Type: engine.Modified, Resource: tt.typ, Old: old, New: new, Key: "shop/x"}); err != nil {
						t.Fatal(err)
					}
					if err := p.Out.Flush(); err != nil {
						t.Fatal(err)
					}
					return out.String()
				}
				toU := func(obj runtime.Object) *unstructured.Unstructured {
					m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
					if err != nil {
						t.Fatal(err)
					}
					return &unstructured.Unstructured{Object: m}
				}
				got, want := print(old, new), print(toU(old), toU(new))
				if got == "" {
					t.Fatalf("nothing printed for a visible change")
				}
				if output == "json" {
					if g, w := decodeLines(t, got), decodeLines(t, want); !reflect.DeepEqual(g, w) {
						t.Errorf("typed update printed\n%s\nwant (as unstructured)\n%s", got, want)
					}
					return
				}
				if got != want {
					t.Errorf("typed update printed\n%s\nwant (as unstructured)\n%s", got, want)
				}
			})
		}
	}
}

// TestWatchReorderOnly checks that an update that only reorders a named
// list prints nothing in text (pkg/diff matches such lists by name) but is
// an event in -o json and yaml, whose patches work by index: otherwise the
// next event's patch would not apply to the object printed before it.
func TestWatchReorderOnly(t *testing.T) {
	deployments := &engine.Type{Mapping: &meta.RESTMapping{
		Resource:         schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"},
		GroupVersionKind: schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"},
		Scope:            meta.RESTScopeNamespace,
	}}
	deployment := func(rv string, containers ...string) *unstructured.Unstructured {
		var list []interface{}
		for _, c := range containers {
			list = append(list, map[string]interface{}{"name": c, "image": c + ":v1"})
		}
		return &unstructured.Unstructured{Object: map[string]interface{}{
			"apiVersion": "apps/v1",
			"kind":       "Deployment",
			"metadata":   map[string]interface{}{"name": "web", "namespace": "shop", "resourceVersion": rv},
			"spec":       map[string]interface{}{"template": map[string]interface{}{"spec": map[string]interface{}{"containers": list}}},
		}}
	}
	old, reordered := deployment("1", "main", "sidecar"), deployment("2", "sidecar", "main")
	tests := []struct {
		output, diffMode string
		want             string // a substring of the output; "" means no output
	}{
		{"text", "compact", ""},
		{"text", "unified", ""},
		{"name", "compact", ""},
		{"json", "compact", `"patch":[{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"sidecar:v1"}`},
		{"yaml", "compact", "path: /spec/template/spec/containers/0/image"},
	}
	for _, tt := range tests {
		t.Run(tt.output+"-"+tt.diffMode, func(t *testing.T) {
			var buf bytes.Buffer
			p := testPrinter(t, &buf, tt.output, tt.diffMode)
			shown, err := p.Handle(&engine.Event{Type: engine.Modified, Resource: deployments, Old: old, New: reordered, Key: "shop/web"})
			if err != nil {
				t.Fatalf("handle: %v", err)
			}
			if err := p.Out.Flush(); err != nil {
				t.Fatal(err)
			}
			got := buf.String()
			if shown != (tt.want != "") || tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
				t.Errorf("watch -o %s --diff %s of a reorder: shown %v, output %q, want %q", tt.output, tt.diffMode, shown, got, tt.want)
			}
		})
	}
}
