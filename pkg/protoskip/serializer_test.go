package protoskip

import (
	"reflect"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
)

// withUnknownFields returns the envelope of pod with fields no version of
// the Pod type has (numbers 990 and 991) added to the pod, its metadata,
// its spec and a container: what a newer server may send.
func withUnknownFields(t *testing.T, pod *corev1.Pod) []byte {
	t.Helper()
	unknown := func(msg []byte) []byte {
		msg = append(msg, 0xf0, 0x3d, 0x07)                // field 990, varint 7
		msg = append(msg, 0xfa, 0x3d, 0x03, 'n', 'e', 'w') // field 991, bytes "new"
		return msg
	}
	field := func(out []byte, num byte, msg []byte) []byte {
		out = append(out, num<<3|2)
		out = appendVarint(out, uint64(len(msg)))
		return append(out, msg...)
	}
	mustMarshal := func(m interface{ Marshal() ([]byte, error) }) []byte {
		b, err := m.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	spec := pod.Spec.DeepCopy()
	container := mustMarshal(&spec.Containers[0])
	spec.Containers = spec.Containers[1:]
	specBytes := field(mustMarshal(spec), 2, unknown(container)) // containers is field 2 of PodSpec
	var raw []byte
	raw = field(raw, 1, unknown(mustMarshal(&pod.ObjectMeta)))
	raw = field(raw, 2, unknown(specBytes))
	raw = field(raw, 3, mustMarshal(&pod.Status))
	raw = unknown(raw)
	env := runtime.Unknown{TypeMeta: runtime.TypeMeta{APIVersion: "v1", Kind: "Pod"}, Raw: raw}
	return append(append([]byte(nil), envelopePrefix...), mustMarshal(&env)...)
}

func appendVarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

func TestSerializerDecodesWhatThePlanKeeps(t *testing.T) {
	deployment := &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: fixturePod(1).ObjectMeta,
		Spec: appsv1.DeploymentSpec{Replicas: int32Ptr(3), Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}}, Spec: fixturePod(2).Spec}},
		Status: appsv1.DeploymentStatus{Replicas: 3, ReadyReplicas: 2},
	}
	cronJob := &batchv1.CronJob{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "CronJob"},
		ObjectMeta: fixturePod(3).ObjectMeta,
		Spec: batchv1.CronJobSpec{Schedule: "* * * * *", JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{
			Template: corev1.PodTemplateSpec{Spec: fixturePod(5).Spec}}}},
	}
	status := &metav1.Status{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Status"}, Status: metav1.StatusFailure, Message: "gone", Reason: metav1.StatusReasonExpired, Code: 410}
	plans := map[string][]string{
		"metadata": {},
		"node":     {"spec.nodeName"},
		"phase":    {"status.phase"},
		"image": {"spec.containers.image", "spec.initContainers.image", "spec.ephemeralContainers.image",
			"spec.template.spec.containers.image", "spec.jobTemplate.spec.template.spec.containers.image"},
		"spec and status":   {"spec", "status"},
		"nested and whole":  {"spec.containers.resources", "spec", "status.containerStatuses.restartCount"},
		"a field not there": {"spec.nodeName", "spec.noSuchField.x", "status.phase"},
		"into a map":        {"spec.overhead.cpu", "metadata.labels.app"},
	}
	objects := []struct {
		name string
		data []byte
		into func() runtime.Object
	}{
		{"pod list", encode(t, fixtureList(8)), func() runtime.Object { return &corev1.PodList{} }},
		{"empty pod list", encode(t, &corev1.PodList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PodList"}}), func() runtime.Object { return &corev1.PodList{} }},
		{"pod, into nil", encode(t, fixturePod(1)), nil},
		{"pending pod, into a pod", encode(t, fixturePod(4)), func() runtime.Object { return &corev1.Pod{} }},
		{"pod with unknown fields", withUnknownFields(t, fixturePod(1)), nil},
		{"deployment", encode(t, deployment), nil},
		{"cron job", encode(t, cronJob), nil},
		{"status", encode(t, status), nil},
	}
	base := protobufSerializer(t)
	for planName, paths := range plans {
		plan, err := NewPlan(paths)
		if err != nil {
			t.Fatalf("NewPlan(%q) = %v", paths, err)
		}
		s := NewSerializer(base, plan, scheme.Scheme)
		for _, tt := range objects {
			t.Run(planName+"/"+tt.name, func(t *testing.T) {
				var intoWhole, intoPart runtime.Object
				if tt.into != nil {
					intoWhole, intoPart = tt.into(), tt.into()
				}
				whole, wholeGVK, err := base.Decode(tt.data, nil, intoWhole)
				if err != nil {
					t.Fatalf("decoding whole: %v", err)
				}
				part, partGVK, err := s.Decode(tt.data, nil, intoPart)
				if err != nil {
					t.Fatalf("Decode() error = %v", err)
				}
				if *partGVK != *wholeGVK {
					t.Errorf("Decode() kind = %v, want %v", partGVK, wholeGVK)
				}
				want := whole.DeepCopyObject()
				project(reflect.ValueOf(want), plan.filterFor(reflect.TypeOf(want)))
				if !reflect.DeepEqual(part, want) {
					t.Errorf("Decode() = %#v\nwant the whole object without the fields dropped: %#v", part, want)
				}
			})
		}
	}
}

func TestPlanKeepsMetadataButManagedFields(t *testing.T) {
	plan, err := NewPlan([]string{"spec.nodeName"})
	if err != nil {
		t.Fatal(err)
	}
	s := NewSerializer(protobufSerializer(t), plan, scheme.Scheme)
	obj, _, err := s.Decode(encode(t, fixturePod(1)), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	pod := obj.(*corev1.Pod)
	want := fixturePod(1)
	if pod.ManagedFields != nil {
		t.Errorf("managedFields = %v, want none", pod.ManagedFields)
	}
	want.ManagedFields = nil
	if !apiequality.Semantic.DeepEqual(pod.ObjectMeta, want.ObjectMeta) {
		t.Errorf("metadata = %#v, want %#v", pod.ObjectMeta, want.ObjectMeta)
	}
	if pod.Spec.NodeName != want.Spec.NodeName || len(pod.Spec.Containers) != 0 || pod.Status.Phase != "" {
		t.Errorf("spec.nodeName %q, %d containers, phase %q; want %q, none, none", pod.Spec.NodeName, len(pod.Spec.Containers), pod.Status.Phase, want.Spec.NodeName)
	}
}

func TestNewPlanRejectsEmptyNames(t *testing.T) {
	for _, paths := range [][]string{{""}, {"spec."}, {".status"}, {"spec..nodeName"}} {
		if _, err := NewPlan(paths); err == nil {
			t.Errorf("NewPlan(%q) = nil error, want one", paths)
		}
	}
}

func TestSerializerLeavesWhatItCannotFilterToTheWrappedOne(t *testing.T) {
	plan, err := NewPlan([]string{"spec.nodeName"})
	if err != nil {
		t.Fatal(err)
	}
	base := protobufSerializer(t)
	s := NewSerializer(base, plan, scheme.Scheme)
	good := encode(t, fixturePod(1))
	for _, tt := range []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"no envelope", []byte("{}")},
		{"prefix only", envelopePrefix},
		{"truncated", good[:len(good)/2]},
		{"unknown kind", encode(t, &metav1.Status{TypeMeta: metav1.TypeMeta{APIVersion: "example.com/v9", Kind: "Gadget"}})},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, _, wantErr := base.Decode(tt.data, nil, nil)
			_, _, err := s.Decode(tt.data, nil, nil)
			if (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
				t.Errorf("Decode() error = %v, want the wrapped serializer's %v", err, wantErr)
			}
		})
	}
	unknown, want := &runtime.Unknown{}, &runtime.Unknown{}
	if _, _, err := s.Decode(good, nil, unknown); err != nil {
		t.Fatalf("Decode(into Unknown) error = %v", err)
	}
	if _, _, err := base.Decode(good, nil, want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(unknown, want) {
		t.Errorf("Decode(into Unknown) = %d bytes of raw, want the whole object's %d", len(unknown.Raw), len(want.Raw))
	}
}

