// Package timetravel tests the plugin's answers about the past: a rollout
// recorded with `kubectl informer record` on a cluster with
// kube-controller-manager, kube-scheduler and kwok nodes, then asked with
// `--from FILE --at TIME`, replayed with `watch --from FILE`, and told
// object by object with `history`, the answers coming from the file alone.
package timetravel

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

func TestMain(m *testing.M) { framework.Main(m, framework.WithNodes(3)) }

// rolloutTimeout bounds each step that waits for controllers: long enough
// for a loaded two-core machine.
const rolloutTimeout = 3 * time.Minute

var podsGVR = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

// kubectl runs the real kubectl as the admin and fails the test if it fails.
func kubectl(t *testing.T, args ...string) string {
	t.Helper()
	r := framework.Run(t, framework.Cmd{Args: args, Timeout: rolloutTimeout + 30*time.Second})
	if r.ExitCode != 0 {
		t.Fatalf("kubectl %s: %s", strings.Join(args, " "), r)
	}
	return r.Stdout
}

// bogusKubeconfig writes a kubeconfig whose server nothing listens on, so
// that a command that asked a server would fail: the answers of --from
// must come from the file.
func bogusKubeconfig(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "bogus.kubeconfig")
	const cfg = `apiVersion: v1
kind: Config
clusters:
- name: nowhere
  cluster:
    server: https://127.0.0.1:1
contexts:
- name: nowhere
  context:
    cluster: nowhere
    user: nobody
    namespace: elsewhere
current-context: nowhere
users:
- name: nobody
  user:
    token: not-a-token
`
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// offline runs `kubectl informer ARGS` with the bogus kubeconfig.
func offline(t *testing.T, kubeconfig string, args ...string) framework.Result {
	t.Helper()
	return framework.Run(t, framework.Cmd{Args: append([]string{"informer"}, args...), Kubeconfig: kubeconfig, Timeout: 2 * time.Minute})
}

// snapshot is the pods and ReplicaSets of a namespace as `kubectl get -o
// json` showed them at an instant: name → resourceVersion, keyed
// KIND/NAME.
type snapshot struct {
	at      time.Time
	objects map[string]string
}

// names returns the snapshot's KIND/NAME keys, sorted, as -o name prints them.
func (s snapshot) names() []string {
	var names []string
	for k := range s.objects {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// getObjects returns what `kubectl get pods,rs -n ns -o json` prints, keyed
// as -o name prints them (pod/NAME, replicaset.apps/NAME), with each
// object's resourceVersion.
func getObjects(t *testing.T, ns string) map[string]string {
	t.Helper()
	return listObjects(t, kubectl(t, "get", "pods,rs", "-n", ns, "-o", "json"))
}

// listObjects decodes a List as -o json prints it.
func listObjects(t *testing.T, out string) map[string]string {
	t.Helper()
	var list struct {
		Items []struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name            string `json:"name"`
				ResourceVersion string `json:"resourceVersion"`
			} `json:"metadata"`
		} `json:"items"`
	}
	if strings.TrimSpace(out) == "" {
		return map[string]string{}
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("decoding a list: %v\n%.2000s", err, out)
	}
	objs := map[string]string{}
	for _, it := range list.Items {
		kind := strings.ToLower(it.Kind)
		if kind == "replicaset" {
			kind += ".apps"
		}
		objs[kind+"/"+it.Metadata.Name] = it.Metadata.ResourceVersion
	}
	return objs
}

