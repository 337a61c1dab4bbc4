package recording

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"

	"github.com/kubectl-informer/kubectl-informer/pkg/recording"
	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// rolloutTimeout bounds each step that waits for controllers.
const rolloutTimeout = 3 * time.Minute

var (
	deploymentsGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	replicaSetsGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "replicasets"}
	podsGVR        = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	recordedGVRs   = []schema.GroupVersionResource{deploymentsGVR, replicaSetsGVR, podsGVR}
)

// TestRecordRollout records a rollout (create a Deployment, set its image,
// scale it, delete it) through the real kubectl while the API server's own
// watch streams run beside it, stops the recorder with SIGINT, and checks
// the file: every object's recorded states are the states the server sent,
// in order; the state the file gives at three instants of the run equals
// the live state then; and a copy cut in the middle reads up to its last
// complete event.
func TestRecordRollout(t *testing.T) {
	c := framework.Current(t)
	cs, dyn := c.AdminClient(), c.AdminDynamicClient()
	const ns = "recording"
	framework.CreateNamespace(t, cs, ns)
	file := filepath.Join(t.TempDir(), "rollout.rec")

	server := framework.WatchServer(t, dyn, ns, recordedGVRs...)
	p := framework.Start(t, framework.Cmd{Args: []string{"informer", "record", "deployments,replicasets,pods", "-n", ns, "--to", file}, Timeout: 15 * time.Minute})
	waitFor(t, time.Minute, "the recorder to sync", func() bool {
		select {
		case <-p.Done():
			t.Fatalf("record exited before it was recording: %s", p.Wait())
		default:
		}
		return strings.Contains(p.Stderr(), "; recording to "+file)
	})

	type snapshot struct {
		at    time.Time
		state []map[string]interface{}
	}
	var snapshots []snapshot
	// snap waits until the file, read while the recorder writes it, gives
	// the live state of the namespace, and keeps the instant it did.
	snap := func(step string) {
		t.Helper()
		var live, recorded []map[string]interface{}
		err := wait.PollUntilContextTimeout(t.Context(), 250*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			live = listState(t, ctx, dyn, ns)
			at := time.Now()
			recorded = recordedState(t, file, at)
			if reflect.DeepEqual(live, recorded) {
				snapshots = append(snapshots, snapshot{at: at, state: live})
				return true, nil
			}
			return false, nil
		})
		if err != nil {
			t.Fatalf("after %s, the recording never gave the live state:\nlive %s\nrecorded %s", step, names(live), names(recorded))
		}
	}

	kubectl(t, "create", "deployment", "web", "-n", ns, "--image=registry.example.com/web:v1", "--replicas=2")
	kubectl(t, "rollout", "status", "deployment/web", "-n", ns, "--timeout="+rolloutTimeout.String())
	snap("create")
	kubectl(t, "set", "image", "deployment/web", "-n", ns, "web=registry.example.com/web:v2")
	kubectl(t, "rollout", "status", "deployment/web", "-n", ns, "--timeout="+rolloutTimeout.String())
	snap("set image")
	kubectl(t, "scale", "deployment/web", "-n", ns, "--replicas=4")
	kubectl(t, "rollout", "status", "deployment/web", "-n", ns, "--timeout="+rolloutTimeout.String())
	snap("scale")
	kubectl(t, "delete", "deployment/web", "-n", ns)
	waitGone(t, dyn, ns)

	// The server's streams are complete once every object it added is
	// deleted; then wait for the file to hold as many deletes.
	var want []framework.ServerEvent
	waitFor(t, time.Minute, "the server's and the recording's deletes", func() bool {
		events, _ := server.Snapshot()
		added, deleted := 0, 0
		for _, ev := range events {
			switch ev.Type {
			case watch.Added:
				added++
			case watch.Deleted:
				deleted++
			}
		}
		want = events
		got, _ := readEvents(t, file)
		recordedDeletes := 0
		for _, ev := range got {
			if ev.Type == watch.Deleted {
				recordedDeletes++
			}
		}
		return added > 0 && added == deleted && recordedDeletes >= deleted
	})
	if _, errs := server.Snapshot(); len(errs) > 0 {
		t.Fatalf("the server's own watch broke, so it cannot be the reference: %v", errs)
	}
	if err := p.Interrupt(); err != nil {
		t.Fatal(err)
	}
	r := p.Wait()
	if r.ExitCode != 0 {
		t.Fatalf("record did not exit 0 on SIGINT: %s", r)
	}
	got, truncated := readEvents(t, file)
	if truncated {
		t.Errorf("the recording of a recorder stopped by SIGINT reads as truncated")
	}
	summary := fmt.Sprintf("recorded %d events of %d objects to %s (", len(got), countObjects(got), file)
	if !strings.Contains(r.Stderr, summary) {
		t.Errorf("stderr does not say %q:\n%s", summary, r.Stderr)
	}

	compareWithServer(t, want, got)

	// The finished file gives the live state at each snapshot's instant,
	// the events after it not applied.
	for i, s := range snapshots {
		if state := recordedState(t, file, s.at); !reflect.DeepEqual(state, s.state) {
			t.Errorf("snapshot %d: the finished recording at %s gives %s, the cluster held %s", i+1, s.at.Format(time.RFC3339Nano), names(state), names(s.state))
		}
	}
	if state := recordedState(t, file, time.Now()); len(state) != 0 {
		t.Errorf("the recording ends with %s, want nothing (all deleted)", names(state))
	}

	checkCutCopy(t, file, got)
	reportSize(t, file, got)
}

