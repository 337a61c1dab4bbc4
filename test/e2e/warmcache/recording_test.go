package warmcache

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-informer/kubectl-informer/pkg/recording"
	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// recordingStatus is the recording part of `cache status -o json`.
type recordingStatus struct {
	Dir          string   `json:"dir"`
	Retain       string   `json:"retain"`
	Types        []string `json:"types"`
	Segment      string   `json:"segment"`
	SegmentBytes int64    `json:"segmentBytes"`
	Files        int      `json:"files"`
	Events       int64    `json:"events"`
	Dropped      int64    `json:"dropped"`
	LastError    string   `json:"lastError"`
}

func (e *env) recordingStatus() recordingStatus {
	e.t.Helper()
	res := e.mustRun(framework.NoKubeconfig, "cache", "status", "-o", "json")
	var st []struct {
		Status *struct {
			Recording *recordingStatus `json:"recording"`
		} `json:"status"`
	}
	if err := json.Unmarshal([]byte(res.Stdout), &st); err != nil {
		e.t.Fatalf("decoding cache status -o json: %v\n%s", err, res)
	}
	if len(st) != 1 || st[0].Status == nil || st[0].Status.Recording == nil {
		e.t.Fatalf("cache status: want one cache with a recording: %s", res.Stdout)
	}
	return *st[0].Status.Recording
}

// recordedPods returns "name{labels}" of the pods of ns that the segment
// directory holds at at.
func recordedPods(t *testing.T, dir, ns string, at time.Time) []string {
	t.Helper()
	_, objs, err := recording.StateAtDir(dir, at)
	if err != nil {
		t.Fatalf("state of %s at %s: %v", dir, at.Format(time.RFC3339Nano), err)
	}
	var out []string
	for _, o := range objs {
		if o.GetKind() == "Pod" && o.GetNamespace() == ns {
			out = append(out, podState(o.GetName(), o.GetLabels()))
		}
	}
	sort.Strings(out)
	return out
}

func podState(name string, labels map[string]string) string {
	var kv []string
	for k, v := range labels {
		kv = append(kv, k+"="+v)
	}
	sort.Strings(kv)
	return name + "{" + strings.Join(kv, ",") + "}"
}

// livePods returns "name{labels}" of the pods of ns, from the API server.
func livePods(t *testing.T, ns string) []string {
	t.Helper()
	list, err := framework.Current(t).AdminClient().CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range list.Items {
		out = append(out, podState(p.Name, p.Labels))
	}
	sort.Strings(out)
	return out
}

