package columns

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Container states for the pod cases.
var (
	running     = corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}
	completed   = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: "Completed"}}
	failedError = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: "Error", ExitCode: 1}}
)

func waiting(reason string) corev1.ContainerState {
	return corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason}}
}

// lastTerminated is a LastTerminationState that finished d before now.
func lastTerminated(d time.Duration) corev1.ContainerState {
	return corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, FinishedAt: ago(d)}}
}

// pod builds a pod with containers c0..c(n-1), the given phase and statuses.
func pod(containers int, phase corev1.PodPhase, statuses ...corev1.ContainerStatus) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: objMeta("web")}
	for i := 0; i < containers; i++ {
		p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "c" + string(rune('0'+i))})
	}
	p.Status.Phase = phase
	p.Status.ContainerStatuses = statuses
	return p
}

// with applies f to p and returns p.
func with(p *corev1.Pod, f func(*corev1.Pod)) *corev1.Pod { f(p); return p }

// row is a pod row created 5m ago on no node, with no IP.
func podRowWant(ready, status, restarts string) []string {
	return []string{"web", ready, status, restarts, "5m", "<none>", "<none>", "<none>", "<none>"}
}

func TestPodRow(t *testing.T) {
	sidecar := corev1.ContainerRestartPolicyAlways
	initialized := corev1.PodCondition{Type: corev1.PodInitialized, Status: corev1.ConditionTrue}
	readyCond := corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionTrue}
	withInit := func(n int, restartable bool, statuses ...corev1.ContainerStatus) func(*corev1.Pod) {
		return func(p *corev1.Pod) {
			for i := 0; i < n; i++ {
				c := corev1.Container{Name: "init" + string(rune('0'+i))}
				if restartable {
					c.RestartPolicy = &sidecar
				}
				p.Spec.InitContainers = append(p.Spec.InitContainers, c)
			}
			p.Status.InitContainerStatuses = statuses
		}
	}

	runRows(t, schema.GroupResource{Resource: "pods"}, []rowCase{
		{
			// READY counts containers Ready and Running; STATUS is the phase; wide: IP is
			// status.podIPs[0], NODE spec.nodeName.
			name: "running",
			obj: with(pod(2, corev1.PodRunning,
				corev1.ContainerStatus{Name: "c0", Ready: true, State: running},
				corev1.ContainerStatus{Name: "c1", Ready: true, State: running}), func(p *corev1.Pod) {
				p.Spec.NodeName = "node-1"
				p.Status.PodIPs = []corev1.PodIP{{IP: "10.0.0.7"}, {IP: "fd00::7"}}
			}),
			want: []string{"web", "2/2", "Running", "0", "5m", "10.0.0.7", "node-1", "<none>", "<none>"},
		},
		{
			// No statuses: STATUS is the phase; wide cells "<none>".
			name: "pending",
			obj:  pod(1, corev1.PodPending),
			want: podRowWant("0/1", "Pending", "0"),
		},
		{
			// Init loop, default case: an init container neither done nor failed nor waiting with
			// a reason other than PodInitializing gives Init:i/n.
			name: "Init:0/1",
			obj: with(pod(1, corev1.PodPending), withInit(1, false,
				corev1.ContainerStatus{Name: "init0", State: waiting("PodInitializing")})),
			want: podRowWant("0/1", "Init:0/1", "0"),
		},
		{
			// Init loop: an init container that exited 0 is skipped; the next one counts as i.
			name: "Init:1/2",
			obj: with(pod(1, corev1.PodPending), withInit(2, false,
				corev1.ContainerStatus{Name: "init0", State: completed},
				corev1.ContainerStatus{Name: "init1", State: running})),
			want: podRowWant("0/1", "Init:1/2", "0"),
		},
		{
			// Init loop: waiting with a reason gives Init:<reason>; while initializing, RESTARTS
			// counts init containers, with the last termination's age.
			name: "Init:CrashLoopBackOff",
			obj: with(pod(1, corev1.PodPending), withInit(1, false,
				corev1.ContainerStatus{Name: "init0", State: waiting("CrashLoopBackOff"), RestartCount: 3, LastTerminationState: lastTerminated(2 * time.Minute)})),
			want: podRowWant("0/1", "Init:CrashLoopBackOff", "3 (2m ago)"),
		},
		{
			// Init loop: terminated with a reason and exit code != 0 gives Init:<reason>.
			name: "Init:Error",
			obj: with(pod(1, corev1.PodPending), withInit(1, false,
				corev1.ContainerStatus{Name: "init0", State: failedError})),
			want: podRowWant("0/1", "Init:Error", "0"),
		},
		{
			// Init loop: terminated with no reason gives Init:Signal:<n>, else Init:ExitCode:<n>.
			name: "Init:Signal:9",
			obj: with(pod(1, corev1.PodPending), withInit(1, false,
				corev1.ContainerStatus{Name: "init0", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Signal: 9}}})),
			want: podRowWant("0/1", "Init:Signal:9", "0"),
		},
		{
			name: "Init:ExitCode:2",
			obj: with(pod(1, corev1.PodPending), withInit(1, false,
				corev1.ContainerStatus{Name: "init0", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 2}}})),
			want: podRowWant("0/1", "Init:ExitCode:2", "0"),
		},
		{
			// Container loop: a waiting reason wins; RESTARTS "N (age ago)" from the latest
			// lastState.terminated.finishedAt.
			name: "CrashLoopBackOff",
			obj: pod(2, corev1.PodRunning,
				corev1.ContainerStatus{Name: "c0", State: waiting("CrashLoopBackOff"), RestartCount: 5, LastTerminationState: lastTerminated(5 * time.Minute)},
				corev1.ContainerStatus{Name: "c1", Ready: true, State: running, RestartCount: 1, LastTerminationState: lastTerminated(90 * time.Minute)}),
			want: podRowWant("1/2", "CrashLoopBackOff", "6 (5m ago)"),
		},
		{
			// RESTARTS without a last termination time is the bare count.
			name: "restarts without lastState",
			obj: pod(1, corev1.PodRunning,
				corev1.ContainerStatus{Name: "c0", Ready: true, State: running, RestartCount: 4}),
			want: podRowWant("1/1", "Running", "4"),
		},
		{
			// Container loop: terminated with a reason gives the reason: Completed.
			name: "Completed",
			obj: pod(1, corev1.PodSucceeded,
				corev1.ContainerStatus{Name: "c0", State: completed}),
			want: podRowWant("0/1", "Completed", "0"),
		},
		{
			// "Completed" turns back to Running when a container runs and the pod is Ready.
			name: "Completed sidecar-less but still running, Ready",
			obj: with(pod(2, corev1.PodRunning,
				corev1.ContainerStatus{Name: "c0", Ready: true, State: running},
				corev1.ContainerStatus{Name: "c1", State: completed}), func(p *corev1.Pod) {
				p.Status.Conditions = []corev1.PodCondition{readyCond}
			}),
			want: podRowWant("1/2", "Running", "0"),
		},
		{
			// "Completed" turns to NotReady when a container runs but the pod is not Ready.
			name: "Completed still running, not Ready",
			obj: pod(2, corev1.PodRunning,
				corev1.ContainerStatus{Name: "c0", Ready: true, State: running},
				corev1.ContainerStatus{Name: "c1", State: completed}),
			want: podRowWant("1/2", "NotReady", "0"),
		},
		{
			// "Completed" turns to the error reason of a container that exited non-zero.
			name: "Completed with a failed container",
			obj: pod(2, corev1.PodFailed,
				corev1.ContainerStatus{Name: "c0", State: completed},
				corev1.ContainerStatus{Name: "c1", State: failedError}),
			want: podRowWant("0/2", "Error", "0"),
		},
		{
			// Container loop: terminated with no reason gives Signal:<n>, else ExitCode:<n>.
			name: "ExitCode:137",
			obj: pod(1, corev1.PodFailed,
				corev1.ContainerStatus{Name: "c0", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137}}}),
			want: podRowWant("0/1", "ExitCode:137", "0"),
		},
		{
			name: "Signal:15",
			obj: pod(1, corev1.PodFailed,
				corev1.ContainerStatus{Name: "c0", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 143, Signal: 15}}}),
			want: podRowWant("0/1", "Signal:15", "0"),
		},
		{
			// status.reason replaces the phase: Evicted.
			name: "Evicted",
			obj: with(pod(1, corev1.PodFailed), func(p *corev1.Pod) {
				p.Status.Reason = "Evicted"
			}),
			want: podRowWant("0/1", "Evicted", "0"),
		},
		{
			// A deletionTimestamp on a pod whose phase is not terminal gives Terminating.
			name: "Terminating",
			obj: with(pod(1, corev1.PodRunning,
				corev1.ContainerStatus{Name: "c0", Ready: true, State: running}), func(p *corev1.Pod) {
				p.DeletionTimestamp = agoPtr(time.Second)
			}),
			want: podRowWant("1/1", "Terminating", "0"),
		},
		{
			// A deletionTimestamp on a Succeeded pod keeps its status.
			name: "deleted after success",
			obj: with(pod(1, corev1.PodSucceeded,
				corev1.ContainerStatus{Name: "c0", State: completed}), func(p *corev1.Pod) {
				p.DeletionTimestamp = agoPtr(time.Second)
			}),
			want: podRowWant("0/1", "Completed", "0"),
		},
		{
			// status.reason NodeLost with a deletionTimestamp gives Unknown.
			name: "NodeLost, deleted",
			obj: with(pod(1, corev1.PodRunning,
				corev1.ContainerStatus{Name: "c0", Ready: true, State: running}), func(p *corev1.Pod) {
				p.Status.Reason = "NodeLost"
				p.DeletionTimestamp = agoPtr(time.Second)
			}),
			want: podRowWant("1/1", "Unknown", "0"),
		},
		{
			// status.reason NodeLost without a deletionTimestamp is printed as is.
			name: "NodeLost",
			obj: with(pod(1, corev1.PodRunning,
				corev1.ContainerStatus{Name: "c0", Ready: true, State: running}), func(p *corev1.Pod) {
				p.Status.Reason = "NodeLost"
			}),
			want: podRowWant("1/1", "NodeLost", "0"),
		},
		{
			// A PodScheduled condition with reason SchedulingGated gives SchedulingGated.
			name: "SchedulingGated",
			obj: with(pod(1, corev1.PodPending), func(p *corev1.Pod) {
				p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonSchedulingGated}}
			}),
			want: podRowWant("0/1", "SchedulingGated", "0"),
		},
		{
			// Restartable init containers (sidecars) count in READY's total, and as ready when
			// started and ready; once initialized, RESTARTS counts sidecars and containers, and
			// the age is of the latest termination among them.
			name: "sidecar ready",
			obj: with(pod(1, corev1.PodRunning,
				corev1.ContainerStatus{Name: "c0", Ready: true, State: running, RestartCount: 1, LastTerminationState: lastTerminated(3 * time.Minute)}),
				func(p *corev1.Pod) {
					withInit(1, true, corev1.ContainerStatus{Name: "init0", Ready: true, Started: ptr(true), State: running, RestartCount: 2, LastTerminationState: lastTerminated(10 * time.Minute)})(p)
					p.Status.Conditions = []corev1.PodCondition{initialized}
				}),
			want: podRowWant("2/2", "Running", "3 (3m ago)"),
		},
		{
			// A started sidecar that is not ready counts in the total only.
			name: "sidecar not ready",
			obj: with(pod(1, corev1.PodRunning,
				corev1.ContainerStatus{Name: "c0", Ready: true, State: running}),
				withInit(1, true, corev1.ContainerStatus{Name: "init0", Started: ptr(true), State: running})),
			want: podRowWant("1/2", "Running", "0"),
		},
		{
			// Once initialized, restarts of regular init containers no longer count.
			name: "init restarts dropped after init",
			obj: with(pod(1, corev1.PodRunning,
				corev1.ContainerStatus{Name: "c0", Ready: true, State: running}),
				withInit(1, false, corev1.ContainerStatus{Name: "init0", State: completed, RestartCount: 2, LastTerminationState: lastTerminated(4 * time.Minute)})),
			want: podRowWant("1/1", "Running", "0"),
		},
		{
			// Wide READINESS GATES: True conditions among the gates / gates; NOMINATED NODE.
			name: "readiness gates",
			obj: with(pod(1, corev1.PodPending), func(p *corev1.Pod) {
				p.Spec.ReadinessGates = []corev1.PodReadinessGate{{ConditionType: "a"}, {ConditionType: "b"}}
				p.Status.Conditions = []corev1.PodCondition{{Type: "a", Status: corev1.ConditionTrue}, {Type: "b", Status: corev1.ConditionFalse}}
				p.Status.NominatedNodeName = "node-2"
			}),
			want: []string{"web", "0/1", "Pending", "0", "5m", "<none>", "<none>", "node-2", "1/2"},
		},
	})
}

func TestPodTemplateRow(t *testing.T) {
	runRows(t, schema.GroupResource{Resource: "podtemplates"}, []rowCase{
		{
			// CONTAINERS and IMAGES joined; POD LABELS the template's labels; no AGE.
			name: "template",
			obj: &corev1.PodTemplate{ObjectMeta: objMeta("tpl"), Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"tier": "batch", "app": "tpl"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "a", Image: "a:v1"}, {Name: "b", Image: "b:v1"}}}}},
			want: []string{"tpl", "a,b", "a:v1,b:v1", "app=tpl,tier=batch"},
		},
		{
			name: "no labels",
			obj:  &corev1.PodTemplate{ObjectMeta: objMeta("tpl")},
			want: []string{"tpl", "", "", "<none>"},
		},
	})
}
