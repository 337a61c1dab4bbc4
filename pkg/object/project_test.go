package object

import (
	"reflect"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// richPod has set, empty and nil fields of every kind the converter
// treats apart: times, quantities, int-or-strings, pointers, maps, lists.
func richPod() *corev1.Pod {
	p := pod()
	started := metav1.NewTime(time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC))
	p.CreationTimestamp = started
	p.Annotations = map[string]string{}
	p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-1", UID: "u1"}}
	p.Spec.Containers[0].ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Port: intstr.FromInt32(8080)}}}
	p.Spec.Containers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Gi")}
	p.Spec.Priority = new(int32)
	p.Status = corev1.PodStatus{Phase: corev1.PodRunning, StartTime: &started, PodIPs: []corev1.PodIP{{IP: "10.0.0.1"}},
		ContainerStatuses: []corev1.ContainerStatus{{Name: "web", RestartCount: 3, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: started}}}}}
	return p
}

// lookup returns what m holds at path, and whether it holds anything.
func lookup(m map[string]interface{}, path []string) (interface{}, bool) {
	var v interface{} = m
	for _, name := range path {
		mm, ok := v.(map[string]interface{})
		if !ok {
			return nil, false
		}
		if v, ok = mm[name]; !ok {
			return nil, false
		}
	}
	return v, true
}

// pathsOf returns every path of m's maps up to depth, and below each map
// a name it does not have.
func pathsOf(m map[string]interface{}, prefix []string, depth int) Paths {
	out := Paths{append(slices.Clone(prefix), "nosuch")}
	if depth == 0 {
		return out
	}
	for name, v := range m {
		p := append(slices.Clone(prefix), name)
		out = append(out, p)
		if sub, ok := v.(map[string]interface{}); ok {
			out = append(out, pathsOf(sub, p, depth-1)...)
		}
	}
	return out
}

func TestProjectEqualsContent(t *testing.T) {
	replicas := int32(3)
	for _, obj := range []interface{}{
		richPod(),
		&corev1.Pod{},
		&appsv1.Deployment{TypeMeta: metav1.TypeMeta{Kind: "Deployment", APIVersion: "apps/v1"}, ObjectMeta: metav1.ObjectMeta{Name: "web"},
			Spec: appsv1.DeploymentSpec{Replicas: &replicas, Strategy: appsv1.DeploymentStrategy{RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &intstr.IntOrString{Type: intstr.String, StrVal: "25%"}}}}},
		&corev1.Node{Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4")}}},
	} {
		whole, err := Content(obj)
		if err != nil {
			t.Fatal(err)
		}
		paths := pathsOf(whole, nil, 4)
		// Fields the object leaves empty, which its content omits.
		paths = append(paths, Paths{{"spec", "nodeName"}, {"spec", "securityContext", "runAsUser"}, {"metadata", "deletionTimestamp"},
			{"status", "phase"}, {"spec", "containers", "image"}, {"metadata", "labels", "app"}}...)
		for _, p := range paths {
			got, err := NewProjection(Paths{p}).Content(obj)
			if err != nil {
				t.Fatalf("%T %v: %v", obj, p, err)
			}
			for i := 1; i <= len(p); i++ {
				want, wantOK := lookup(whole, p[:i])
				have, haveOK := lookup(got, p[:i])
				if wantOK != haveOK || (len(p[:i]) == len(p) || !wantOK) && !reflect.DeepEqual(have, want) {
					t.Errorf("%T: projection of %v at %v = %#v (%v), want %#v (%v) as Content has it", obj, p, p[:i], have, haveOK, want, wantOK)
				}
			}
		}
		// Several paths at once: each as Content has it.
		some := Paths{{"metadata", "name"}, {"metadata", "labels"}, {"status", "phase"}, {"spec"}, {"spec", "containers"}}
		got, err := NewProjection(some).Content(obj)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range some {
			want, wantOK := lookup(whole, p)
			have, haveOK := lookup(got, p)
			if wantOK != haveOK || !reflect.DeepEqual(have, want) {
				t.Errorf("%T: projection of %v at %v = %#v, want %#v", obj, some, p, have, want)
			}
		}
	}
}

func TestProjectWholeObject(t *testing.T) {
	p := richPod()
	want, _ := Content(p)
	for _, paths := range []Paths{nil, {{}}, {{"status"}, {}}} {
		if got, err := NewProjection(paths).Content(p); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("projection of %v = %v, %v; want the whole content", paths, got, err)
		}
	}
	u := &unstructured.Unstructured{Object: map[string]interface{}{"kind": "Pod", "spec": map[string]interface{}{}}}
	if got, err := NewProjection(Paths{{"kind"}}).Content(u); err != nil || !reflect.DeepEqual(got, u.Object) {
		t.Errorf("the projection of an unstructured object = %v, %v; want its own map", got, err)
	}
}

func BenchmarkProject(b *testing.B) {
	p := richPod()
	for _, bc := range []struct {
		name  string
		paths Paths
	}{
		{"Content", nil},
		{"status.phase", Paths{{"status", "phase"}}},
		{"metadata.labels,spec.containers", Paths{{"metadata", "labels"}, {"spec", "containers"}}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			proj := NewProjection(bc.paths)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := proj.Content(p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// shadowing has a field of its own named as a field of the struct it
// inlines: encoding/json, and so Content, takes its own.
type shadowing struct {
	corev1.PodSpec `json:",inline"`
	NodeName       string `json:"nodeName"`
}

func TestProjectPrefersOwnFieldsToInlinedOnes(t *testing.T) {
	obj := &shadowing{PodSpec: corev1.PodSpec{NodeName: "inlined"}, NodeName: "own"}
	got, err := NewProjection(Paths{{"nodeName"}}).Content(obj)
	whole, _ := Content(obj)
	if err != nil || got["nodeName"] != "own" || whole["nodeName"] != "own" {
		t.Errorf("projection of nodeName = %v, %v, Content's %v; want own", got, err, whole["nodeName"])
	}
}
