package watch

import (
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// The changes runPodLifecycle makes, as merge patches.
const (
	lifecycleLabels = `{"metadata":{"labels":{"tier":"db","team":"blue"}}}`
	lifecycleSpec   = `{"spec":{"activeDeadlineSeconds":300,"containers":[{"name":"main","image":"registry.example.com/web:v2"}]}}`
	lifecycleStatus = `{"status":{"phase":"Running"}}`
)

// runPodLifecycle creates pod web (label tier=web), relabels it, changes
// its spec, its status through the status subresource and deletes it, each
// step as its own field manager.
func runPodLifecycle(t *testing.T, cs kubernetes.Interface, ns string) {
	t.Helper()
	createPod(t, cs, ns, "web", map[string]string{"tier": "web"})
	patchPod(t, cs, ns, "web", "e2e-labeler", lifecycleLabels)
	// lifecycleSpec is a merge patch, so it replaces the container list
	// with one that keeps only name and image; use a strategic merge patch,
	// which merges containers by name.
	if _, err := cs.CoreV1().Pods(ns).Patch(t.Context(), "web", types.StrategicMergePatchType, []byte(lifecycleSpec), metav1.PatchOptions{FieldManager: "e2e-spec"}); err != nil {
		t.Fatalf("patching the spec of pod web: %v", err)
	}
	patchPod(t, cs, ns, "web", "e2e-status", lifecycleStatus, "status")
	deletePod(t, cs, ns, "web")
}

// TestWatchJSONSequence checks issue 4's scripted sequence in -o json:
// every event in order, each update with a JSON Patch that turns the
// previous object into the new one, and the field manager who made it.
func TestWatchJSONSequence(t *testing.T) {
	t.Parallel()
	cs := framework.Current(t).AdminClient()
	const ns = "watch-json"
	framework.CreateNamespace(t, cs, ns)
	// ADDED, MODIFIED ×4, DELETED: see below.
	p := startWatch(t, "pods", "-n", ns, "-o", "json", "--max-events", "6")
	runPodLifecycle(t, cs, ns)

	added := expectEvent(t, p, "ADDED", "web")
	if got := framework.NestedString(added.Object, "metadata", "labels", "tier"); got != "web" {
		t.Errorf("ADDED object label tier = %q, want %q", got, "web")
	}
	if len(added.Patch) != 0 || len(added.Managers) != 0 {
		t.Errorf("ADDED event has a patch or managers: %s", added.Line)
	}
	if strings.Contains(added.Line, "managedFields") {
		t.Errorf("ADDED event prints managedFields: %s", added.Line)
	}

	steps := []struct {
		name      string
		wantPaths []string
		manager   string
	}{
		{"labels", []string{"add /metadata/labels/team", "replace /metadata/labels/tier"}, "e2e-labeler/Update"},
		{"spec", []string{"add /spec/activeDeadlineSeconds", "replace /spec/containers/0/image"}, "e2e-spec/Update"},
		{"status", []string{"replace /status/phase"}, "e2e-status/Update/status"},
		// Deleting a pod that is bound to a node is graceful even with
		// grace period 0: the apiserver first sets deletionTimestamp and
		// deletionGracePeriodSeconds, an update of its own that no field
		// manager records, and only then removes the pod. So a watch sees
		// a fourth MODIFIED, without managers but labelled, before DELETED.
		{"deletion", []string{"add /metadata/deletionGracePeriodSeconds", "add /metadata/deletionTimestamp"}, ""},
	}
	prev := added
	for _, step := range steps {
		ev := expectEvent(t, p, "MODIFIED", "web")
		paths := patchPaths(t, ev)
		slices.Sort(paths)
		if !slices.Equal(paths, step.wantPaths) {
			t.Errorf("%s: patch operations = %q, want %q\n%s", step.name, paths, step.wantPaths, ev.Patch)
		}
		framework.CheckPatch(t, prev, ev, "resourceVersion", "generation", "managedFields")
		switch {
		case step.manager == "" && len(ev.Managers) != 0:
			t.Errorf("%s: managers = %q, want none", step.name, ev.Managers)
		case step.manager != "" && !slices.Equal(ev.Managers, []string{step.manager}):
			t.Errorf("%s: managers = %q, want [%s]", step.name, ev.Managers, step.manager)
		}
		if wantCause := map[bool]string{true: "deletion requested"}[step.name == "deletion"]; ev.Cause != wantCause {
			t.Errorf("%s: cause = %q, want %q", step.name, ev.Cause, wantCause)
		}
		prev = ev
	}

	deleted := expectEvent(t, p, "DELETED", "web")
	if deleted.FinalStateUnknown {
		t.Errorf("DELETED event seen by a live watch says finalStateUnknown: %s", deleted.Line)
	}
	if got, want := framework.NestedString(deleted.Object, "metadata", "uid"), framework.NestedString(added.Object, "metadata", "uid"); got != want || got == "" {
		t.Errorf("DELETED object uid = %q, want %q", got, want)
	}
	if framework.NestedString(deleted.Object, "metadata", "deletionTimestamp") == "" || framework.NestedString(deleted.Object, "status", "phase") != "Running" {
		t.Errorf("DELETED object is not the last state (deletionTimestamp set, phase Running): %s", deleted.Line)
	}
	expectExit0AndEOF(t, p)
}

// TestWatchTextSequence runs the same sequence in text output with compact
// diffs.
func TestWatchTextSequence(t *testing.T) {
	t.Parallel()
	cs := framework.Current(t).AdminClient()
	const ns = "watch-text"
	framework.CreateNamespace(t, cs, ns)
	p := startWatch(t, "pods", "-n", ns, "--color", "never", "--max-events", "6")
	runPodLifecycle(t, cs, ns)

	// Each entry is a whole line, or a prefix if it ends in "*".
	want := []string{
		"ADDED    pod/web -n " + ns,
		"MODIFIED pod/web -n " + ns + "  (by e2e-labeler/Update)",
		`    + metadata.labels.team: "blue"`,
		`    ~ metadata.labels.tier: "web" → "db"`,
		"MODIFIED pod/web -n " + ns + "  (by e2e-spec/Update)",
		`    + spec.activeDeadlineSeconds: 300`,
		`    ~ spec.containers[name=main].image: "registry.example.com/web:v1" → "registry.example.com/web:v2"`,
		"MODIFIED pod/web -n " + ns + "  (by e2e-status/Update/status)",
		`    ~ status.phase: "Pending" → "Running"`,
		"MODIFIED pod/web -n " + ns + "  (deletion requested)",
		`    + metadata.deletionGracePeriodSeconds: 0`,
		`    + metadata.deletionTimestamp: "*`,
		"DELETED  pod/web -n " + ns,
	}
	for i, w := range want {
		line, err := p.NextLine(eventTimeout)
		if err != nil {
			t.Fatalf("line %d: %v; want %q", i+1, err, w)
		}
		if prefix, ok := strings.CutSuffix(w, "*"); ok {
			if !strings.HasPrefix(line, prefix) {
				t.Errorf("line %d = %q, want prefix %q", i+1, line, prefix)
			}
		} else if line != w {
			t.Errorf("line %d = %q, want %q", i+1, line, w)
		}
	}
	expectExit0AndEOF(t, p)
	if out := p.Stdout(); strings.Contains(out, "\x1b[") {
		t.Errorf("--color never printed escape sequences:\n%q", out)
	}
}

var widgetGVR = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}

