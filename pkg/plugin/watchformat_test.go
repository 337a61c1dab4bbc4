package plugin

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-informer/kubectl-informer/pkg/cache"
	"github.com/kubectl-informer/kubectl-informer/pkg/diff"
)

// benchPod returns a pod as the watch's cache holds one of hack/seed's pods:
// server defaults filled in, managedFields summarized, apiVersion and kind
// set by the engine's transform.
func benchPod() *corev1.Pod {
	now := metav1.NewTime(time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC))
	noToken, grace, one := false, int64(0), int64(300)
	started := true
	return &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			Name:              "pod-00042",
			Namespace:         "seed-0",
			UID:               types.UID("9f1c1c4e-6a3b-4d8e-9a52-0e7d1d2f3a41"),
			ResourceVersion:   "123456",
			CreationTimestamp: now,
			Labels:            map[string]string{"app": "app-2", "seed.kubectl-informer.io/set": "pods", "tier": "web"},
			Annotations:       map[string]string{"seed.kubectl-informer.io/churn": "17"},
			ManagedFields: []metav1.ManagedFieldsEntry{
				{Manager: "seed", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: &now, FieldsType: "FieldsV1"},
				{Manager: "seed", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: &now, FieldsType: "FieldsV1", Subresource: "status"},
			},
		},
		Spec: corev1.PodSpec{
			AutomountServiceAccountToken:  &noToken,
			TerminationGracePeriodSeconds: &grace,
			NodeName:                      "node-42",
			RestartPolicy:                 corev1.RestartPolicyAlways,
			DNSPolicy:                     corev1.DNSClusterFirst,
			ServiceAccountName:            "default",
			DeprecatedServiceAccount:      "default",
			SecurityContext:               &corev1.PodSecurityContext{},
			SchedulerName:                 corev1.DefaultSchedulerName,
			Priority:                      new(int32),
			EnableServiceLinks:            &started,
			PreemptionPolicy:              new(corev1.PreemptLowerPriority),
			Tolerations: []corev1.Toleration{
				{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &one},
				{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &one},
			},
			Containers: []corev1.Container{{
				Name:  "main",
				Image: "registry.example.com/image-2:v1",
				Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{
						corev1.ResourceCPU:    resource.MustParse("10m"),
						corev1.ResourceMemory: resource.MustParse("16Mi"),
					},
				},
				TerminationMessagePath:   corev1.TerminationMessagePathDefault,
				TerminationMessagePolicy: corev1.TerminationMessageReadFile,
				ImagePullPolicy:          corev1.PullIfNotPresent,
			}},
		},
		Status: corev1.PodStatus{
			Phase:     corev1.PodRunning,
			PodIP:     "10.128.0.42",
			PodIPs:    []corev1.PodIP{{IP: "10.128.0.42"}},
			HostIP:    "192.168.0.1",
			HostIPs:   []corev1.HostIP{{IP: "192.168.0.1"}},
			StartTime: &now,
			QOSClass:  corev1.PodQOSBurstable,
			Conditions: []corev1.PodCondition{
				{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: now},
				{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: now},
			},
			ContainerStatuses: []corev1.ContainerStatus{{
				Name:    "main",
				Image:   "registry.example.com/image-2:v1",
				ImageID: "registry.example.com/image-2:v1",
				Ready:   true,
				Started: &started,
				State:   corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}},
			}},
		},
	}
}

// Edits churn and users make, each applied to a deep copy of benchPod.
var podEdits = []struct {
	name string
	edit func(p *corev1.Pod)
}{
	{"label", func(p *corev1.Pod) { p.Labels["churn"] = "18"; p.Labels["tier"] = "db" }},
	{"annotation", func(p *corev1.Pod) { p.Annotations["seed.kubectl-informer.io/churn"] = "18" }},
	{"status", func(p *corev1.Pod) {
		p.Status.Phase = corev1.PodPending
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse, LastTransitionTime: metav1.NewTime(time.Date(2026, 11, 23, 12, 0, 5, 0, time.UTC))}}
		t := metav1.NewTime(time.Date(2026, 11, 23, 12, 0, 5, 0, time.UTC))
		p.ManagedFields[1].Time = &t
	}},
	{"image", func(p *corev1.Pod) { p.Spec.Containers[0].Image = "registry.example.com/image-3:v2" }},
	{"container added", func(p *corev1.Pod) {
		p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "sidecar", Image: "busybox"})
	}},
	{"toleration removed", func(p *corev1.Pod) { p.Spec.Tolerations = p.Spec.Tolerations[:1] }},
	{"nil map to empty", func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{} }},
	{"security context", func(p *corev1.Pod) { p.Spec.SecurityContext.RunAsNonRoot = &started }},
	{"bookkeeping only", func(p *corev1.Pod) { p.Generation = 7 }},
	{"managed fields only", func(p *corev1.Pod) { p.ManagedFields = p.ManagedFields[:1] }},
}

