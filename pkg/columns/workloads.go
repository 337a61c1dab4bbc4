package columns

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/duration"
)

var deploymentTable = Table{
	Columns: columnsOf([]string{"Name", "Ready", "Up-to-date", "Available", "Age", "Containers", "Images", "Selector"},
		"Containers", "Images", "Selector"),
	Row: typedRow(deploymentRow),
}

// deploymentRow is printers.go's printDeployment.
func deploymentRow(d *appsv1.Deployment, now time.Time) []string {
	// printDeployment formats its selector with LabelSelectorAsSelector, not FormatLabelSelector:
	// an empty selector is an empty cell, not "<none>".
	selector := "<invalid>"
	if s, err := metav1.LabelSelectorAsSelector(d.Spec.Selector); err == nil {
		selector = s.String()
	}
	names, images := containerCells(d.Spec.Template.Spec.Containers)
	return []string{
		d.Name,
		fmt.Sprintf("%d/%d", d.Status.ReadyReplicas, int32Value(d.Spec.Replicas)),
		itoa(d.Status.UpdatedReplicas),
		itoa(d.Status.AvailableReplicas),
		age(d.CreationTimestamp, now),
		names, images, selector,
	}
}

var replicaSetTable = Table{
	Columns: columnsOf([]string{"Name", "Desired", "Current", "Ready", "Age", "Containers", "Images", "Selector"},
		"Containers", "Images", "Selector"),
	Row: typedRow(replicaSetRow),
}

// replicaSetRow is printers.go's printReplicaSet.
func replicaSetRow(rs *appsv1.ReplicaSet, now time.Time) []string {
	names, images := containerCells(rs.Spec.Template.Spec.Containers)
	return []string{
		rs.Name,
		itoa(int32Value(rs.Spec.Replicas)),
		itoa(rs.Status.Replicas),
		itoa(rs.Status.ReadyReplicas),
		age(rs.CreationTimestamp, now),
		names, images, metav1.FormatLabelSelector(rs.Spec.Selector),
	}
}

var statefulSetTable = Table{
	Columns: columnsOf([]string{"Name", "Ready", "Age", "Containers", "Images"}, "Containers", "Images"),
	Row:     typedRow(statefulSetRow),
}

// statefulSetRow is printers.go's printStatefulSet.
func statefulSetRow(s *appsv1.StatefulSet, now time.Time) []string {
	names, images := containerCells(s.Spec.Template.Spec.Containers)
	return []string{
		s.Name,
		fmt.Sprintf("%d/%d", s.Status.ReadyReplicas, int32Value(s.Spec.Replicas)),
		age(s.CreationTimestamp, now),
		names, images,
	}
}

var daemonSetTable = Table{
	Columns: columnsOf([]string{"Name", "Desired", "Current", "Ready", "Up-to-date", "Available", "Node Selector", "Age",
		"Containers", "Images", "Selector"},
		"Containers", "Images", "Selector"),
	Row: typedRow(daemonSetRow),
}

// daemonSetRow is printers.go's printDaemonSet.
func daemonSetRow(ds *appsv1.DaemonSet, now time.Time) []string {
	names, images := containerCells(ds.Spec.Template.Spec.Containers)
	return []string{
		ds.Name,
		itoa(ds.Status.DesiredNumberScheduled),
		itoa(ds.Status.CurrentNumberScheduled),
		itoa(ds.Status.NumberReady),
		itoa(ds.Status.UpdatedNumberScheduled),
		itoa(ds.Status.NumberAvailable),
		labels.FormatLabels(ds.Spec.Template.Spec.NodeSelector),
		age(ds.CreationTimestamp, now),
		names, images, metav1.FormatLabelSelector(ds.Spec.Selector),
	}
}

var jobTable = Table{
	Columns: columnsOf([]string{"Name", "Status", "Completions", "Duration", "Age", "Containers", "Images", "Selector"},
		"Containers", "Images", "Selector"),
	Row: typedRow(jobRow),
}

// jobRow is printers.go's printJob.
func jobRow(job *batchv1.Job, now time.Time) []string {
	var completions string
	switch parallelism := int32Value(job.Spec.Parallelism); {
	case job.Spec.Completions != nil:
		completions = fmt.Sprintf("%d/%d", job.Status.Succeeded, *job.Spec.Completions)
	case parallelism > 1:
		completions = fmt.Sprintf("%d/1 of %d", job.Status.Succeeded, parallelism)
	default:
		completions = fmt.Sprintf("%d/1", job.Status.Succeeded)
	}

	var jobDuration string
	switch {
	case job.Status.StartTime == nil:
	case job.Status.CompletionTime == nil:
		jobDuration = duration.HumanDuration(now.Sub(job.Status.StartTime.Time))
	default:
		jobDuration = duration.HumanDuration(job.Status.CompletionTime.Sub(job.Status.StartTime.Time))
	}

	var status string
	switch conds := job.Status.Conditions; {
	case jobConditionTrue(conds, batchv1.JobComplete):
		status = "Complete"
	case jobConditionTrue(conds, batchv1.JobFailed):
		status = "Failed"
	case job.DeletionTimestamp != nil:
		status = "Terminating"
	case jobConditionTrue(conds, batchv1.JobSuspended):
		status = "Suspended"
	case jobConditionTrue(conds, batchv1.JobFailureTarget):
		status = "FailureTarget"
	case jobConditionTrue(conds, batchv1.JobSuccessCriteriaMet):
		status = "SuccessCriteriaMet"
	default:
		status = "Running"
	}

	names, images := containerCells(job.Spec.Template.Spec.Containers)
	return []string{
		job.Name, status, completions, jobDuration, age(job.CreationTimestamp, now),
		names, images, metav1.FormatLabelSelector(job.Spec.Selector),
	}
}