// TestWatchCustomResource watches Widgets by their short name.
func TestWatchCustomResource(t *testing.T) {
	t.Parallel()
	c := framework.Current(t)
	cs := framework.Current(t).AdminClient()
	const ns = "watch-crd"
	framework.CreateNamespace(t, cs, ns)
	if out, err := c.Seed("crd"); err != nil {
		t.Fatal(err)
	} else {
		t.Log(strings.TrimSpace(out))
	}
	widgets := framework.Current(t).AdminDynamicClient().Resource(widgetGVR).Namespace(ns)
	p := startWatch(t, "wg", "-n", ns, "-o", "json", "--max-events", "3")

	w := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "example.com/v1",
		"kind":       "Widget",
		"metadata":   map[string]interface{}{"name": "gizmo", "namespace": ns},
		"spec":       map[string]interface{}{"color": "red", "size": int64(3)},
	}}
	ctx := t.Context()
	if _, err := widgets.Create(ctx, w, metav1.CreateOptions{FieldManager: "e2e-creator"}); err != nil {
		t.Fatalf("creating widget: %v", err)
	}
	if _, err := widgets.Patch(ctx, "gizmo", types.MergePatchType, []byte(`{"spec":{"color":"blue"}}`), metav1.PatchOptions{FieldManager: "e2e-painter"}); err != nil {
		t.Fatalf("patching widget: %v", err)
	}
	if err := widgets.Delete(ctx, "gizmo", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("deleting widget: %v", err)
	}

	added := expectEvent(t, p, "ADDED", "gizmo")
	if added.Kind() != "Widget" || framework.NestedString(added.Object, "apiVersion") != "example.com/v1" {
		t.Errorf("ADDED object is %s %s, want example.com/v1 Widget", framework.NestedString(added.Object, "apiVersion"), added.Kind())
	}
	modified := expectEvent(t, p, "MODIFIED", "gizmo")
	ops := framework.PatchOps(t, modified)
	if len(ops) != 1 || ops[0]["op"] != "replace" || ops[0]["path"] != "/spec/color" || ops[0]["value"] != "blue" {
		t.Errorf("patch = %s, want [{replace /spec/color blue}]", modified.Patch)
	}
	framework.CheckPatch(t, added, modified, "resourceVersion", "generation", "managedFields")
	if !slices.Equal(modified.Managers, []string{"e2e-painter/Update"}) {
		t.Errorf("managers = %q, want [e2e-painter/Update]", modified.Managers)
	}
	// A Widget has no finalizers and no graceful deletion: DELETED comes
	// straight after the update.
	expectEvent(t, p, "DELETED", "gizmo")
	expectExit0AndEOF(t, p)
}