// stableSnapshot takes the namespace's pods and ReplicaSets twice, a
// second and a half apart, until both agree, and returns the state with an
// instant between the two reads: the cluster held exactly it then (and the
// recorder, which sees each change within milliseconds, had it too).
func stableSnapshot(t *testing.T, ns string) snapshot {
	t.Helper()
	deadline := time.Now().Add(rolloutTimeout)
	for {
		first := getObjects(t, ns)
		after := time.Now()
		time.Sleep(1500 * time.Millisecond)
		before := time.Now()
		second := getObjects(t, ns)
		if equalMaps(first, second) {
			return snapshot{at: after.Add(before.Sub(after) / 2), objects: first}
		}
		if time.Now().After(deadline) {
			t.Fatalf("namespace %s did not settle: %v then %v", ns, first, second)
		}
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// podStates are the API server's own watch of pods in a namespace, per pod
// UID: the resourceVersions of the states it sent that differ from the one
// before in more than bookkeeping fields, the reference the replay is checked
// against.
type podStates struct {
	order []string
	last  map[string]map[string]interface{}
	seq   map[string][]podState
}

// podState is one state of a pod: the event's type, the object's
// resourceVersion, and the object without bookkeeping fields as JSON.
type podState struct {
	typ, rv, object string
}

func (s podState) String() string { return s.typ + "@" + s.rv }

// states prints a sequence of states as TYPE@resourceVersion.
func states(seq []podState) string {
	var out []string
	for _, s := range seq {
		out = append(out, s.String())
	}
	return strings.Join(out, " ")
}

// podStatesOf folds the server's pod events into podStates.
func podStatesOf(events []framework.ServerEvent) *podStates {
	s := &podStates{last: map[string]map[string]interface{}{}, seq: map[string][]podState{}}
	for _, ev := range events {
		obj := ev.Object
		uid := framework.NestedString(obj, "metadata", "uid")
		rv := framework.NestedString(obj, "metadata", "resourceVersion")
		stripped := withoutBookkeeping(obj)
		if _, seen := s.seq[uid]; !seen {
			s.order = append(s.order, uid)
		}
		if ev.Type == watch.Modified && equalJSON(s.last[uid], stripped) {
			continue
		}
		s.last[uid] = stripped
		s.seq[uid] = append(s.seq[uid], podState{typ: string(ev.Type), rv: rv, object: toJSON(stripped)})
	}
	return s
}

func toJSON(obj map[string]interface{}) string {
	b, _ := json.Marshal(obj)
	return string(b)
}

// withoutBookkeeping returns obj without the metadata fields the plugin
// leaves out of its diffs.
func withoutBookkeeping(obj map[string]interface{}) map[string]interface{} {
	data, _ := json.Marshal(obj)
	var c map[string]interface{}
	_ = json.Unmarshal(data, &c)
	if md, ok := c["metadata"].(map[string]interface{}); ok {
		for _, f := range []string{"managedFields", "resourceVersion", "generation"} {
			delete(md, f)
		}
	}
	return c
}

func equalJSON(a, b map[string]interface{}) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// TestRecordedRollout records a Deployment's rollout (create, set image,
// scale, delete) with `kubectl informer record`, taking snapshots of the
// pods and ReplicaSets between the steps, then asks the recording alone,
// with a kubeconfig whose server does not exist: `query --at` each
// snapshot's instant answers each snapshot, the replay prints every pod
// added once, deleted once and every state the server sent in order,
// `history` tells the Deployment's image change and scale with the managers
// that made them, bad --at values are clear errors, and the ages of a
// table asked --at an instant count from it.
func TestRecordedRollout(t *testing.T) {
	c := framework.Current(t)
	cs, dyn := c.AdminClient(), c.AdminDynamicClient()
	const ns = "timetravel"
	framework.CreateNamespace(t, cs, ns)
	file := filepath.Join(t.TempDir(), "rollout.rec")

	server := framework.WatchServer(t, dyn, ns, podsGVR)
	rec := framework.Start(t, framework.Cmd{
		Args:    []string{"informer", "record", "deployments,replicasets,pods", "-n", ns, "--to", file},
		Timeout: 15 * time.Minute,
	})
	waitRecording(t, rec, file)

	var snaps []snapshot
	snaps = append(snaps, stableSnapshot(t, ns))
	kubectl(t, "create", "deployment", "web", "-n", ns, "--image=registry.example.com/web:v1", "--replicas=2")
	kubectl(t, "rollout", "status", "deployment/web", "-n", ns, "--timeout="+rolloutTimeout.String())
	snaps = append(snaps, stableSnapshot(t, ns))
	kubectl(t, "set", "image", "deployment/web", "-n", ns, "web=registry.example.com/web:v2")
	kubectl(t, "rollout", "status", "deployment/web", "-n", ns, "--timeout="+rolloutTimeout.String())
	snaps = append(snaps, stableSnapshot(t, ns))
	kubectl(t, "scale", "deployment/web", "-n", ns, "--replicas=4")
	kubectl(t, "rollout", "status", "deployment/web", "-n", ns, "--timeout="+rolloutTimeout.String())
	snaps = append(snaps, stableSnapshot(t, ns))
	kubectl(t, "delete", "deployment/web", "-n", ns)
	waitNoPods(t, dyn, ns)
	snaps = append(snaps, stableSnapshot(t, ns))

	if err := rec.Interrupt(); err != nil {
		t.Fatalf("interrupting the recorder: %v", err)
	}
	if r := rec.Wait(); r.ExitCode != 0 {
		t.Fatalf("the recorder did not exit 0 on SIGINT: %s", r)
	}
	if info, err := os.Stat(file); err != nil {
		t.Fatalf("the recording: %v", err)
	} else {
		t.Logf("recording: %d bytes", info.Size())
	}

	kubeconfig := bogusKubeconfig(t)
	t.Run("at", func(t *testing.T) { checkAt(t, kubeconfig, file, ns, snaps) })
	t.Run("replay", func(t *testing.T) { checkReplay(t, kubeconfig, file, ns, server) })
	t.Run("history", func(t *testing.T) { checkHistory(t, kubeconfig, file, ns) })
	t.Run("errors", func(t *testing.T) { checkErrors(t, kubeconfig, file, ns, snaps[0].at) })
	t.Run("ages", func(t *testing.T) { checkAges(t, kubeconfig, file, ns, snaps[3]) })
}

// waitRecording waits until the recorder has written its header and the
// initial state, so that what the test does next is recorded.
func waitRecording(t *testing.T, rec *framework.Process, file string) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		select {
		case <-rec.Done():
			return false, fmt.Errorf("the recorder exited: %s", rec.Wait())
		default:
		}
		return strings.Contains(rec.Stderr(), "; recording to "), nil
	})
	if err != nil {
		t.Fatalf("waiting for the recorder to start: %v\nstderr:\n%s", err, rec.Stderr())
	}
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("the recorder says it records, but: %v", err)
	}
}