// jobConditionTrue reports whether the first condition of type t is True (printers.go's
// hasJobCondition).
func jobConditionTrue(conditions []batchv1.JobCondition, t batchv1.JobConditionType) bool {
	for _, c := range conditions {
		if c.Type == t {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

var cronJobTable = Table{
	Columns: columnsOf([]string{"Name", "Schedule", "Timezone", "Suspend", "Active", "Last Schedule", "Age",
		"Containers", "Images", "Selector"},
		"Containers", "Images", "Selector"),
	Row: typedRow(cronJobRow),
}

// cronJobRow is printers.go's printCronJob.
func cronJobRow(cj *batchv1.CronJob, now time.Time) []string {
	lastSchedule := "<none>"
	if cj.Status.LastScheduleTime != nil {
		lastSchedule = age(*cj.Status.LastScheduleTime, now)
	}
	timeZone := "<none>"
	if cj.Spec.TimeZone != nil {
		timeZone = *cj.Spec.TimeZone
	}
	suspend := "<unset>"
	if cj.Spec.Suspend != nil {
		suspend = boolCell(*cj.Spec.Suspend)
	}
	template := cj.Spec.JobTemplate.Spec
	names, images := containerCells(template.Template.Spec.Containers)
	return []string{
		cj.Name, cj.Spec.Schedule, timeZone, suspend, strconv.Itoa(len(cj.Status.Active)), lastSchedule,
		age(cj.CreationTimestamp, now),
		names, images, metav1.FormatLabelSelector(template.Selector),
	}
}

// containerCells is printers.go's layoutContainerCells: the containers' names and images, each
// joined with commas.
func containerCells(containers []corev1.Container) (names, images string) {
	n := make([]string, len(containers))
	im := make([]string, len(containers))
	for i, c := range containers {
		n[i], im[i] = c.Name, c.Image
	}
	return strings.Join(n, ","), strings.Join(im, ",")
}

// boolCell is printers.go's printBool: "True" or "False".
func boolCell(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

// itoa formats an int32 cell in decimal.
func itoa(i int32) string { return strconv.FormatInt(int64(i), 10) }

var replicationControllerTable = Table{
	Columns: columnsOf([]string{"Name", "Desired", "Current", "Ready", "Age", "Containers", "Images", "Selector"},
		"Containers", "Images", "Selector"),
	Row: typedRow(replicationControllerRow),
}

// replicationControllerRow is printers.go's printReplicationController: SELECTOR is the
// equality-based selector as FormatLabels writes it.
func replicationControllerRow(rc *corev1.ReplicationController, now time.Time) []string {
	var containers []corev1.Container
	if rc.Spec.Template != nil {
		containers = rc.Spec.Template.Spec.Containers
	}
	names, images := containerCells(containers)
	return []string{
		rc.Name, itoa(int32Value(rc.Spec.Replicas)), itoa(rc.Status.Replicas), itoa(rc.Status.ReadyReplicas),
		age(rc.CreationTimestamp, now), names, images, labels.FormatLabels(rc.Spec.Selector),
	}
}

var controllerRevisionTable = Table{
	Columns: columnsOf([]string{"Name", "Controller", "Revision", "Age"}),
	Row:     typedRowErr(controllerRevisionRow),
}

// controllerRevisionRow is printers.go's printControllerRevision: CONTROLLER is the controller
// owner as kind.group/name in lower case (the name as it is), or "<none>". An owner whose
// apiVersion does not parse is an error, as in printers.go.
func controllerRevisionRow(cr *appsv1.ControllerRevision, now time.Time) ([]string, error) {
	controller := "<none>"
	if ref := metav1.GetControllerOf(cr); ref != nil {
		gv, err := schema.ParseGroupVersion(ref.APIVersion)
		if err != nil {
			return nil, fmt.Errorf("controller revision %q: owner apiVersion %q: %w", cr.Name, ref.APIVersion, err)
		}
		controller = ref.Name
		if gk := gv.WithKind(ref.Kind).GroupKind(); !gk.Empty() {
			controller = strings.ToLower(gk.String()) + "/" + ref.Name
		}
	}
	return []string{cr.Name, controller, strconv.FormatInt(cr.Revision, 10), age(cr.CreationTimestamp, now)}, nil
}