var started = true

// podPair returns benchPod and a copy with edit applied and a new
// resourceVersion.
func podPair(edit func(p *corev1.Pod)) (old, new *corev1.Pod) {
	old = benchPod()
	new = old.DeepCopy()
	new.ResourceVersion = "123457"
	edit(new)
	return old, new
}

var podsType = &cache.Type{Mapping: &meta.RESTMapping{
	Resource:         schema.GroupVersionResource{Version: "v1", Resource: "pods"},
	GroupVersionKind: schema.GroupVersionKind{Version: "v1", Kind: "Pod"},
	Scope:            meta.RESTScopeNamespace,
}}

// testPrinter returns an event printer writing to out with -o output and
// --diff mode, as Complete would set it up.
func testPrinter(t testing.TB, out io.Writer, output, mode string) *eventPrinter {
	t.Helper()
	cfg := watchPrintConfig{diffOptions: diff.Options{Ignore: diff.DefaultIgnore()}}
	var err error
	if cfg.format, err = parseWatchFormat(output); err != nil {
		t.Fatal(err)
	}
	if cfg.diff, err = parseDiffMode(mode); err != nil {
		t.Fatal(err)
	}
	return newEventPrinter(cfg, nil, out, io.Discard)
}

// printEvent prints one Modified event and returns the output.
func printEvent(t testing.TB, p *eventPrinter, out *bytes.Buffer, old, new interface{}) string {
	t.Helper()
	out.Reset()
	if _, err := p.handle(&cache.Event{Type: cache.Modified, Resource: podsType, Old: old, New: new, Key: "seed-0/pod-00042"}); err != nil {
		t.Fatalf("handle: %v", err)
	}
	if err := p.out.Flush(); err != nil {
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
		for _, edit := range podEdits[:4] {
			name := fmt.Sprintf("%s-%s/%s", output.output, output.diff, edit.name)
			b.Run(name, func(b *testing.B) {
				old, new := podPair(edit.edit)
				p := testPrinter(b, io.Discard, output.output, output.diff)
				b.ReportAllocs()
				for b.Loop() {
					if _, err := p.handle(&cache.Event{Type: cache.Modified, Resource: podsType, Old: old, New: new, Key: "seed-0/pod-00042"}); err != nil {
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
	for _, edit := range podEdits {
		for _, f := range filters {
			for _, o := range outputs {
				t.Run(fmt.Sprintf("%s/%s/%s-%s", edit.name, f.name, o.output, o.diff), func(t *testing.T) {
					old, new := podPair(edit.edit)
					print := func(old, new interface{}) string {
						var out bytes.Buffer
						p := testPrinter(t, &out, o.output, o.diff)
						for _, s := range f.only {
							path, err := diff.ParsePath(s)
							if err != nil {
								t.Fatal(err)
							}
							p.cfg.diffOptions.Only = append(p.cfg.diffOptions.Only, path)
						}
						for _, s := range f.ignore {
							path, err := diff.ParsePath(s)
							if err != nil {
								t.Fatal(err)
							}
							p.cfg.diffOptions.Ignore = append(p.cfg.diffOptions.Ignore, path)
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
		for _, edit := range podEdits {
			old, new := podPair(edit.edit)
			oldCopy, newCopy := old.DeepCopy(), new.DeepCopy()
			var out bytes.Buffer
			printEvent(t, testPrinter(t, &out, output, "compact"), &out, old, new)
			if !reflect.DeepEqual(old, oldCopy) || !reflect.DeepEqual(new, newCopy) {
				t.Errorf("-o %s, %s: printing changed the objects it printed", output, edit.name)
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
				Spec:       benchPod().Spec,
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
	deployments := &cache.Type{Mapping: &meta.RESTMapping{
		Resource:         schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"},
		GroupVersionKind: schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"},
		Scope:            meta.RESTScopeNamespace,
	}}
	secrets := &cache.Type{Mapping: &meta.RESTMapping{
		Resource:         schema.GroupVersionResource{Version: "v1", Resource: "secrets"},
		GroupVersionKind: schema.GroupVersionKind{Version: "v1", Kind: "Secret"},
		Scope:            meta.RESTScopeNamespace,
	}}
	tests := []struct {
		name string
		typ  *cache.Type
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
					if _, err := p.handle(&cache.Event{Type: cache.Modified, Resource: tt.typ, Old: old, New: new, Key: "shop/x"}); err != nil {
						t.Fatal(err)
					}
					if err := p.out.Flush(); err != nil {
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
