package warmcache

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// runningStatus is the status of a running pod that started at start, with
// pod IP 10.0.0.N: pods given the same start share every condition and
// container status (the cache keeps one copy of them).
func runningStatus(start time.Time, n int, containerID string) corev1.PodStatus {
	at := metav1.NewTime(start)
	cond := func(t corev1.PodConditionType) corev1.PodCondition {
		return corev1.PodCondition{Type: t, Status: corev1.ConditionTrue, LastTransitionTime: at}
	}
	ip := "10.0.0." + strconv.Itoa(n)
	return corev1.PodStatus{
		Phase: corev1.PodRunning,
		Conditions: []corev1.PodCondition{cond(corev1.PodInitialized), cond(corev1.PodReady), cond(corev1.ContainersReady),
			cond(corev1.PodScheduled)},
		ContainerStatuses: []corev1.ContainerStatus{{Name: "c", Image: "registry.k8s.io/pause:3.10", Ready: true,
			Started: new(true), ContainerID: containerID, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: at}}}},
		HostIP: "172.18.0.2", HostIPs: []corev1.HostIP{{IP: "172.18.0.2"}},
		PodIP: ip, PodIPs: []corev1.PodIP{{IP: ip}},
		StartTime: &at,
	}
}

// statusPods creates namespace ns with pods p-0…p-5, each mounting a
// volume of its own name, running: p-0…p-3 started in one second, with
// equal conditions and container statuses; p-4 and p-5 later, each with
// a container ID of its own.
func statusPods(t *testing.T, ns string) {
	t.Helper()
	cs := framework.Current(t).AdminClient()
	framework.CreateNamespace(t, cs, ns)
	start := time.Now().Add(-time.Hour).Truncate(time.Second)
	for i := range 6 {
		name := "p-" + strconv.Itoa(i)
		vol := "data-" + name
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{"app": "s"}},
			Spec: corev1.PodSpec{
				NodeName: "node-a",
				Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10",
					VolumeMounts: []corev1.VolumeMount{{Name: vol, MountPath: "/data"}}}},
				Volumes: []corev1.Volume{{Name: vol, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
			},
		}
		created, err := cs.CoreV1().Pods(ns).Create(t.Context(), pod, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("creating pod %s/%s: %v", ns, name, err)
		}
		at, id := start, ""
		if i >= 4 {
			at, id = start.Add(time.Duration(i)*time.Minute), "containerd://"+strings.Repeat(strconv.Itoa(i), 64)
		}
		created.Status = runningStatus(at, i+1, id)
		if _, err := cs.CoreV1().Pods(ns).UpdateStatus(t.Context(), created, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("writing the status of pod %s/%s: %v", ns, name, err)
		}
	}
}

// lastAgeColumn matches an AGE column that ends its line.
var lastAgeColumn = regexp.MustCompile(`(?m) +(AGE|[0-9]+[smhd])$`)

// withoutLastAge returns table with an AGE column that ends its lines
// blanked (withoutAge blanks one followed by other columns).
func withoutLastAge(table string) string { return lastAgeColumn.ReplaceAllString(table, " AGE") }