// checkCutCopy reads a copy of file cut in the middle of its bytes: it
// reads without error, says it was truncated, and gives a prefix of the
// whole file's events.
func checkCutCopy(t *testing.T, file string, whole []recording.Event) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.rec")
	if err := os.WriteFile(cut, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	got, truncated := readEvents(t, cut)
	if !truncated {
		t.Errorf("a copy cut at %d of %d bytes does not read as truncated", len(data)/2, len(data))
	}
	if len(got) == 0 || len(got) >= len(whole) {
		t.Fatalf("a copy cut at %d of %d bytes gives %d of %d events, want some but not all", len(data)/2, len(data), len(got), len(whole))
	}
	for i := range got {
		if got[i].Type != whole[i].Type || !got[i].Time.Equal(whole[i].Time) || !reflect.DeepEqual(got[i].Object.Object, whole[i].Object.Object) {
			t.Fatalf("the cut copy's event %d differs from the whole file's", i)
		}
	}
	t.Logf("a copy cut at %d of %d bytes reads %d of %d events", len(data)/2, len(data), len(got), len(whole))
}

// reportSize logs the recording's size against the same events as NDJSON
// of whole objects, plain and gzipped, and fails if the recording is not
// smaller than the plain NDJSON.
func reportSize(t *testing.T, file string, events []recording.Event) {
	t.Helper()
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	var ndjson bytes.Buffer
	for _, ev := range events {
		b, err := json.Marshal(ev.Object.Object)
		if err != nil {
			t.Fatal(err)
		}
		ndjson.Write(b)
		ndjson.WriteByte('\n')
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write(ndjson.Bytes())
	_ = zw.Close()
	t.Logf("recording: %d bytes for %d events of %d objects; the same events as NDJSON of whole objects: %d bytes (%.1f× the recording), gzipped: %d bytes (%.1f×)",
		fi.Size(), len(events), countObjects(events), ndjson.Len(), float64(ndjson.Len())/float64(fi.Size()), gz.Len(), float64(gz.Len())/float64(fi.Size()))
	if fi.Size() >= int64(ndjson.Len()) {
		t.Errorf("the recording (%d bytes) is not smaller than the NDJSON of its objects (%d bytes)", fi.Size(), ndjson.Len())
	}
}

// compareWithServer checks that each object's recorded states are exactly
// the states the server's watch sent, in order, one Added first and one
// Deleted last.
func compareWithServer(t *testing.T, server []framework.ServerEvent, recorded []recording.Event) {
	t.Helper()
	type state struct {
		typ watch.EventType
		obj map[string]interface{}
	}
	group := func(add func(func(uid string, s state))) (map[string][]state, []string) {
		by := map[string][]state{}
		var order []string
		add(func(uid string, s state) {
			if len(by[uid]) == 0 {
				order = append(order, uid)
			}
			by[uid] = append(by[uid], s)
		})
		return by, order
	}
	want, order := group(func(add func(string, state)) {
		for _, ev := range server {
			add(framework.NestedString(ev.Object, "metadata", "uid"), state{ev.Type, ev.Object})
		}
	})
	got, _ := group(func(add func(string, state)) {
		for _, ev := range recorded {
			add(string(ev.Object.GetUID()), state{ev.Type, normalize(t, ev.Object.Object)})
		}
	})
	if len(got) != len(want) {
		t.Errorf("the recording holds %d objects, the server sent %d", len(got), len(want))
	}
	kinds := map[string]int{}
	for _, uid := range order {
		w, g := want[uid], got[uid]
		name := framework.NestedString(w[0].obj, "kind") + "/" + framework.NestedString(w[0].obj, "metadata", "name")
		if len(g) != len(w) {
			t.Errorf("%s: %d recorded states, the server sent %d", name, len(g), len(w))
		}
		for i := 0; i < len(w) && i < len(g); i++ {
			if g[i].typ != w[i].typ || !reflect.DeepEqual(g[i].obj, w[i].obj) {
				t.Errorf("%s: state %d recorded as %s\n%s\nthe server sent %s\n%s", name, i+1, g[i].typ, toJSON(g[i].obj), w[i].typ, toJSON(w[i].obj))
			}
			kinds[framework.NestedString(w[i].obj, "kind")+" "+string(w[i].typ)]++
		}
	}
	for _, kind := range []string{"Deployment", "ReplicaSet", "Pod"} {
		if kinds[kind+" MODIFIED"] == 0 {
			t.Errorf("no MODIFIED %s was recorded: the controllers did not act, so the test proved little", kind)
		}
	}
	t.Logf("server sent %d events; the recording holds %d: %v", len(server), len(recorded), kinds)
}

// readEvents reads every complete event of the recording at path.
func readEvents(t *testing.T, path string) ([]recording.Event, bool) {
	t.Helper()
	r, err := recording.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var events []recording.Event
	for {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			return events, r.Truncated()
		}
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, ev)
	}
}