// TestWatchWhere checks that a --where query reports objects entering it
// as ADDED and leaving it as DELETED, and nothing outside it.
func TestWatchWhere(t *testing.T) {
	t.Parallel()
	cs := framework.Current(t).AdminClient()
	const ns = "watch-where"
	framework.CreateNamespace(t, cs, ns)
	p := startWatch(t, "pods", "-n", ns, "-o", "json", "--where", "label:tier=web", "--max-events", "4")

	createPod(t, cs, ns, "moving", map[string]string{"tier": "db"}) // outside: not reported
	labelPod(t, cs, ns, "moving", "tier", "web")                    // enters
	labelPod(t, cs, ns, "moving", "version", "2")                   // changes inside
	labelPod(t, cs, ns, "moving", "tier", "db")                     // leaves
	labelPod(t, cs, ns, "moving", "version", "3")                   // changes outside: not reported
	createPod(t, cs, ns, "sentinel", map[string]string{"tier": "web"})

	// Had the create of a tier=db pod been reported, the first event would
	// be an ADDED without the note.
	entered := expectEvent(t, p, "ADDED", "moving")
	if entered.Note != "entered query" {
		t.Errorf("first event note = %q, want %q: %s", entered.Note, "entered query", entered.Line)
	}
	if got := framework.NestedString(entered.Object, "metadata", "labels", "tier"); got != "web" {
		t.Errorf("entered object label tier = %q, want web", got)
	}
	changed := expectEvent(t, p, "MODIFIED", "moving")
	if paths := patchPaths(t, changed); !slices.Equal(paths, []string{"add /metadata/labels/version"}) {
		t.Errorf("update inside the query: patch %q, want [add /metadata/labels/version]", paths)
	}
	framework.CheckPatch(t, entered, changed, "resourceVersion", "generation", "managedFields")
	left := expectEvent(t, p, "DELETED", "moving")
	if left.Note != "left query" {
		t.Errorf("DELETED note = %q, want %q: %s", left.Note, "left query", left.Line)
	}
	// The last state is the one that is no longer in the query.
	if got := framework.NestedString(left.Object, "metadata", "labels", "tier"); got != "db" {
		t.Errorf("left object label tier = %q, want db", got)
	}
	// Had the update outside the query been reported, it would come here.
	sentinel := expectEvent(t, p, "ADDED", "sentinel")
	if sentinel.Note != "" {
		t.Errorf("a pod created inside the query has note %q, want none", sentinel.Note)
	}
	expectExit0AndEOF(t, p)
}