func int32Ptr(v int32) *int32 { return &v }

// TestPlanKeepsTheMapKeysItNames keeps, of a map with string keys, only
// the entries of the keys a path names below it.
func TestPlanKeepsTheMapKeysItNames(t *testing.T) {
	pod := fixturePod(1)
	pod.Spec.Overhead = corev1.ResourceList{"cpu": resource.MustParse("10m"), "memory": resource.MustParse("1Mi")}
	pod.Spec.Containers[0].Resources = corev1.ResourceRequirements{
		Requests: corev1.ResourceList{"cpu": resource.MustParse("1"), "memory": resource.MustParse("1Gi")},
		Limits:   corev1.ResourceList{"memory": resource.MustParse("2Gi")},
	}
	plan, err := NewPlan([]string{"spec.overhead.cpu", "spec.containers.resources.requests.cpu", "spec.containers.resources.limits.cpu"})
	if err != nil {
		t.Fatal(err)
	}
	obj, _, err := NewSerializer(protobufSerializer(t), plan, scheme.Scheme).Decode(encode(t, pod), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := obj.(*corev1.Pod)
	if q, ok := got.Spec.Overhead["cpu"]; len(got.Spec.Overhead) != 1 || !ok || q.String() != "10m" {
		t.Errorf("overhead = %v, want only cpu: 10m", got.Spec.Overhead)
	}
	res := got.Spec.Containers[0].Resources
	if q, ok := res.Requests["cpu"]; len(res.Requests) != 1 || !ok || q.String() != "1" {
		t.Errorf("requests = %v, want only cpu: 1", res.Requests)
	}
	if q, ok := res.Limits[""]; len(res.Limits) != 1 || !ok || !q.IsZero() {
		t.Errorf("limits = %v, want one empty entry (no cpu entry, but not nil)", res.Limits)
	}
	if got.Spec.Containers[0].Image != "" {
		t.Errorf("image = %q, want it dropped", got.Spec.Containers[0].Image)
	}
}