// TestPodStatusesSameAsDirect runs queries and watches of running pods,
// some of whose statuses are equal (and so shared in the cache), through
// the cache and with --cache off, and wants the same answers: tables
// (AGE blanked), every object output, CEL filters and groups over status
// fields, and the events and diffs of a watch when one of the pods that
// shared a status changes it.
func TestPodStatusesSameAsDirect(t *testing.T) {
	framework.SkipIfShort(t)
	e := newEnv(t)
	ns := uniqueNamespace("warm-status")
	statusPods(t, ns)
	e.start("")
	queries := [][]string{
		{"query", "pods", "-n", ns},
		{"query", "pods", "-n", ns, "-o", "wide"},
		{"query", "pods", "-n", ns, "-o", "json"},
		{"query", "pods", "-n", ns, "-o", "yaml"},
		{"query", "pods", "-n", ns, "-o", "jsonpath={range .items[*]}{.metadata.name} {.status.conditions} {.status.containerStatuses} {.status.startTime} {.status.podIPs} {.spec.containers[0].volumeMounts}{\"\\n\"}{end}"},
		{"query", "pods", "-n", ns, "-o", "custom-columns=NAME:.metadata.name,READY:.status.conditions[1].status,SINCE:.status.conditions[1].lastTransitionTime,ID:.status.containerStatuses[0].containerID,IP:.status.podIPs[0].ip,MOUNT:.spec.containers[0].volumeMounts[0].name"},
		{"query", "pods", "-n", ns, "--filter", "object.status.containerStatuses[0].containerID == '' && object.status.conditions.exists(c, c.type == 'Ready' && c.status == 'True')", "-o", "name"},
		{"query", "pods", "-n", ns, "--group-by", "phase"},
		{"query", "pods", "-n", ns, "--index", "node=node-a", "-o", "name"},
	}
	for _, q := range queries {
		warm := e.run("", q...)
		direct := e.run("", append(q, "--cache", "off")...)
		if len(q) == 4 || q[len(q)-1] == "wide" {
			warm.Stdout, direct.Stdout = withoutLastAge(withoutAge(warm.Stdout)), withoutLastAge(withoutAge(direct.Stdout))
		}
		if warm.ExitCode != 0 || warm.Stdout != direct.Stdout || warm.Stderr != direct.Stderr || warm.ExitCode != direct.ExitCode {
			t.Errorf("%s\nthrough the cache: %s\ndirect: %s", strings.Join(q, " "), warm, direct)
		}
	}
	if c := e.onlyCache(); len(c.Status.Caches) == 0 {
		t.Fatalf("the queries left no informer in the cache: %+v", c)
	}

	// p-1 shared its status with p-0, p-2 and p-3: it changes its own.
	warm := e.startWatch("pods", "-n", ns)
	direct := e.startWatch("pods", "-n", ns, "--cache", "off")
	watched := false
	for _, tc := range e.onlyCache().Status.Caches {
		watched = watched || (tc.Purpose == "watch" && tc.Type == "pods" && tc.Users == 1)
	}
	if !watched {
		t.Fatalf("the watch did not go through the cache: %+v", e.onlyCache().Status.Caches)
	}
	cs := framework.Current(t).AdminClient()
	pod, err := cs.CoreV1().Pods(ns).Get(t.Context(), "p-1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pod.Status.Conditions[1].Status = corev1.ConditionFalse
	pod.Status.Conditions[1].Reason = "ContainersNotReady"
	pod.Status.Conditions[1].LastTransitionTime = metav1.NewTime(pod.Status.Conditions[1].LastTransitionTime.Add(time.Minute))
	pod.Status.ContainerStatuses[0].Ready = false
	if _, err := cs.CoreV1().Pods(ns).UpdateStatus(t.Context(), pod, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("writing the status of pod %s/p-1: %v", ns, err)
	}
	for _, p := range []*framework.Process{warm, direct} {
		if _, err := p.WaitForLine(30*time.Second, func(l string) bool { return strings.HasPrefix(l, "MODIFIED pod/p-1 -n "+ns) }); err != nil {
			t.Fatalf("no MODIFIED line for pod p-1: %v\nstdout:\n%s\nstderr:\n%s", err, p.Stdout(), p.Stderr())
		}
		if _, err := p.WaitForLine(10*time.Second, func(l string) bool { return strings.Contains(l, "containersReady") || strings.Contains(l, "ready") }); err != nil {
			t.Fatalf("no diff line for the container's readiness: %v\nstdout:\n%s", err, p.Stdout())
		}
	}
	// Both have printed the event; let the rest of its diff through.
	time.Sleep(2 * time.Second)
	for _, p := range []*framework.Process{warm, direct} {
		if err := p.Interrupt(); err != nil {
			t.Fatal(err)
		}
		p.Wait()
	}
	if warm.Stdout() != direct.Stdout() {
		t.Errorf("the watch through the cache printed\n%s\nthe direct watch\n%s", warm.Stdout(), direct.Stdout())
	}
}