// TestWatchSeveralTypes watches pods and configmaps in one run.
func TestWatchSeveralTypes(t *testing.T) {
	t.Parallel()
	cs := framework.Current(t).AdminClient()
	const ns = "watch-types"
	framework.CreateNamespace(t, cs, ns)
	p := startWatch(t, "pods,configmaps", "-n", ns, "-o", "json", "--max-events", "2")
	if !strings.Contains(p.Stderr(), "synced pods: 0, configmaps: 0;") {
		t.Errorf("stderr does not name both types: %q", p.Stderr())
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "settings", Namespace: ns}, Data: map[string]string{"k": "v"}}
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(t.Context(), cm, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating configmap: %v", err)
	}
	createPod(t, cs, ns, "app", nil)

	// The types have informers of their own, so their events may come in
	// either order.
	got := map[string]bool{}
	for range 2 {
		ev := nextEvent(t, p)
		if ev.Type != "ADDED" {
			t.Errorf("event %s, want ADDED", ev)
		}
		got[ev.Kind()+"/"+ev.Name()] = true
	}
	if !got["ConfigMap/settings"] || !got["Pod/app"] {
		t.Errorf("events for %v, want ConfigMap/settings and Pod/app", got)
	}
	expectExit0AndEOF(t, p)
}

// TestWatchSeveralNamespaces watches -n a,b: the events of both namespaces,
// none of a third.
func TestWatchSeveralNamespaces(t *testing.T) {
	t.Parallel()
	cs := framework.Current(t).AdminClient()
	for _, ns := range []string{"watch-ns-a", "watch-ns-b", "watch-ns-c"} {
		framework.CreateNamespace(t, cs, ns)
	}
	p := startWatch(t, "pods", "-n", "watch-ns-a,watch-ns-b", "-o", "json", "--max-events", "2")
	createPod(t, cs, "watch-ns-c", "outside", nil)
	createPod(t, cs, "watch-ns-a", "one", nil)
	createPod(t, cs, "watch-ns-b", "two", nil)
	got := map[string]bool{}
	for range 2 {
		ev := nextEvent(t, p)
		got[framework.NestedString(ev.Object, "metadata", "namespace")+"/"+ev.Name()] = ev.Type == "ADDED"
	}
	if len(got) != 2 || !got["watch-ns-a/one"] || !got["watch-ns-b/two"] {
		t.Errorf("events %v, want ADDED watch-ns-a/one and watch-ns-b/two (and nothing of watch-ns-c)", got)
	}
	expectExit0AndEOF(t, p)
}

