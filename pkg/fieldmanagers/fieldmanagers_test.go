package fieldmanagers

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The fieldsV1 sets below are those a cluster with kube-controller-manager,
// kube-scheduler and kwok recorded for `kubectl create deployment web
// --replicas=2` scaled to 3 (kubectl get --show-managed-fields).
const (
	rsFields           = `{"f:metadata":{"f:annotations":{".":{},"f:deployment.kubernetes.io/desired-replicas":{},"f:deployment.kubernetes.io/max-replicas":{},"f:deployment.kubernetes.io/revision":{}},"f:labels":{".":{},"f:app":{},"f:pod-template-hash":{}},"f:ownerReferences":{".":{},"k:{\"uid\":\"f06977ca-044a-4021-8c3e-fd9066a396a0\"}":{}}},"f:spec":{"f:replicas":{},"f:selector":{},"f:template":{"f:metadata":{"f:labels":{".":{},"f:app":{},"f:pod-template-hash":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"web\"}":{".":{},"f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:resources":{},"f:terminationMessagePath":{},"f:terminationMessagePolicy":{}}},"f:dnsPolicy":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:terminationGracePeriodSeconds":{}}}}}`
	rsStatusFields     = `{"f:status":{"f:availableReplicas":{},"f:fullyLabeledReplicas":{},"f:observedGeneration":{},"f:readyReplicas":{},"f:replicas":{},"f:terminatingReplicas":{}}}`
	deployScaleFields  = `{"f:spec":{"f:replicas":{}}}`
	deployStatusFields = `{"f:metadata":{"f:annotations":{".":{},"f:deployment.kubernetes.io/revision":{}}},"f:status":{"f:availableReplicas":{},"f:conditions":{".":{},"k:{\"type\":\"Available\"}":{".":{},"f:lastTransitionTime":{},"f:lastUpdateTime":{},"f:message":{},"f:reason":{},"f:status":{},"f:type":{}},"k:{\"type\":\"Progressing\"}":{".":{},"f:lastTransitionTime":{},"f:lastUpdateTime":{},"f:message":{},"f:reason":{},"f:status":{},"f:type":{}}},"f:observedGeneration":{},"f:readyReplicas":{},"f:replicas":{},"f:terminatingReplicas":{},"f:updatedReplicas":{}}}`
	deployCreateFields = `{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:progressDeadlineSeconds":{},"f:revisionHistoryLimit":{},"f:selector":{},"f:strategy":{"f:rollingUpdate":{".":{},"f:maxSurge":{},"f:maxUnavailable":{}},"f:type":{}},"f:template":{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"web\"}":{".":{},"f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:resources":{},"f:terminationMessagePath":{},"f:terminationMessagePolicy":{}}},"f:dnsPolicy":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:terminationGracePeriodSeconds":{}}}}}`
	// deployCreateFieldsNoImage is deployCreateFields after `kubectl set
	// image` took the image: the server moves a field to the updater.
	deployCreateFieldsNoImage = `{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:progressDeadlineSeconds":{},"f:revisionHistoryLimit":{},"f:selector":{},"f:strategy":{"f:rollingUpdate":{".":{},"f:maxSurge":{},"f:maxUnavailable":{}},"f:type":{}},"f:template":{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"web\"}":{".":{},"f:imagePullPolicy":{},"f:name":{},"f:resources":{},"f:terminationMessagePath":{},"f:terminationMessagePolicy":{}}},"f:dnsPolicy":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:terminationGracePeriodSeconds":{}}}}}`
	deploySetImageFields      = `{"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"web\"}":{"f:image":{}}}}}}}`
	podFields                 = `{"f:metadata":{"f:generateName":{},"f:labels":{".":{},"f:app":{},"f:pod-template-hash":{}},"f:ownerReferences":{".":{},"k:{\"uid\":\"f496c394-befa-4ad0-823f-50d056fb053b\"}":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"web\"}":{".":{},"f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:resources":{},"f:terminationMessagePath":{},"f:terminationMessagePolicy":{}}},"f:dnsPolicy":{},"f:enableServiceLinks":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:terminationGracePeriodSeconds":{}}}`
	podStatusFields           = `{"f:status":{"f:conditions":{"k:{\"type\":\"ContainersReady\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}},"k:{\"type\":\"Initialized\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}},"k:{\"type\":\"Ready\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}}},"f:containerStatuses":{},"f:hostIP":{},"f:hostIPs":{},"f:phase":{},"f:podIP":{},"f:podIPs":{".":{},"k:{\"ip\":\"10.244.2.1\"}":{".":{},"f:ip":{}}},"f:startTime":{}}}`
)

