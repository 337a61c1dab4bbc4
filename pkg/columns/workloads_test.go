package columns

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// template is a pod template with two containers.
var template = corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{
	{Name: "app", Image: "nginx:1.27"}, {Name: "log", Image: "busybox"},
}}}

var appSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}

func TestDeploymentRow(t *testing.T) {
	runRows(t, schema.GroupResource{Group: "apps", Resource: "deployments"}, []rowCase{
		{
			// READY is status.readyReplicas/spec.replicas; UP-TO-DATE, AVAILABLE from status;
			// wide: containers, images, selector.
			name: "rolled out",
			obj: &appsv1.Deployment{ObjectMeta: objMeta("web"),
				Spec:   appsv1.DeploymentSpec{Replicas: ptr(int32(3)), Selector: appSelector, Template: template},
				Status: appsv1.DeploymentStatus{ReadyReplicas: 2, UpdatedReplicas: 3, AvailableReplicas: 2}},
			want: []string{"web", "2/3", "3", "2", "5m", "app,log", "nginx:1.27,busybox", "app=web"},
		},
		{
			// printDeployment prints an empty selector as an empty cell (selector.String()), not
			// "<none>"; a nil spec.replicas is 0, as the conversion to the internal type makes it.
			name: "no selector, no replicas",
			obj:  &appsv1.Deployment{ObjectMeta: objMeta("web")},
			want: []string{"web", "0/0", "0", "0", "5m", "", "", ""},
		},
	})
}

func TestReplicaSetRow(t *testing.T) {
	runRows(t, schema.GroupResource{Group: "apps", Resource: "replicasets"}, []rowCase{
		{
			// DESIRED spec.replicas, CURRENT status.replicas, READY status.readyReplicas.
			name: "scaling",
			obj: &appsv1.ReplicaSet{ObjectMeta: objMeta("web-5d9c7"),
				Spec:   appsv1.ReplicaSetSpec{Replicas: ptr(int32(3)), Selector: appSelector, Template: template},
				Status: appsv1.ReplicaSetStatus{Replicas: 2, ReadyReplicas: 1}},
			want: []string{"web-5d9c7", "3", "2", "1", "5m", "app,log", "nginx:1.27,busybox", "app=web"},
		},
		{
			// FormatLabelSelector prints a nil selector as "<none>".
			name: "no selector",
			obj:  &appsv1.ReplicaSet{ObjectMeta: objMeta("web-5d9c7")},
			want: []string{"web-5d9c7", "0", "0", "0", "5m", "", "", "<none>"},
		},
	})
}

func TestStatefulSetRow(t *testing.T) {
	runRows(t, schema.GroupResource{Group: "apps", Resource: "statefulsets"}, []rowCase{
		{
			// READY is status.readyReplicas/spec.replicas; wide: containers and images only.
			name: "db",
			obj: &appsv1.StatefulSet{ObjectMeta: objMeta("db"),
				Spec:   appsv1.StatefulSetSpec{Replicas: ptr(int32(3)), Template: template},
				Status: appsv1.StatefulSetStatus{ReadyReplicas: 3}},
			want: []string{"db", "3/3", "5m", "app,log", "nginx:1.27,busybox"},
		},
	})
}

func TestDaemonSetRow(t *testing.T) {
	withNodeSelector := template
	withNodeSelector.Spec.NodeSelector = map[string]string{"kubernetes.io/os": "linux"}
	runRows(t, schema.GroupResource{Group: "apps", Resource: "daemonsets"}, []rowCase{
		{
			// Counts from status; NODE SELECTOR is the template's nodeSelector (FormatLabels).
			name: "node selector",
			obj: &appsv1.DaemonSet{ObjectMeta: objMeta("agent"),
				Spec: appsv1.DaemonSetSpec{Selector: appSelector, Template: withNodeSelector},
				Status: appsv1.DaemonSetStatus{DesiredNumberScheduled: 5, CurrentNumberScheduled: 4,
					NumberReady: 3, UpdatedNumberScheduled: 2, NumberAvailable: 1}},
			want: []string{"agent", "5", "4", "3", "2", "1", "kubernetes.io/os=linux", "5m", "app,log", "nginx:1.27,busybox", "app=web"},
		},
		{
			// FormatLabels prints an empty nodeSelector as "<none>".
			name: "no node selector",
			obj:  &appsv1.DaemonSet{ObjectMeta: objMeta("agent"), Spec: appsv1.DaemonSetSpec{Selector: appSelector}},
			want: []string{"agent", "0", "0", "0", "0", "0", "<none>", "5m", "", "", "app=web"},
		},
	})
}