// recordedState returns the objects the recording at path gives at at, as
// JSON decodes them, sorted by kind then name.
func recordedState(t *testing.T, path string, at time.Time) []map[string]interface{} {
	t.Helper()
	r, err := recording.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	objs, err := recording.StateAt(r, at)
	if err != nil {
		t.Fatal(err)
	}
	var state []map[string]interface{}
	for _, o := range objs {
		state = append(state, normalize(t, o.Object))
	}
	sortState(state)
	return state
}

// listState returns the namespace's deployments, ReplicaSets and pods as
// the API server lists them, with apiVersion and kind, sorted by kind then
// name.
func listState(t *testing.T, ctx context.Context, dyn dynamic.Interface, ns string) []map[string]interface{} {
	t.Helper()
	var state []map[string]interface{}
	for _, gvr := range recordedGVRs {
		list, err := dyn.Resource(gvr).Namespace(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatalf("listing %s: %v", gvr.Resource, err)
		}
		for _, item := range list.Items {
			state = append(state, normalize(t, item.Object))
		}
	}
	sortState(state)
	return state
}

func sortState(state []map[string]interface{}) {
	slices.SortFunc(state, func(a, b map[string]interface{}) int {
		return strings.Compare(framework.NestedString(a, "kind")+"/"+framework.NestedString(a, "metadata", "name"),
			framework.NestedString(b, "kind")+"/"+framework.NestedString(b, "metadata", "name"))
	})
}

// names lists a state's objects with their resourceVersions, for failure
// messages.
func names(state []map[string]interface{}) string {
	var s []string
	for _, o := range state {
		s = append(s, framework.NestedString(o, "kind")+"/"+framework.NestedString(o, "metadata", "name")+"@"+framework.NestedString(o, "metadata", "resourceVersion"))
	}
	return "[" + strings.Join(s, " ") + "]"
}