// TestWatchOnlyAndIgnore checks that --only and --ignore leave changes out of
// events, not just out of diffs: a change that is all left out prints
// nothing.
func TestWatchOnlyAndIgnore(t *testing.T) {
	t.Parallel()
	cs := framework.Current(t).AdminClient()
	const ns = "watch-filter"
	framework.CreateNamespace(t, cs, ns)
	createPod(t, cs, ns, "web", map[string]string{"tier": "web"})
	only := startWatch(t, "pods", "-n", ns, "-o", "json", "--only", "metadata.labels", "--max-events", "2")
	ignore := startWatch(t, "pods", "-n", ns, "-o", "json", "--ignore", "metadata.annotations", "--max-events", "3")

	patchPod(t, cs, ns, "web", "e2e-annotator", `{"metadata":{"annotations":{"note":"one"}}}`)
	labelPod(t, cs, ns, "web", "tier", "db")
	patchPod(t, cs, ns, "web", "e2e-annotator", `{"metadata":{"annotations":{"note":"two"}},"spec":{"activeDeadlineSeconds":60}}`)
	labelPod(t, cs, ns, "web", "tier", "cache")

	// --only metadata.labels: the annotation change and the annotation and
	// spec change print nothing, so the two label changes are the first
	// two events.
	for _, tier := range []string{"db", "cache"} {
		ev := expectEvent(t, only, "MODIFIED", "web")
		ops := framework.PatchOps(t, ev)
		if len(ops) != 1 || ops[0]["path"] != "/metadata/labels/tier" || ops[0]["value"] != tier {
			t.Errorf("--only metadata.labels: patch %s, want one replace of /metadata/labels/tier with %q", ev.Patch, tier)
		}
	}
	expectExit0AndEOF(t, only)

	// --ignore metadata.annotations: the annotation-only change prints
	// nothing; the mixed change prints with the spec part only.
	wantPatches := [][]string{
		{"replace /metadata/labels/tier"},
		{"add /spec/activeDeadlineSeconds"},
		{"replace /metadata/labels/tier"},
	}
	for i, want := range wantPatches {
		ev := expectEvent(t, ignore, "MODIFIED", "web")
		if got := patchPaths(t, ev); !slices.Equal(got, want) {
			t.Errorf("--ignore metadata.annotations: event %d patch %q, want %q", i+1, got, want)
		}
	}
	expectExit0AndEOF(t, ignore)
}

// TestWatchInitialAndNames checks --initial and watching objects by name.
func TestWatchInitialAndNames(t *testing.T) {
	t.Parallel()
	cs := framework.Current(t).AdminClient()
	const ns = "watch-names"
	framework.CreateNamespace(t, cs, ns)
	createPod(t, cs, ns, "a", nil)
	createPod(t, cs, ns, "b", nil)

	initial := startWatch(t, "pods", "-n", ns, "-o", "json", "--initial", "--max-events", "3")
	seen := map[string]bool{}
	for range 2 {
		ev := nextEvent(t, initial)
		if ev.Type != "ADDED" {
			t.Errorf("--initial printed %s, want ADDED for each existing pod first", ev)
		}
		seen[ev.Name()] = true
	}
	if !seen["a"] || !seen["b"] {
		t.Fatalf("--initial printed ADDED for %v, want a and b", seen)
	}
	if strings.Contains(initial.Stderr(), "watching for changes") {
		t.Errorf("--initial also printed the synced line: %q", initial.Stderr())
	}
	oneInitial := startWatch(t, "pod/b", "-n", ns, "-o", "name", "--initial", "--max-events", "1")
	if line, err := oneInitial.NextLine(eventTimeout); err != nil || line != "ADDED pod/b" {
		t.Errorf("watch pod/b --initial -o name: first line %q (%v), want %q", line, err, "ADDED pod/b")
	}
	expectExit0AndEOF(t, oneInitial)

	byTypeSlashName := startWatch(t, "pod/a", "-n", ns, "-o", "json", "--max-events", "2")
	byTypeAndNames := startWatch(t, "pods", "a", "c", "-n", ns, "-o", "json", "--max-events", "4")
	if !strings.Contains(byTypeSlashName.Stderr(), "synced pods: 1;") {
		t.Errorf("watch pod/a caches more than pod a: %q", byTypeSlashName.Stderr())
	}

	labelPod(t, cs, ns, "b", "step", "1")
	labelPod(t, cs, ns, "a", "step", "2")
	createPod(t, cs, ns, "c", nil)
	labelPod(t, cs, ns, "c", "step", "3")
	labelPod(t, cs, ns, "b", "step", "4")
	labelPod(t, cs, ns, "a", "step", "5")

	// The watch started before the changes sees them after its initial
	// ADDED events.
	expectEvent(t, initial, "MODIFIED", "b")
	expectExit0AndEOF(t, initial)

	for _, w := range []struct {
		name string
		p    *framework.Process
		want []string
	}{
		{"watch pod/a", byTypeSlashName, []string{"MODIFIED a", "MODIFIED a"}},
		{"watch pods a c", byTypeAndNames, []string{"MODIFIED a", "ADDED c", "MODIFIED c", "MODIFIED a"}},
	} {
		for i, want := range w.want {
			ev := nextEvent(t, w.p)
			if got := ev.Type + " " + ev.Name(); got != want {
				t.Errorf("%s: event %d = %s, want %s", w.name, i+1, ev, want)
			}
		}
		expectExit0AndEOF(t, w.p)
	}
}

