// Package watch tests `kubectl informer watch` end to end: the real kubectl
// runs the built plugin against a real kube-apiserver, and the tests change
// objects through client-go and read what the plugin prints.
package watch

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
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
type watchEvent struct {
	Type              string                 `json:"type"`
	Object            map[string]interface{} `json:"object"`
	Patch             json.RawMessage        `json:"patch"`
	Managers          []string               `json:"managers"`
	FinalStateUnknown bool                   `json:"finalStateUnknown"`
	Coalesced         int                    `json:"coalesced"`
	Note              string                 `json:"note"`

	line string
}

// name returns the event object's metadata.name.
func (e watchEvent) name() string { return nestedString(e.Object, "metadata", "name") }

// kind returns the event object's kind.
func (e watchEvent) kind() string { return nestedString(e.Object, "kind") }

// String is the event's type and object, for failure messages.
func (e watchEvent) String() string {
	s := e.Type + " " + e.kind() + "/" + e.name()
	if len(e.Patch) > 0 {
		s += " patch " + string(e.Patch)
	}
	if e.Note != "" {
		s += " (" + e.Note + ")"
	}
	return s
}

func nestedString(obj map[string]interface{}, path ...string) string {
	var cur interface{} = obj
	for _, key := range path {
		m, ok := cur.(map[string]interface{})
		if !ok {
			return ""
		}
		cur = m[key]
	}
	s, _ := cur.(string)
	return s
}

// nextEvent reads and decodes the next line of a `watch -o json` process.
func nextEvent(t *testing.T, p *framework.Process) watchEvent {
	t.Helper()
	line, err := p.NextLine(eventTimeout)
	if err != nil {
		t.Fatalf("reading the next watch event: %v; stdout so far:\n%s", err, p.Stdout())
	}
	return decodeEvent(t, line)
}

func decodeEvent(t *testing.T, line string) watchEvent {
	t.Helper()
	var ev watchEvent
	if err := json.Unmarshal([]byte(line), &ev); err != nil {
		t.Fatalf("watch -o json printed a line that is not an event: %v\n%s", err, line)
	}
	ev.line = line
	return ev
}

// expectEvent reads the next event and checks its type and object name.
func expectEvent(t *testing.T, p *framework.Process, typ, name string) watchEvent {
	t.Helper()
	ev := nextEvent(t, p)
	if ev.Type != typ || ev.name() != name {
		t.Fatalf("next event = %s, want %s %s", ev, typ, name)
	}
	return ev
}

// patchOps decodes an event's JSON Patch.
func patchOps(t *testing.T, ev watchEvent) []map[string]interface{} {
	t.Helper()
	var ops []map[string]interface{}
	if err := json.Unmarshal(ev.Patch, &ops); err != nil {
		t.Fatalf("decoding the patch of %s: %v", ev, err)
	}
	return ops
}

// patchPaths returns the "op path" of each operation of an event's patch.
func patchPaths(t *testing.T, ev watchEvent) []string {
	t.Helper()
	var paths []string
	for _, op := range patchOps(t, ev) {
		paths = append(paths, fmt.Sprintf("%v %v", op["op"], op["path"]))
	}
	return paths
}

// checkPatch applies the patch of the MODIFIED event cur to the object of
// prev and checks that it yields cur's object, except for the fields the
// plugin leaves out of diffs by default.
func checkPatch(t *testing.T, prev, cur watchEvent) {
	t.Helper()
	if len(cur.Patch) == 0 {
		t.Errorf("%s has no patch", cur)
		return
	}
	patch, err := jsonpatch.DecodePatch(cur.Patch)
	if err != nil {
		t.Errorf("the patch of %s is not a JSON Patch: %v", cur, err)
		return
	}
	before, err := json.Marshal(prev.Object)
	if err != nil {
		t.Fatalf("encoding %s: %v", prev, err)
	}
	after, err := patch.Apply(before)
	if err != nil {
		t.Errorf("applying the patch of %s to the previous object: %v", cur, err)
		return
	}
	var got map[string]interface{}
	if err := json.Unmarshal(after, &got); err != nil {
		t.Fatalf("decoding the patched object: %v", err)
	}
	want, err := roundTrip(cur.Object)
	if err != nil {
		t.Fatalf("copying %s: %v", cur, err)
	}
	for _, obj := range []map[string]interface{}{got, want} {
		if md, ok := obj["metadata"].(map[string]interface{}); ok {
			delete(md, "resourceVersion")
			delete(md, "generation")
			delete(md, "managedFields")
		}
	}
	if !reflect.DeepEqual(got, want) {
		gotJSON, _ := json.Marshal(got)
		wantJSON, _ := json.Marshal(want)
		t.Errorf("previous object + patch of %s =\n%s\nwant the event's object\n%s", cur, gotJSON, wantJSON)
	}
}

// roundTrip returns a deep copy of obj through JSON.
func roundTrip(obj map[string]interface{}) (map[string]interface{}, error) {
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	var out map[string]interface{}
	return out, json.Unmarshal(b, &out)
}