// TestRecordingCache starts a cache with --record, makes it hold pods by
// a query, changes pods, and reads the segment directory: the state at an
// instant after each change is the pods as they were then, also after the
// recording has started a second segment; status shows the recording.
func TestRecordingCache(t *testing.T) {
	framework.SkipIfShort(t)
	e := newEnv(t)
	base := t.TempDir()
	dir := filepath.Join(base, "rec")

	// A --record that is a file is refused, naming the flag.
	file := filepath.Join(base, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if res := e.run("", "cache", "start", "--record", file); res.ExitCode != 1 || !strings.Contains(res.Stderr, "--record "+file+": not a directory") {
		t.Errorf("cache start --record FILE: %s\nwant exit 1 naming --record", res)
	}

	e.start("", "--record", dir, "--retain", "1m")
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("record dir: %v %v, want created 0700", fi, err)
	}
	cs := framework.Current(t).AdminClient()
	ns := uniqueNamespace("warm-rec")
	framework.CreateNamespace(t, cs, ns)
	ctx := context.Background()
	createPod := func(name string) {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.example/app:1"}}}}
		if _, err := cs.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	createPod("p1")

	e.mustRun("", "query", "pods", "-A", "-o", "name")
	waitFor(t, 20*time.Second, "the recording of pods", func() bool {
		st := e.recordingStatus()
		return st.Segment != "" && reflect.DeepEqual(st.Types, []string{"pods"})
	})

	// After each change: wait until the recording's latest state is the
	// live one, then note an instant and the pods then.
	type moment struct {
		what string
		at   time.Time
		pods []string
	}
	var moments []moment
	settle := func(what string) {
		t.Helper()
		want := livePods(t, ns)
		waitFor(t, 20*time.Second, "the recording to hold the pods after "+what, func() bool {
			return reflect.DeepEqual(recordedPods(t, dir, ns, time.Now()), want)
		})
		moments = append(moments, moment{what, time.Now(), want})
		time.Sleep(200 * time.Millisecond)
	}
	settle("the query")
	createPod("p2")
	settle("creating p2")
	patch := []byte(`{"metadata":{"labels":{"tier":"web"}}}`)
	if _, err := cs.CoreV1().Pods(ns).Patch(ctx, "p1", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	settle("labelling p1")
	if err := cs.CoreV1().Pods(ns).Delete(ctx, "p2", metav1.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
		t.Fatal(err)
	}
	settle("deleting p2")

	wantMoments := [][]string{{"p1{}"}, {"p1{}", "p2{}"}, {"p1{tier=web}", "p2{}"}, {"p1{tier=web}"}}
	for i, m := range moments {
		if !reflect.DeepEqual(m.pods, wantMoments[i]) {
			t.Errorf("live pods after %s: %v, want %v", m.what, m.pods, wantMoments[i])
		}
	}
	st := e.recordingStatus()
	if st.Dir != dir || st.Retain != "1m0s" || st.SegmentBytes == 0 || st.Files != 1 || st.Events < 3 || st.LastError != "" {
		t.Errorf("recording status %+v, want dir %s, retain 1m0s, one non-empty file, 3 events or more", st, dir)
	}
	table := e.mustRun(framework.NoKubeconfig, "cache", "status").Stdout
	for _, want := range []string{"RECORDING", dir, "1m0s", filepath.Base(st.Segment), "recording"} {
		if !strings.Contains(table, want) {
			t.Errorf("cache status table lacks %q:\n%s", want, table)
		}
	}

	// A new segment starts a minute after the first (--retain 1m cuts
	// every minute); one more change goes into it.
	waitFor(t, 90*time.Second, "a second segment", func() bool { return e.recordingStatus().Files >= 2 })
	createPod("p3")
	settle("creating p3 in the second segment")
	segs, err := recording.ListSegments(dir)
	if err != nil || len(segs) < 2 {
		t.Fatalf("segments %v, %v; want 2 or more", segs, err)
	}
	t.Logf("segments: %v", segs)
	for _, s := range segs {
		if fi, err := os.Stat(s.Path); err == nil {
			t.Logf("segment %s: %d bytes", filepath.Base(s.Path), fi.Size())
		}
	}
	for _, m := range moments {
		if got := recordedPods(t, dir, ns, m.at); !reflect.DeepEqual(got, m.pods) {
			t.Errorf("recorded pods at %s (after %s) = %v, want %v", m.at.Format(time.RFC3339Nano), m.what, got, m.pods)
		}
	}

	// Read as one recording, the pods of ns change in order, each state
	// once: the second segment's initial state adds nothing.
	d, err := recording.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var events []string
	for {
		ev, err := d.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if ev.Object.GetNamespace() == ns {
			events = append(events, string(ev.Type)[:1]+":"+podState(ev.Object.GetName(), ev.Object.GetLabels()))
		}
	}
	want := []string{"A:p1{}", "A:p2{}", "M:p1{tier=web}", "D:p2{}", "A:p3{}"}
	if !reflect.DeepEqual(compactModified(events), want) {
		t.Errorf("events of %s across the segments: %v, want %v (status updates aside)", ns, events, want)
	}

	checkFromDir(t, e, dir, ns, moments[0].at)
	for _, m := range moments {
		at := m.at.UTC().Format(time.RFC3339Nano)
		var names, web []string
		for _, p := range m.pods {
			name := "pod/" + p[:strings.Index(p, "{")]
			names = append(names, name)
			if strings.Contains(p, "tier=web") {
				web = append(web, name)
			}
		}
		got := e.mustRun(framework.NoKubeconfig, "query", "pods", "-n", ns, "--from", dir, "--at", at, "-o", "name").Stdout
		if want := strings.Join(names, "\n"); strings.TrimSpace(got) != want {
			t.Errorf("query pods --from DIR --at %s (after %s) = %q, want %q", at, m.what, got, want)
		}
		got = e.mustRun(framework.NoKubeconfig, "query", "pods", "-n", ns, "-l", "tier=web", "--from", dir, "--at", at, "-o", "name").Stdout
		if want := strings.Join(web, "\n"); strings.TrimSpace(got) != want {
			t.Errorf("query pods -l tier=web --from DIR --at %s (after %s) = %q, want %q", at, m.what, got, want)
		}
	}
}

// checkFromDir reads the segment directory through kubectl, without a
// kubeconfig: history of p1 shows its label change, and the replay of the
// pods of ns adds p2 before it deletes it, across the segments; an --at
// before the directory's start is an error naming --at.
func checkFromDir(t *testing.T, e *env, dir, ns string, first time.Time) {
	t.Helper()
	res := e.mustRun(framework.NoKubeconfig, "history", "pods/p1", "-n", ns, "--from", dir)
	for _, want := range []string{"ADDED    pod/p1 -n " + ns, "tier"} {
		if !strings.Contains(res.Stdout, want) {
			t.Errorf("history pods/p1 --from DIR does not say %q:\n%s", want, res.Stdout)
		}
	}
	res = e.mustRun(framework.NoKubeconfig, "watch", "pods", "-n", ns, "--from", dir, "-o", "json")
	seq := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(res.Stdout), "\n") {
		ev := framework.DecodeEvent(t, line)
		name := framework.NestedString(ev.Object, "metadata", "name")
		if s := seq[name]; len(s) == 0 || s[len(s)-1] != ev.Type {
			seq[name] = append(seq[name], ev.Type)
		}
	}
	// p1 is in the state the replay starts from, which it does not print.
	want := map[string][]string{"p1": {"MODIFIED"}, "p2": {"ADDED", "MODIFIED", "DELETED"}, "p3": {"ADDED"}}
	for name, types := range want {
		// p2's status updates by the API server may be absent: no node
		// ever runs it.
		got := seq[name]
		if name == "p2" && len(got) == 2 {
			got = []string{got[0], "MODIFIED", got[1]}
		}
		if !reflect.DeepEqual(got, types) {
			t.Errorf("watch pods --from DIR: %s went %v, want %v (repeats merged)\n%s", name, seq[name], types, res.Stdout)
		}
	}
	before := first.Add(-time.Hour).UTC().Format(time.RFC3339)
	if res := e.run(framework.NoKubeconfig, "query", "pods", "--from", dir, "--at", before); res.ExitCode != 1 || !strings.Contains(res.Stderr, "--at") {
		t.Errorf("query --from DIR --at an hour before it = %s, want exit 1 naming --at", res)
	}
}

// compactModified drops the Modified events that do not change what
// podState shows (the API server's own updates of a pod's status).
func compactModified(events []string) []string {
	var out []string
	last := map[string]string{}
	for _, ev := range events {
		state := ev[2:]
		name := state[:strings.Index(state, "{")]
		if ev[0] == 'M' && last[name] == state {
			continue
		}
		last[name] = state
		out = append(out, ev)
	}
	return out
}