func TestJobRow(t *testing.T) {
	cond := func(t batchv1.JobConditionType) batchv1.JobCondition {
		return batchv1.JobCondition{Type: t, Status: corev1.ConditionTrue}
	}
	job := func(f func(*batchv1.Job)) *batchv1.Job {
		j := &batchv1.Job{ObjectMeta: objMeta("backup"), Spec: batchv1.JobSpec{Selector: appSelector, Template: template}}
		f(j)
		return j
	}
	wide := []string{"app,log", "nginx:1.27,busybox", "app=web"}
	row := func(cells ...string) []string { return append(cells, wide...) }
	runRows(t, schema.GroupResource{Group: "batch", Resource: "jobs"}, []rowCase{
		{
			// Complete condition; COMPLETIONS succeeded/completions; DURATION completion - start.
			name: "complete",
			obj: job(func(j *batchv1.Job) {
				j.Spec.Completions = ptr(int32(1))
				j.Status = batchv1.JobStatus{Succeeded: 1, StartTime: agoPtr(4 * time.Minute), CompletionTime: agoPtr(3*time.Minute + 30*time.Second),
					Conditions: []batchv1.JobCondition{cond(batchv1.JobSuccessCriteriaMet), cond(batchv1.JobComplete)}}
			}),
			want: row("backup", "Complete", "1/1", "30s", "5m"),
		},
		{
			// No completions, parallelism > 1: "succeeded/1 of parallelism"; DURATION since start.
			name: "running, parallel",
			obj: job(func(j *batchv1.Job) {
				j.Spec.Parallelism = ptr(int32(3))
				j.Status = batchv1.JobStatus{StartTime: agoPtr(4 * time.Minute)}
			}),
			want: row("backup", "Running", "0/1 of 3", "4m", "5m"),
		},
		{
			// No start time: empty DURATION; no completions and parallelism 1: "succeeded/1".
			name: "not started",
			obj:  job(func(j *batchv1.Job) { j.Spec.Parallelism = ptr(int32(1)) }),
			want: row("backup", "Running", "0/1", "", "5m"),
		},
		{
			// Failed wins over a deletionTimestamp.
			name: "failed, deleted",
			obj: job(func(j *batchv1.Job) {
				j.DeletionTimestamp = agoPtr(time.Second)
				j.Status.Conditions = []batchv1.JobCondition{cond(batchv1.JobFailureTarget), cond(batchv1.JobFailed)}
			}),
			want: row("backup", "Failed", "0/1", "", "5m"),
		},
		{
			// A deletionTimestamp wins over Suspended.
			name: "terminating",
			obj: job(func(j *batchv1.Job) {
				j.DeletionTimestamp = agoPtr(time.Second)
				j.Status.Conditions = []batchv1.JobCondition{cond(batchv1.JobSuspended)}
			}),
			want: row("backup", "Terminating", "0/1", "", "5m"),
		},
		{
			name: "suspended",
			obj:  job(func(j *batchv1.Job) { j.Status.Conditions = []batchv1.JobCondition{cond(batchv1.JobSuspended)} }),
			want: row("backup", "Suspended", "0/1", "", "5m"),
		},
		{
			name: "failure target",
			obj:  job(func(j *batchv1.Job) { j.Status.Conditions = []batchv1.JobCondition{cond(batchv1.JobFailureTarget)} }),
			want: row("backup", "FailureTarget", "0/1", "", "5m"),
		},
		{
			name: "success criteria met",
			obj: job(func(j *batchv1.Job) {
				j.Status.Conditions = []batchv1.JobCondition{cond(batchv1.JobSuccessCriteriaMet)}
			}),
			want: row("backup", "SuccessCriteriaMet", "0/1", "", "5m"),
		},
		{
			// hasJobCondition reads the first condition of a type only: a False Complete is not
			// Complete.
			name: "complete false",
			obj: job(func(j *batchv1.Job) {
				j.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionFalse}}
			}),
			want: row("backup", "Running", "0/1", "", "5m"),
		},
	})
}