// waitNoPods waits until ns holds no pods and no ReplicaSets.
func waitNoPods(t *testing.T, dyn dynamic.Interface, ns string) {
	t.Helper()
	rs := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "replicasets"}
	err := wait.PollUntilContextTimeout(t.Context(), 200*time.Millisecond, rolloutTimeout, true, func(ctx context.Context) (bool, error) {
		for _, gvr := range []schema.GroupVersionResource{podsGVR, rs} {
			list, err := dyn.Resource(gvr).Namespace(ns).List(ctx, metav1.ListOptions{})
			if err != nil || len(list.Items) > 0 {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		t.Fatalf("waiting for %s to be empty: %v", ns, err)
	}
}

// checkAt asks the recording for the pods and ReplicaSets at each
// snapshot's instant: the names (-o name) and the exact states (-o json,
// each object's resourceVersion) are the snapshot's.
func checkAt(t *testing.T, kubeconfig, file, ns string, snaps []snapshot) {
	for i, s := range snaps {
		at := s.at.UTC().Format(time.RFC3339Nano)
		r := offline(t, kubeconfig, "query", "pods,rs", "-n", ns, "--from", file, "--at", at, "-o", "name")
		if r.ExitCode != 0 {
			t.Fatalf("snapshot %d: query --at %s: %s", i, at, r)
		}
		got := strings.Fields(r.Stdout)
		if got == nil {
			got = []string{}
		}
		sort.Strings(got)
		if want := s.names(); !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Errorf("snapshot %d: query pods,rs --at %s -o name = %q, want %q", i, at, got, want)
		}
		r = offline(t, kubeconfig, "query", "pods,rs", "-n", ns, "--from", file, "--at", at, "-o", "json")
		if r.ExitCode != 0 {
			t.Fatalf("snapshot %d: query --at %s -o json: %s", i, at, r)
		}
		if got := listObjects(t, r.Stdout); !equalMaps(got, s.objects) {
			t.Errorf("snapshot %d: query pods,rs --at %s: resourceVersions %v, want %v", i, at, got, s.objects)
		}
	}
	// Without --at, the recording answers as at its end: nothing is left.
	r := offline(t, kubeconfig, "query", "pods,rs", "-n", ns, "--from", file, "-o", "name")
	if r.ExitCode != 0 || strings.TrimSpace(r.Stdout) != "" {
		t.Errorf("query pods,rs --from F (the end) = %s, want no objects", r)
	}
}

// checkReplay replays the recording's pods as -o json and checks each pod
// against the API server's own watch of the run: ADDED once, first,
// DELETED once, last, and every state between in order (the objects
// compared without their bookkeeping fields, managedFields,
// resourceVersion and generation: a replay numbers its changes in the
// order recorded, which across types is not the server's order). The
// replay ends by itself, exit 0.
func checkReplay(t *testing.T, kubeconfig, file, ns string, watched *framework.ServerWatch) {
	r := offline(t, kubeconfig, "watch", "pods", "-n", ns, "--from", file, "-o", "json")
	if r.ExitCode != 0 || r.TimedOut {
		t.Fatalf("watch --from: %s", r)
	}
	got := map[string][]podState{}
	for _, line := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
		if line == "" {
			continue
		}
		ev := framework.DecodeEvent(t, line)
		uid := framework.NestedString(ev.Object, "metadata", "uid")
		got[uid] = append(got[uid], podState{
			typ:    ev.Type,
			rv:     framework.NestedString(ev.Object, "metadata", "resourceVersion"),
			object: toJSON(withoutBookkeeping(ev.Object)),
		})
	}
	seen, errs := watched.Snapshot()
	if len(errs) > 0 {
		t.Fatalf("the server's own watch broke, so it cannot be the reference: %v", errs)
	}
	server := podStatesOf(seen)
	if len(server.order) < 6 {
		t.Fatalf("the server's watch saw %d pods, want at least 6 (2 at v1, then 2 at v2 scaled to 4)", len(server.order))
	}
	events := 0
	for _, uid := range server.order {
		want := server.seq[uid]
		events += len(want)
		if !strings.HasPrefix(want[0].typ, "ADDED") || want[len(want)-1].typ != "DELETED" {
			t.Errorf("pod %s: the server's states %s do not run from ADDED to DELETED", uid, states(want))
		}
		seq := got[uid]
		delete(got, uid)
		if len(seq) != len(want) {
			t.Errorf("pod %s: the replay printed %s, want the server's states %s", uid, states(seq), states(want))
			continue
		}
		for i := range want {
			if seq[i].typ != want[i].typ || seq[i].object != want[i].object {
				t.Errorf("pod %s: state %d the replay printed (%s) is not the server's (%s):\n%s\nwant\n%s", uid, i, seq[i], want[i], seq[i].object, want[i].object)
				break
			}
		}
	}
	if len(got) > 0 {
		t.Errorf("the replay printed pods the server never sent: %v", got)
	}
	t.Logf("replayed %d pods, %d states", len(server.order), events)
}