var t0 = time.Date(2026, 11, 23, 22, 30, 0, 0, time.UTC)

// entry returns a managedFields entry at t0 plus sec seconds.
func entry(manager, op, sub string, sec int, fields string) metav1.ManagedFieldsEntry {
	tm := metav1.NewTime(t0.Add(time.Duration(sec) * time.Second))
	return metav1.ManagedFieldsEntry{
		Manager: manager, Operation: metav1.ManagedFieldsOperationType(op), Subresource: sub,
		APIVersion: "v1", Time: &tm, FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(fields),
	}
}

func obj(t *testing.T, s string) map[string]interface{} {
	t.Helper()
	var m map[string]interface{}
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("fixture %s: %v", s, err)
	}
	return m
}

func TestAuthors(t *testing.T) {
	podStatus := func(ready string, extra string) string {
		return `{"status":{"phase":"Running","podIP":"10.244.2.1","podIPs":[{"ip":"10.244.2.1"}],
			"containerStatuses":[{"name":"web","ready":` + map[string]string{"True": "true", "False": "false"}[ready] + `}],
			"conditions":[` + extra + `{"type":"Initialized","status":"True"},{"type":"Ready","status":"` + ready + `"},{"type":"ContainersReady","status":"` + ready + `"}]}}`
	}
	tests := []struct {
		name     string
		old, new string
		oldMF    []metav1.ManagedFieldsEntry
		newMF    []metav1.ManagedFieldsEntry
		want     []string
	}{
		{
			// The same manager twice within a second: its time does not
			// move, its set owns the change.
			name:  "replicaset spec.replicas by kube-controller-manager Update",
			old:   `{"metadata":{"name":"web-1"},"spec":{"replicas":2},"status":{"replicas":2}}`,
			new:   `{"metadata":{"name":"web-1"},"spec":{"replicas":3},"status":{"replicas":2}}`,
			oldMF: []metav1.ManagedFieldsEntry{entry("kube-controller-manager", "Update", "", 0, rsFields), entry("kube-controller-manager", "Update", "status", 0, rsStatusFields)},
			newMF: []metav1.ManagedFieldsEntry{entry("kube-controller-manager", "Update", "", 0, rsFields), entry("kube-controller-manager", "Update", "status", 0, rsStatusFields)},
			want:  []string{"kube-controller-manager/Update"},
		},
		{
			name: "deployment status and a condition by key, by kube-controller-manager Update/status",
			old: `{"metadata":{"annotations":{"deployment.kubernetes.io/revision":"1"}},"spec":{"replicas":3},
				"status":{"readyReplicas":2,"conditions":[{"type":"Progressing","status":"True","lastUpdateTime":"2026-11-23T22:30:00Z"},{"type":"Available","status":"True"}]}}`,
			new: `{"metadata":{"annotations":{"deployment.kubernetes.io/revision":"1"}},"spec":{"replicas":3},
				"status":{"readyReplicas":3,"conditions":[{"type":"Progressing","status":"True","lastUpdateTime":"2026-11-23T22:30:01Z"},{"type":"Available","status":"True"}]}}`,
			oldMF: []metav1.ManagedFieldsEntry{entry("kubectl-create", "Update", "", 0, deployCreateFields), entry("kubectl", "Update", "scale", 0, deployScaleFields), entry("kube-controller-manager", "Update", "status", 0, deployStatusFields)},
			newMF: []metav1.ManagedFieldsEntry{entry("kubectl-create", "Update", "", 0, deployCreateFields), entry("kubectl", "Update", "scale", 0, deployScaleFields), entry("kube-controller-manager", "Update", "status", 1, deployStatusFields)},
			want:  []string{"kube-controller-manager/Update/status"},
		},
		{
			name:  "deployment spec.replicas through the scale subresource",
			old:   `{"spec":{"replicas":2}}`,
			new:   `{"spec":{"replicas":3}}`,
			oldMF: []metav1.ManagedFieldsEntry{entry("kubectl-create", "Update", "", 0, deployCreateFields), entry("kube-controller-manager", "Update", "status", 0, deployStatusFields)},
			newMF: []metav1.ManagedFieldsEntry{entry("kubectl-create", "Update", "", 0, deployCreateFields), entry("kube-controller-manager", "Update", "status", 0, deployStatusFields), entry("kubectl", "Update", "scale", 0, deployScaleFields)},
			want:  []string{"kubectl/Update/scale"},
		},
		{
			name:  "container image by key name=web, and the generation's status, two managers",
			old:   `{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"web:v1","imagePullPolicy":"IfNotPresent"}]}}},"status":{"observedGeneration":1}}`,
			new:   `{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"web:v2","imagePullPolicy":"IfNotPresent"}]}}},"status":{"observedGeneration":2}}`,
			oldMF: []metav1.ManagedFieldsEntry{entry("kubectl-create", "Update", "", 0, deployCreateFields), entry("kube-controller-manager", "Update", "status", 0, deployStatusFields)},
			newMF: []metav1.ManagedFieldsEntry{entry("kubectl-create", "Update", "", 0, deployCreateFieldsNoImage), entry("kube-controller-manager", "Update", "status", 0, deployStatusFields), entry("kubectl-set", "Update", "", 0, deploySetImageFields)},
			want:  []string{"kube-controller-manager/Update/status", "kubectl-set/Update"},
		},
		{
			name:  "pod conditions by key type=Ready and atomic containerStatuses, by kwok Update/status",
			old:   podStatus("False", ""),
			new:   podStatus("True", ""),
			oldMF: []metav1.ManagedFieldsEntry{entry("kube-controller-manager", "Update", "", 0, podFields), entry("kwok-v0.8.0", "Update", "status", 0, podStatusFields)},
			newMF: []metav1.ManagedFieldsEntry{entry("kube-controller-manager", "Update", "", 0, podFields), entry("kwok-v0.8.0", "Update", "status", 0, podStatusFields)},
			want:  []string{"kwok-v0.8.0/Update/status"},
		},
		{
			// An element no set names, unchanged, next to one that changed.
			name:  "pod Ready beside the unowned PodScheduled condition",
			old:   podStatus("False", `{"type":"PodScheduled","status":"True"},`),
			new:   podStatus("True", `{"type":"PodScheduled","status":"True"},`),
			oldMF: []metav1.ManagedFieldsEntry{entry("kube-controller-manager", "Update", "", 0, podFields), entry("kwok-v0.8.0", "Update", "status", 0, podStatusFields)},
			newMF: []metav1.ManagedFieldsEntry{entry("kube-controller-manager", "Update", "", 0, podFields), entry("kwok-v0.8.0", "Update", "status", 1, podStatusFields)},
			want:  []string{"kwok-v0.8.0/Update/status"},
		},
		{
			name:  "pod bound through pods/binding: no owner",
			old:   `{"spec":{"schedulerName":"default-scheduler"},"status":{"phase":"Pending"}}`,
			new:   `{"spec":{"schedulerName":"default-scheduler","nodeName":"kwok-node-1"},"status":{"phase":"Pending","conditions":[{"type":"PodScheduled","status":"True"}]}}`,
			oldMF: []metav1.ManagedFieldsEntry{entry("kube-controller-manager", "Update", "", 0, podFields)},
			newMF: []metav1.ManagedFieldsEntry{entry("kube-controller-manager", "Update", "", 0, podFields)},
		},
		{
			name:  "deletion in progress: no owner",
			old:   `{"metadata":{"name":"web-1"}}`,
			new:   `{"metadata":{"name":"web-1","deletionTimestamp":"2026-11-23T22:31:00Z","deletionGracePeriodSeconds":30}}`,
			oldMF: []metav1.ManagedFieldsEntry{entry("kube-controller-manager", "Update", "", 0, podFields)},
			newMF: []metav1.ManagedFieldsEntry{entry("kube-controller-manager", "Update", "", 0, podFields)},
		},
		{
			name:  "no managedFields at all",
			old:   `{"spec":{"replicas":2}}`,
			new:   `{"spec":{"replicas":3}}`,
			oldMF: nil,
			newMF: nil,
		},
		{
			name:  "managedFields and unowned bookkeeping are never changes",
			old:   `{"metadata":{"resourceVersion":"1","managedFields":[{"manager":"a"}]}}`,
			new:   `{"metadata":{"resourceVersion":"2","managedFields":[{"manager":"b"}]}}`,
			oldMF: []metav1.ManagedFieldsEntry{entry("kube-controller-manager", "Update", "", 0, rsFields)},
			newMF: []metav1.ManagedFieldsEntry{entry("kube-controller-manager", "Update", "", 0, rsFields)},
		},
		{
			// A removed label leaves no set holding it; the labels map is
			// held by its creator (".") but not whole: no owner.
			name:  "removed label: not the holder of the labels map",
			old:   `{"metadata":{"labels":{"app":"web","pod-template-hash":"abc"}}}`,
			new:   `{"metadata":{"labels":{"app":"web"}}}`,
			oldMF: []metav1.ManagedFieldsEntry{entry("kube-controller-manager", "Update", "", 0, podFields)},
			newMF: []metav1.ManagedFieldsEntry{entry("kube-controller-manager", "Update", "", 1, `{"f:metadata":{"f:labels":{".":{},"f:app":{}}}}`)},
		},
		{
			// What the binding adds on a 1.37 cluster: node topology labels
			// beside those the pod was created with.
			name:  "labels added by pods/binding: not the holder of the labels map",
			old:   `{"metadata":{"labels":{"app":"web"}}}`,
			new:   `{"metadata":{"labels":{"app":"web","topology.kubernetes.io/zone":"zone-a"}}}`,
			oldMF: []metav1.ManagedFieldsEntry{entry("kube-controller-manager", "Update", "", 0, podFields)},
			newMF: []metav1.ManagedFieldsEntry{entry("kube-controller-manager", "Update", "", 0, podFields)},
		},
		{
			name:  "inside an atomic map, by its holder",
			old:   `{"spec":{"selector":{"matchLabels":{"app":"web"}}}}`,
			new:   `{"spec":{"selector":{"matchLabels":{"app":"api"}}}}`,
			newMF: []metav1.ManagedFieldsEntry{entry("kubectl-create", "Update", "", 0, deployCreateFields)},
			want:  []string{"kubectl-create/Update"},
		},
		{
			name:  "ownerReference added, by key uid",
			old:   `{"metadata":{"name":"web-1"}}`,
			new:   `{"metadata":{"name":"web-1","ownerReferences":[{"uid":"f496c394-befa-4ad0-823f-50d056fb053b","kind":"ReplicaSet","name":"web"}]}}`,
			newMF: []metav1.ManagedFieldsEntry{entry("kube-controller-manager", "Update", "", 0, podFields)},
			want:  []string{"kube-controller-manager/Update"},
		},
		{
			name:  "a set element by value",
			old:   `{"metadata":{"finalizers":["a"]}}`,
			new:   `{"metadata":{"finalizers":["a","b"]}}`,
			newMF: []metav1.ManagedFieldsEntry{entry("x", "Apply", "", 0, `{"f:metadata":{"f:finalizers":{"v:\"a\"":{}}}}`), entry("y", "Apply", "", 0, `{"f:metadata":{"f:finalizers":{"v:\"b\"":{}}}}`)},
			want:  []string{"y/Apply"},
		},
		{
			name:  "shared ownership: the moved time breaks the tie",
			old:   `{"spec":{"replicas":2}}`,
			new:   `{"spec":{"replicas":3}}`,
			oldMF: []metav1.ManagedFieldsEntry{entry("a", "Apply", "", 0, deployScaleFields), entry("b", "Apply", "", 0, deployScaleFields)},
			newMF: []metav1.ManagedFieldsEntry{entry("a", "Apply", "", 0, deployScaleFields), entry("b", "Apply", "", 1, deployScaleFields)},
			want:  []string{"b/Apply"},
		},
		{
			name:  "shared ownership, no time moved: every owner",
			old:   `{"spec":{"replicas":2}}`,
			new:   `{"spec":{"replicas":3}}`,
			oldMF: []metav1.ManagedFieldsEntry{entry("a", "Apply", "", 0, deployScaleFields), entry("b", "Apply", "", 0, deployScaleFields)},
			newMF: []metav1.ManagedFieldsEntry{entry("a", "Apply", "", 0, deployScaleFields), entry("b", "Apply", "", 0, deployScaleFields)},
			want:  []string{"a/Apply", "b/Apply"},
		},
		{
			// A moved time alone is no fieldmanagers.
			name:  "moved entry that owns nothing changed",
			old:   `{"spec":{"replicas":2},"status":{"readyReplicas":1}}`,
			new:   `{"spec":{"replicas":3},"status":{"readyReplicas":1}}`,
			oldMF: []metav1.ManagedFieldsEntry{entry("kubectl", "Update", "scale", 0, deployScaleFields), entry("kube-controller-manager", "Update", "status", 0, deployStatusFields)},
			newMF: []metav1.ManagedFieldsEntry{entry("kubectl", "Update", "scale", 0, deployScaleFields), entry("kube-controller-manager", "Update", "status", 5, deployStatusFields)},
			want:  []string{"kubectl/Update/scale"},
		},
		{
			name:  "numbers compare by value in keys",
			old:   `{"spec":{"ports":[{"containerPort":80,"protocol":"TCP","name":"a"}]}}`,
			new:   `{"spec":{"ports":[{"containerPort":80,"protocol":"TCP","name":"b"}]}}`,
			newMF: []metav1.ManagedFieldsEntry{entry("x", "Update", "", 0, `{"f:spec":{"f:ports":{"k:{\"containerPort\":80,\"protocol\":\"TCP\"}":{".":{},"f:name":{}}}}}`)},
			want:  []string{"x/Update"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Authors(obj(t, tt.old), obj(t, tt.new), Entries(tt.oldMF), Entries(tt.newMF))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Authors() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCause(t *testing.T) {
	tests := []struct {
		name     string
		old, new string
		pod      bool
		want     string
	}{
		{"deletion requested", `{"metadata":{}}`, `{"metadata":{"deletionTimestamp":"2026-11-23T22:31:00Z"}}`, true, DeletionRequested},
		{"deletion hastened by a second DELETE", `{"metadata":{"deletionTimestamp":"2026-11-23T22:31:30Z","deletionGracePeriodSeconds":30}}`, `{"metadata":{"deletionTimestamp":"2026-11-23T22:31:00Z","deletionGracePeriodSeconds":0}}`, true, DeletionRequested},
		{"deletion already in progress", `{"metadata":{"deletionTimestamp":"x"}}`, `{"metadata":{"deletionTimestamp":"x"},"status":{"phase":"Succeeded"}}`, true, ""},
		{"pod bound", `{"spec":{}}`, `{"spec":{"nodeName":"kwok-node-1"}}`, true, BoundByBinding},
		{"not a pod", `{"spec":{}}`, `{"spec":{"nodeName":"kwok-node-1"}}`, false, ""},
		{"parts that differ only, nothing about either", `{"status":{"phase":"Pending"}}`, `{"status":{"phase":"Running"}}`, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Cause(obj(t, tt.old), obj(t, tt.new), tt.pod); got != tt.want {
				t.Errorf("Cause() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestParseFieldsV1(t *testing.T) {
	if s := ParseFieldsV1([]byte(`{"f:spec":`)); s != nil {
		t.Errorf("ParseFieldsV1(invalid) = %v, want nil", s)
	}
	if s := ParseFieldsV1(nil); s != nil {
		t.Errorf("ParseFieldsV1(nil) = %v, want nil", s)
	}
	a, b := ParseFieldsV1([]byte(podFields)), ParseFieldsV1([]byte(podFields))
	if a == nil || a != b {
		t.Errorf("ParseFieldsV1 twice = %p, %p; want one parsed set, shared", a, b)
	}
}

func TestEqual(t *testing.T) {
	tests := []struct {
		a, b interface{}
		want bool
	}{
		{int64(3), float64(3), true},
		{int64(3), int64(4), false},
		{"3", int64(3), false},
		{nil, nil, true},
		{nil, map[string]interface{}{}, false},
		{map[string]interface{}{"a": int64(1)}, map[string]interface{}{"a": float64(1)}, true},
		{map[string]interface{}{"a": int64(1)}, map[string]interface{}{"b": int64(1)}, false},
		{[]interface{}{"x", true}, []interface{}{"x", true}, true},
		{[]interface{}{"x"}, []interface{}{"x", "y"}, false},
		{map[string]interface{}{}, []interface{}{}, false},
	}
	for _, tt := range tests {
		if got := equal(tt.a, tt.b); got != tt.want {
			t.Errorf("equal(%#v, %#v) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}