func TestCronJobRow(t *testing.T) {
	jobTemplate := batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Selector: appSelector, Template: template}}
	runRows(t, schema.GroupResource{Group: "batch", Resource: "cronjobs"}, []rowCase{
		{
			// TIMEZONE, SUSPEND (printBoolPtr), ACTIVE (len(status.active)), LAST SCHEDULE age.
			name: "scheduled",
			obj: &batchv1.CronJob{ObjectMeta: objMeta("nightly"),
				Spec: batchv1.CronJobSpec{Schedule: "0 3 * * *", TimeZone: ptr("Europe/Paris"), Suspend: ptr(false), JobTemplate: jobTemplate},
				Status: batchv1.CronJobStatus{Active: []corev1.ObjectReference{{Name: "a"}, {Name: "b"}},
					LastScheduleTime: agoPtr(3 * time.Hour)}},
			want: []string{"nightly", "0 3 * * *", "Europe/Paris", "False", "2", "3h", "5m", "app,log", "nginx:1.27,busybox", "app=web"},
		},
		{
			// No timezone and no last schedule: "<none>"; nil suspend: "<unset>"; nil selector "<none>".
			name: "never scheduled",
			obj: &batchv1.CronJob{ObjectMeta: objMeta("nightly"),
				Spec: batchv1.CronJobSpec{Schedule: "@hourly"}},
			want: []string{"nightly", "@hourly", "<none>", "<unset>", "0", "<none>", "5m", "", "", "<none>"},
		},
		{
			name: "suspended",
			obj: &batchv1.CronJob{ObjectMeta: objMeta("nightly"),
				Spec: batchv1.CronJobSpec{Schedule: "@daily", Suspend: ptr(true), JobTemplate: jobTemplate}},
			want: []string{"nightly", "@daily", "<none>", "True", "0", "<none>", "5m", "app,log", "nginx:1.27,busybox", "app=web"},
		},
	})
}

func TestReplicationControllerRow(t *testing.T) {
	runRows(t, schema.GroupResource{Resource: "replicationcontrollers"}, []rowCase{
		{
			// Wide SELECTOR is the equality selector as FormatLabels writes it.
			name: "running",
			obj: &corev1.ReplicationController{ObjectMeta: objMeta("legacy"),
				Spec: corev1.ReplicationControllerSpec{Replicas: ptr[int32](3), Selector: map[string]string{"app": "legacy", "tier": "web"},
					Template: &corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{
						{Name: "main", Image: "main:v1"}, {Name: "side", Image: "side:v1"}}}}},
				Status: corev1.ReplicationControllerStatus{Replicas: 3, ReadyReplicas: 2}},
			want: []string{"legacy", "3", "3", "2", "5m", "main,side", "main:v1,side:v1", "app=legacy,tier=web"},
		},
		{
			// No template, no selector.
			name: "empty",
			obj:  &corev1.ReplicationController{ObjectMeta: objMeta("legacy")},
			want: []string{"legacy", "0", "0", "0", "5m", "", "", "<none>"},
		},
	})
}

func TestControllerRevisionRow(t *testing.T) {
	owned := func(refs ...metav1.OwnerReference) *appsv1.ControllerRevision {
		meta := objMeta("agent-5d8f")
		meta.OwnerReferences = refs
		return &appsv1.ControllerRevision{ObjectMeta: meta, Revision: 2}
	}
	runRows(t, schema.GroupResource{Group: "apps", Resource: "controllerrevisions"}, []rowCase{
		{
			// CONTROLLER: the controller owner as kind.group/name in lower case.
			name: "daemon set",
			obj: owned(metav1.OwnerReference{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "Agent"},
				metav1.OwnerReference{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "db", Controller: ptr(true)}),
			want: []string{"agent-5d8f", "statefulset.apps/db", "2", "5m"},
		},
		{
			name: "core owner",
			obj:  owned(metav1.OwnerReference{APIVersion: "v1", Kind: "Pod", Name: "p", Controller: ptr(true)}),
			want: []string{"agent-5d8f", "pod/p", "2", "5m"},
		},
		{
			// No controller owner: "<none>".
			name: "not controlled",
			obj:  owned(metav1.OwnerReference{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "agent"}),
			want: []string{"agent-5d8f", "<none>", "2", "5m"},
		},
	})
	table, _ := For(schema.GroupResource{Group: "apps", Resource: "controllerrevisions"})
	bad := owned(metav1.OwnerReference{APIVersion: "a/b/c", Kind: "X", Name: "x", Controller: ptr(true)})
	if got, err := table.Row(bad, now); err == nil {
		t.Errorf("Row(owner apiVersion a/b/c) = %q, nil, want an error", got)
	}
}