// checkHistory asks for the Deployment's history: created, the image
// change and the scale each with the manager that made it, deleted; and
// for an object never recorded, NotFound.
func checkHistory(t *testing.T, kubeconfig, file, ns string) {
	r := offline(t, kubeconfig, "history", "deployment/web", "-n", ns, "--from", file)
	if r.ExitCode != 0 {
		t.Fatalf("history deployment/web: %s", r)
	}
	out := r.Stdout
	t.Logf("history deployment/web:\n%s", out)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 4 || !strings.HasSuffix(lines[0], " ADDED    deployment.apps/web -n "+ns) || !strings.HasSuffix(lines[len(lines)-1], " DELETED  deployment.apps/web -n "+ns) {
		t.Errorf("history deployment/web does not run from ADDED to DELETED:\n%s", out)
	}
	// Each change is printed under the line of its event, which names who
	// made it: kubectl set image the image, kubectl scale (through the
	// scale subresource) the replicas.
	for _, c := range []struct{ change, by string }{
		{`~ spec.template.spec.containers[name=web].image: "registry.example.com/web:v1" → "registry.example.com/web:v2"`, "(by kubectl-set/Update)"},
		{"~ spec.replicas: 2 → 4", "(by kubectl/Update/scale)"},
	} {
		header, found := "", false
		for _, line := range lines {
			if !strings.HasPrefix(line, " ") {
				header = line
			}
			if found = strings.TrimSpace(line) == c.change; found {
				break
			}
		}
		if !found || !strings.Contains(header, "MODIFIED deployment.apps/web") || !strings.HasSuffix(header, c.by) {
			t.Errorf("history deployment/web: %q is not printed under an update %s; under %q", c.change, c.by, header)
		}
	}

	r = offline(t, kubeconfig, "history", "deployment/web", "-n", ns, "--from", file, "-o", "json")
	if r.ExitCode != 0 {
		t.Fatalf("history -o json: %s", r)
	}
	var types []string
	for _, line := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
		var ev struct {
			Type     string   `json:"type"`
			Time     string   `json:"time"`
			Managers []string `json:"managers"`
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("history -o json line %q: %v", line, err)
		}
		if _, err := time.Parse(time.RFC3339Nano, ev.Time); err != nil {
			t.Errorf("history -o json line without its time: %s", line)
		}
		types = append(types, ev.Type)
	}
	if len(types) < 4 || types[0] != "ADDED" || types[len(types)-1] != "DELETED" {
		t.Errorf("history -o json types = %q, want ADDED, updates, DELETED", types)
	}

	r = offline(t, kubeconfig, "history", "deployment/nope", "-n", ns, "--from", file)
	if r.ExitCode != 1 || !strings.Contains(r.Stderr, "NotFound") || !strings.Contains(r.Stderr, `"nope"`) {
		t.Errorf("history of an object never recorded = %s, want exit 1 and NotFound naming it", r)
	}
}

// checkErrors checks that bad --at values are errors that name the flag.
func checkErrors(t *testing.T, kubeconfig, file, ns string, first time.Time) {
	for _, tc := range []struct {
		name, at, want string
	}{
		{"before the start", first.Add(-time.Hour).UTC().Format(time.RFC3339), "before the recording"},
		{"not RFC 3339", "yesterday", "RFC 3339"},
		{"a positive duration", "10m", "negative"},
		{"a duration before the start", "-100h", "before the recording"},
	} {
		r := offline(t, kubeconfig, "query", "pods", "-n", ns, "--from", file, "--at", tc.at)
		if r.ExitCode != 1 || !strings.Contains(r.Stderr, "--at") || !strings.Contains(r.Stderr, tc.want) {
			t.Errorf("%s: query --at %s = %s, want exit 1 and an error naming --at that says %q", tc.name, tc.at, r, tc.want)
		}
	}
	r := offline(t, kubeconfig, "query", "pods", "-n", ns, "--at", "-1m")
	if r.ExitCode != 1 || !strings.Contains(r.Stderr, "--at") || !strings.Contains(r.Stderr, "--from") {
		t.Errorf("query --at without --from = %s, want exit 1 and an error naming --at and --from", r)
	}
}
