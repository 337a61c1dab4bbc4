package protoskip_test

import (
	"reflect"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/kubectl-informer/kubectl-informer/pkg/aggregate"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/protoskip"
)

// readerObjects returns the envelopes of objects of the kinds the built-in
// indexes and measures read, as a server sends them.
func readerObjects(t *testing.T) map[string][]byte {
	pod := protoskip.FixturePod(1)
	pod.Spec.Resources = &corev1.ResourceRequirements{Requests: pod.Spec.Overhead}
	pod.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: "sidecar", RestartCount: 4}}
	objects := map[string]runtime.Object{
		"pod list": protoskip.FixtureList(12),
		"pod":      pod,
		"deployment": &appsv1.Deployment{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"}, ObjectMeta: protoskip.FixturePod(2).ObjectMeta,
			Spec: appsv1.DeploymentSpec{Replicas: int32Ptr(2), Template: corev1.PodTemplateSpec{Spec: protoskip.FixturePod(3).Spec}}},
		"cron job": &batchv1.CronJob{TypeMeta: metav1.TypeMeta{APIVersion: "batch/v1", Kind: "CronJob"}, ObjectMeta: protoskip.FixturePod(5).ObjectMeta,
			Spec: batchv1.CronJobSpec{JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: protoskip.FixturePod(6).Spec}}}}},
		"claim": &corev1.PersistentVolumeClaim{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolumeClaim"}, ObjectMeta: protoskip.FixturePod(7).ObjectMeta,
			Spec: corev1.PersistentVolumeClaimSpec{VolumeName: "pv-1"}, Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound}},
		"namespace": &corev1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"}, ObjectMeta: protoskip.FixturePod(9).ObjectMeta,
			Status: corev1.NamespaceStatus{Phase: corev1.NamespaceActive}},
	}
	out := map[string][]byte{}
	for name, obj := range objects {
		out[name] = protoskip.Encode(t, obj)
	}
	return out
}

// items returns the objects of obj: a list's items, or obj.
func items(t *testing.T, obj runtime.Object) []runtime.Object {
	t.Helper()
	if list, ok := obj.(*corev1.PodList); ok {
		var out []runtime.Object
		for i := range list.Items {
			out = append(out, &list.Items[i])
		}
		return out
	}
	return []runtime.Object{obj}
}

// TestBuiltinReadersSeeWhatTheyDeclare decodes real protobuf bytes whole
// and through the plan of what each built-in index and measure declares it
// reads (index.FieldsRead, aggregate.FieldsRead), and compares what the
// index or measure returns of both.
func TestBuiltinReadersSeeWhatTheyDeclare(t *testing.T) {
	set, err := index.NewSet()
	if err != nil {
		t.Fatal(err)
	}
	objects := readerObjects(t)
	base := protoskip.ProtobufSerializer(t)
	decode := func(t *testing.T, d runtime.Decoder, name string) []runtime.Object {
		t.Helper()
		var into runtime.Object
		if name == "pod list" {
			into = &corev1.PodList{}
		}
		obj, _, err := d.Decode(objects[name], nil, into)
		if err != nil {
			t.Fatalf("decoding the %s: %v", name, err)
		}
		return items(t, obj)
	}
	for _, name := range []string{"namespace", "label:app", "label:missing", "annotation:note", "owner", "owner-uid", "node", "phase", "image"} {
		def, err := set.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		paths, ok := index.FieldsRead(def)
		if !ok {
			t.Fatalf("FieldsRead(%s) = not declared, want declared", name)
		}
		plan, err := protoskip.NewPlan(paths)
		if err != nil {
			t.Fatalf("NewPlan(FieldsRead(%s)) = %v", name, err)
		}
		partial := protoskip.NewSerializer(base, plan, scheme.Scheme)
		for object := range objects {
			t.Run(name+"/"+object, func(t *testing.T) {
				whole, part := decode(t, base, object), decode(t, partial, object)
				for i := range whole {
					want, wantErr := def.Func(whole[i])
					got, err := def.Func(part[i])
					if !reflect.DeepEqual(got, want) || (err == nil) != (wantErr == nil) {
						t.Errorf("index %s of object %d = %q, %v; want %q, %v", name, i, got, err, want, wantErr)
					}
				}
			})
		}
	}
	for _, names := range [][]string{{"requests.cpu", "requests.memory"}, {"limits.cpu"}, {"restarts"}, {"containers"}} {
		var ms []aggregate.Measure
		for _, n := range names {
			m, err := aggregate.ParseMeasure(n)
			if err != nil {
				t.Fatal(err)
			}
			ms = append(ms, m)
		}
		paths, ok := aggregate.FieldsRead(ms)
		if !ok {
			t.Fatalf("FieldsRead(%v) = not declared, want declared", names)
		}
		plan, err := protoskip.NewPlan(paths)
		if err != nil {
			t.Fatal(err)
		}
		partial := protoskip.NewSerializer(base, plan, scheme.Scheme)
		for _, object := range []string{"pod list", "pod"} {
			t.Run(names[0]+"/"+object, func(t *testing.T) {
				whole, part := decode(t, base, object), decode(t, partial, object)
				for i := range whole {
					want, wantErr := aggregate.Values(ms, whole[i])
					got, err := aggregate.Values(ms, part[i])
					if (err == nil) != (wantErr == nil) || len(got) != len(want) {
						t.Fatalf("measures %v of object %d = %v, %v; want %v, %v", names, i, got, err, want, wantErr)
					}
					for j := range want {
						if got[j].Cmp(want[j]) != 0 || got[j].String() != want[j].String() {
							t.Errorf("measure %s of object %d = %s, want %s", names[j], i, got[j].String(), want[j].String())
						}
					}
				}
			})
		}
	}
}

func TestUndeclaredReadersDecodeEverything(t *testing.T) {
	set, err := index.NewSet(index.Custom{Name: "img", JSONPath: "{.spec.containers[*].image}"})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"img", "owner-root", "selected-by"} {
		def, err := set.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if paths, ok := index.FieldsRead(def); ok {
			t.Errorf("FieldsRead(%s) = %q, declared; want not declared", name, paths)
		}
	}
	m, err := aggregate.ParseMeasure("replicas={.spec.replicas}")
	if err != nil {
		t.Fatal(err)
	}
	if paths, ok := aggregate.FieldsRead([]aggregate.Measure{m}); ok {
		t.Errorf("FieldsRead(custom measure) = %q, declared; want not declared", paths)
	}
}

func int32Ptr(v int32) *int32 { return &v }
