// Package watch tests `kubectl informer watch` end to end: the real kubectl
// runs the built plugin against a real kube-apiserver, and the tests change
// objects through client-go and read what the plugin prints.
package watch

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

func TestMain(m *testing.M) { framework.Main(m) }

// eventTimeout is how long a test waits for the next line of a watch: long
// enough for a loaded machine, short enough to fail in reasonable time.
const eventTimeout = 20 * time.Second

// watchLimit bounds every watch process a test starts.
const watchLimit = 3 * time.Minute

// newPod returns a pod that the apiserver accepts without a scheduler or
// kubelet: bound to a node that does not exist, without a token volume.
func newPod(namespace, name string, labels map[string]string) *corev1.Pod {
	noToken := false
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: labels},
		Spec: corev1.PodSpec{
			AutomountServiceAccountToken: &noToken,
			NodeName:                     "node-1",
			Containers:                   []corev1.Container{{Name: "main", Image: "registry.example.com/web:v1"}},
		},
	}
}

// createPod creates newPod(namespace, name, labels) as field manager
// e2e-creator.
func createPod(t *testing.T, cs kubernetes.Interface, namespace, name string, labels map[string]string) *corev1.Pod {
	t.Helper()
	pod, err := cs.CoreV1().Pods(namespace).Create(t.Context(), newPod(namespace, name, labels), metav1.CreateOptions{FieldManager: "e2e-creator"})
	if err != nil {
		t.Fatalf("creating pod %s/%s: %v", namespace, name, err)
	}
	return pod
}

// patchPod applies a merge patch to a pod (or its subresource) as manager.
func patchPod(t *testing.T, cs kubernetes.Interface, namespace, name, manager, patch string, subresource ...string) {
	t.Helper()
	_, err := cs.CoreV1().Pods(namespace).Patch(t.Context(), name, types.MergePatchType, []byte(patch), metav1.PatchOptions{FieldManager: manager}, subresource...)
	if err != nil {
		t.Fatalf("patching pod %s/%s with %s: %v", namespace, name, patch, err)
	}
}

// labelPod sets the label key=value on a pod as field manager e2e-labeler.
func labelPod(t *testing.T, cs kubernetes.Interface, namespace, name, key, value string) {
	t.Helper()
	patchPod(t, cs, namespace, name, "e2e-labeler", fmt.Sprintf(`{"metadata":{"labels":{%q:%q}}}`, key, value))
}

// deletePod deletes a pod at once. A pod bound to a node is deleted
// gracefully even with grace period 0: the apiserver first sets
// metadata.deletionTimestamp (an update watchers see as MODIFIED) and then
// removes it (DELETED).
func deletePod(t *testing.T, cs kubernetes.Interface, namespace, name string) {
	t.Helper()
	zero := int64(0)
	if err := cs.CoreV1().Pods(namespace).Delete(t.Context(), name, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
		t.Fatalf("deleting pod %s/%s: %v", namespace, name, err)
	}
}

// startWatch starts `kubectl informer watch ARGS` as the admin user. Unless
// ARGS has --initial (which prints the cache instead of the synced line), it
// waits until the plugin says on stderr that its caches have synced, so
// that every change made afterwards is one the watch must report.
func startWatch(t *testing.T, args ...string) *framework.Process {
	t.Helper()
	return startWatchCmd(t, framework.Cmd{Args: args})
}

// startWatchCmd is startWatch with c's kubeconfig and environment; c.Args
// are the arguments after `kubectl informer watch`.
func startWatchCmd(t *testing.T, c framework.Cmd) *framework.Process {
	t.Helper()
	args := c.Args
	c.Args = append([]string{"informer", "watch"}, args...)
	if c.Timeout == 0 {
		c.Timeout = watchLimit
	}
	p := framework.Start(t, c)
	if !slices.Contains(args, "--initial") {
		waitForStderr(t, p, "; watching for changes", 30*time.Second)
	}
	return p
}

// waitForStderr polls p's stderr until it contains want, failing the test
// if p exits first or timeout passes.
func waitForStderr(t *testing.T, p *framework.Process, want string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !strings.Contains(p.Stderr(), want) {
		select {
		case <-p.Done():
			t.Fatalf("watch exited before printing %q: %s", want, p.Wait())
		case <-time.After(25 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("watch did not print %q on stderr within %s; stderr:\n%s", want, timeout, p.Stderr())
		}
	}
}

// waitForExit waits up to timeout for p to exit and returns how it ended.
func waitForExit(t *testing.T, p *framework.Process, timeout time.Duration) framework.Result {
	t.Helper()
	select {
	case <-p.Done():
		return p.Wait()
	case <-time.After(timeout):
		t.Fatalf("watch still running %s after it should have ended; stdout:\n%s\nstderr:\n%s", timeout, p.Stdout(), p.Stderr())
		return framework.Result{}
	}
}

// expectExit0AndEOF checks that p, started with --max-events, printed
// nothing after the events already read and exited 0.
func expectExit0AndEOF(t *testing.T, p *framework.Process) {
	t.Helper()
	if line, err := p.NextLine(eventTimeout); err == nil {
		t.Errorf("watch printed more than --max-events allows: %s", line)
	}
	if res := waitForExit(t, p, eventTimeout); res.ExitCode != 0 {
		t.Errorf("watch with --max-events: %s\nwant exit code 0", res)
	}
}

// watchEvent is one line of `watch -o json`.
type watchEvent = framework.WatchEvent

// nextEvent reads and decodes the next line of a `watch -o json` process.
func nextEvent(t *testing.T, p *framework.Process) watchEvent {
	t.Helper()
	return framework.NextEvent(t, p, eventTimeout)
}

// expectEvent reads the next event and checks its type and object name.
func expectEvent(t *testing.T, p *framework.Process, typ, name string) watchEvent {
	t.Helper()
	return framework.ExpectEvent(t, p, eventTimeout, typ, name)
}

// patchPaths returns the "op path" of each operation of an event's patch.
func patchPaths(t *testing.T, ev watchEvent) []string {
	t.Helper()
	var paths []string
	for _, op := range framework.PatchOps(t, ev) {
		paths = append(paths, fmt.Sprintf("%v %v", op["op"], op["path"]))
	}
	return paths
}