// TestWatchSecretValues checks that text diffs hide Secret values unless
// --show-secret-values is given.
func TestWatchSecretValues(t *testing.T) {
	t.Parallel()
	cs := framework.Current(t).AdminClient()
	const ns = "watch-secrets"
	framework.CreateNamespace(t, cs, ns)
	hidden := startWatch(t, "secrets", "-n", ns, "--color", "never", "--max-events", "2")
	shown := startWatch(t, "secrets", "-n", ns, "--color", "never", "--max-events", "2", "--show-secret-values")

	const oldValue, newValue = "hunter2-e2e", "swordfish-e2e"
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "creds", Namespace: ns},
		Data:       map[string][]byte{"password": []byte(oldValue)},
	}
	if _, err := cs.CoreV1().Secrets(ns).Create(t.Context(), secret, metav1.CreateOptions{FieldManager: "e2e-creator"}); err != nil {
		t.Fatalf("creating secret: %v", err)
	}
	patch := fmt.Sprintf(`{"data":{"password":%q}}`, base64.StdEncoding.EncodeToString([]byte(newValue)))
	if _, err := cs.CoreV1().Secrets(ns).Patch(t.Context(), "creds", types.MergePatchType, []byte(patch), metav1.PatchOptions{FieldManager: "e2e-rotator"}); err != nil {
		t.Fatalf("patching secret: %v", err)
	}

	oldB64 := base64.StdEncoding.EncodeToString([]byte(oldValue))
	newB64 := base64.StdEncoding.EncodeToString([]byte(newValue))
	for _, tc := range []struct {
		name string
		p    *framework.Process
		diff string
	}{
		{"default", hidden, "    ~ data.password: (hidden)"},
		{"--show-secret-values", shown, fmt.Sprintf("    ~ data.password: %q → %q", oldB64, newB64)},
	} {
		want := []string{
			"ADDED    secret/creds -n " + ns,
			"MODIFIED secret/creds -n " + ns + "  (by e2e-rotator/Update)",
			tc.diff,
		}
		for i, w := range want {
			line, err := tc.p.NextLine(eventTimeout)
			if err != nil {
				t.Fatalf("%s: line %d: %v", tc.name, i+1, err)
			}
			if line != w {
				t.Errorf("%s: line %d = %q, want %q", tc.name, i+1, line, w)
			}
		}
		expectExit0AndEOF(t, tc.p)
	}
	out := hidden.Stdout()
	for _, secret := range []string{oldValue, newValue, oldB64, newB64} {
		if strings.Contains(out, secret) {
			t.Errorf("watch secrets without --show-secret-values printed %q:\n%s", secret, out)
		}
	}
}