// normalize returns obj as encoding/json decodes it (numbers as float64).
func normalize(t *testing.T, obj map[string]interface{}) map[string]interface{} {
	t.Helper()
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]interface{}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func toJSON(obj map[string]interface{}) string {
	b, _ := json.MarshalIndent(obj, "", "  ")
	return string(b)
}

func countObjects(events []recording.Event) int {
	uids := map[string]bool{}
	for _, ev := range events {
		uids[string(ev.Object.GetUID())] = true
	}
	return len(uids)
}

// kubectl runs the real kubectl as the admin and fails the test if it fails.
func kubectl(t *testing.T, args ...string) string {
	t.Helper()
	r := framework.Run(t, framework.Cmd{Args: args, Timeout: rolloutTimeout + 30*time.Second})
	if r.ExitCode != 0 {
		t.Fatalf("kubectl %s: %s", strings.Join(args, " "), r)
	}
	return r.Stdout
}

// waitFor polls cond every 100ms until it holds, failing the test after
// timeout.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitGone waits until ns holds no deployments, ReplicaSets or pods.
func waitGone(t *testing.T, dyn dynamic.Interface, ns string) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), 200*time.Millisecond, rolloutTimeout, true, func(ctx context.Context) (bool, error) {
		for _, gvr := range recordedGVRs {
			list, err := dyn.Resource(gvr).Namespace(ns).List(ctx, metav1.ListOptions{})
			if err != nil || len(list.Items) > 0 {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		t.Fatalf("waiting for %s to empty: %v", ns, err)
	}
}

// TestRecordDurationAndOverwrite records for --duration, which ends the
// recorder with exit 0 on its own; a second run refuses the existing file
// naming --to, and --overwrite replaces it.
func TestRecordDurationAndOverwrite(t *testing.T) {
	c := framework.Current(t)
	const ns = "recording-duration"
	framework.CreateNamespace(t, c.AdminClient(), ns)
	kubectl(t, "create", "configmap", "settings", "-n", ns, "--from-literal=mode=a")
	file := filepath.Join(t.TempDir(), "cm.rec")
	args := []string{"informer", "record", "configmaps", "-n", ns, "--to", file, "--duration", "10s"}

	p := framework.Start(t, framework.Cmd{Args: args, Timeout: time.Minute})
	waitFor(t, time.Minute, "the recorder to sync", func() bool {
		select {
		case <-p.Done():
			t.Fatalf("record exited before it was recording: %s", p.Wait())
		default:
		}
		return strings.Contains(p.Stderr(), "; recording to "+file)
	})
	kubectl(t, "patch", "configmap", "settings", "-n", ns, "-p", `{"data":{"mode":"b"}}`)
	r := p.Wait()
	if r.ExitCode != 0 || r.Duration > 40*time.Second {
		t.Fatalf("record --duration 10s: %s", r)
	}
	events, truncated := readEvents(t, file)
	var seen []string
	for _, ev := range events {
		mode, _, _ := unstructured.NestedString(ev.Object.Object, "data", "mode")
		if ev.Object.GetName() == "settings" {
			seen = append(seen, fmt.Sprintf("%s:%v:%s", ev.Type, ev.Initial, mode))
		}
	}
	if want := []string{"ADDED:true:a", "MODIFIED:false:b"}; truncated || !reflect.DeepEqual(seen, want) {
		t.Errorf("the recording holds %v (truncated %v), want %v", seen, truncated, want)
	}

	again := framework.Run(t, framework.Cmd{Args: args})
	if again.ExitCode != 1 || !strings.Contains(again.Stderr, "--to "+file+" exists; pass --overwrite to replace it") {
		t.Errorf("recording over an existing file: %s", again)
	}
	over := framework.Run(t, framework.Cmd{Args: append(args[:len(args)-1], "1s", "--overwrite")})
	if over.ExitCode != 0 {
		t.Fatalf("record --overwrite: %s", over)
	}
	if events, _ := readEvents(t, file); len(events) == 0 || !events[0].Initial {
		t.Errorf("the overwritten recording starts with %v, want the initial state", events)
	}
}
