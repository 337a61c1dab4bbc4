package stress

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

var widgetGVR = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}

// installWidgets installs the Widget CRD (hack/seed crd): spec and status
// keep unknown fields, so tests can put any structure under them.
func installWidgets(t *testing.T) dynamic.NamespaceableResourceInterface {
	t.Helper()
	if out, err := framework.Current(t).Seed("crd"); err != nil {
		t.Fatal(err)
	} else {
		t.Log(strings.TrimSpace(out))
	}
	return framework.Current(t).AdminDynamicClient().Resource(widgetGVR)
}

func newWidget(namespace, name string, spec map[string]interface{}) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "example.com/v1",
		"kind":       "Widget",
		"metadata":   map[string]interface{}{"name": name, "namespace": namespace},
		"spec":       spec,
	}}
}

// textWatches starts the text watches of a test, compact and unified diffs,
// each ending after maxEvents events.
func textWatches(t *testing.T, typ, namespace string, maxEvents int) (compact, unified *framework.Process) {
	t.Helper()
	n := fmt.Sprint(maxEvents)
	compact = startWatch(t, typ, "-n", namespace, "--color", "never", "--max-events", n)
	unified = startWatch(t, typ, "-n", namespace, "--color", "never", "--diff", "unified", "--max-events", n)
	return compact, unified
}

// waitOutput waits until p has exited and returns its whole standard output.
func waitOutput(t *testing.T, p *framework.Process) string {
	t.Helper()
	for {
		if _, err := p.NextLine(eventTimeout); err != nil {
			break
		}
	}
	select {
	case <-p.Done():
	case <-time.After(eventTimeout):
		t.Fatalf("watch has not ended %s after its last line, though --max-events was reached; stdout:\n%.4000s\nstderr:\n%s", eventTimeout, p.Stdout(), p.Stderr())
	}
	res := p.Wait()
	if res.ExitCode != 0 {
		t.Fatalf("watch: %.4000s\nwant exit code 0", res)
	}
	return res.Stdout
}

// unsafeRune reports whether r must not reach a terminal raw: C0 controls
// but newline, DEL, C1 controls, the line and paragraph separators and the
// bidirectional formatting characters.
func unsafeRune(r rune) bool {
	switch {
	case r == '\n':
		return false
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	case r == 0x61c, r == 0x200e, r == 0x200f, r >= 0x2028 && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// expectSafeText fails the test if text output has a raw control,
// bidirectional or invalid UTF-8 character, quoting the line it is on.
func expectSafeText(t *testing.T, what, out string) {
	t.Helper()
	for i, line := range strings.Split(out, "\n") {
		for j, r := range line {
			if unsafeRune(r) || r == utf8.RuneError && !strings.HasPrefix(line[j:], "\uFFFD") {
				t.Errorf("%s: line %d has raw %U at byte %d: %.300q", what, i+1, r, j, line)
				break
			}
		}
	}
}

func mustJSON(t *testing.T, v interface{}) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("encoding %T: %v", v, err)
	}
	return string(b)
}

// diffLines returns the lines of a text watch's output that are not event
// headers: the diff of the updates.
func diffLines(out string) []string {
	var lines []string
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if strings.HasPrefix(l, "    ") || strings.HasPrefix(l, "--- ") || strings.HasPrefix(l, "+++ ") ||
			strings.HasPrefix(l, "@@ ") || strings.HasPrefix(l, " ") || strings.HasPrefix(l, "-") || strings.HasPrefix(l, "+") {
			lines = append(lines, l)
		}
	}
	return lines
}

// unifiedChanges returns the removed and added lines of a unified diff,
// without the --- and +++ headers.
func unifiedChanges(out string) (removed, added []string) {
	for _, l := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(l, "--- "), strings.HasPrefix(l, "+++ "):
		case strings.HasPrefix(l, "-"):
			removed = append(removed, l)
		case strings.HasPrefix(l, "+"):
			added = append(added, l)
		}
	}
	return removed, added
}

// queryList runs `kubectl informer query ARGS -o json|yaml` and returns the
// items of the List it prints.
func queryList(t *testing.T, format string, args ...string) []map[string]interface{} {
	t.Helper()
	res := informer(t, append(append([]string{"query"}, args...), "-o", format)...)
	var list struct {
		Items []map[string]interface{} `json:"items"`
	}
	var err error
	if format == "yaml" {
		err = yaml.Unmarshal([]byte(res.Stdout), &list)
	} else {
		err = json.Unmarshal([]byte(res.Stdout), &list)
	}
	if err != nil {
		t.Fatalf("query %s -o %s printed no list: %v\n%.2000s", strings.Join(args, " "), format, err, res.Stdout)
	}
	return list.Items
}

// hugeLines is the number of 64-byte lines of each large ConfigMap value.
const hugeLines = 1024

// hugeValue is a config-file-like value of hugeLines lines of 64 bytes.
func hugeValue(key string, changedLine int) string {
	var b strings.Builder
	for i := range hugeLines {
		text := "the quick brown fox"
		if i == changedLine {
			text = "THE QUICK BROWN CAT"
		}
		line := fmt.Sprintf("%s line %04d: %s", key, i, text)
		b.WriteString(line)
		b.WriteString(strings.Repeat(".", 63-len(line)))
		b.WriteByte('\n')
	}
	return b.String()
}

// TestHugeConfigMap creates a ConfigMap of about 1 MiB (15 config-file-like
// values of 64 KiB and one 40 KB single-line value) and changes one line of
// one value, then one byte of the single-line value. The watch must print
// both updates promptly, with diffs that are bounded by the change, not by
// the object: compact diffs cut values at 200 bytes, unified diffs show
// only the hunk around the changed line, and the JSON Patch replaces only
// the changed key. Queries print it in every format.
func TestHugeConfigMap(t *testing.T) {
	t.Parallel()
	cs := framework.Current(t).AdminClient()
	const ns = "stress-huge"
	framework.CreateNamespace(t, cs, ns)
	compact, unified := textWatches(t, "configmaps", ns, 3)
	jsonWatch := startWatch(t, "configmaps", "-n", ns, "-o", "json", "--max-events", "3")

	data := map[string]string{}
	for i := range 15 {
		key := fmt.Sprintf("key-%02d", i)
		data[key] = hugeValue(key, -1)
	}
	blob := strings.Repeat("0123456789abcdef", 2500) // 40,000 bytes, one line
	data["blob"] = blob
	size := 0
	for k, v := range data {
		size += len(k) + len(v)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "huge", Namespace: ns}, Data: data}
	ctx := t.Context()
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{FieldManager: "e2e-creator"}); err != nil {
		t.Fatalf("creating a ConfigMap of %d bytes: %v", size, err)
	}
	t.Logf("ConfigMap huge: %d keys, %d bytes of data", len(data), size)

	changed := hugeValue("key-07", 500)
	patch := mustJSON(t, map[string]interface{}{"data": map[string]string{"key-07": changed}})
	if _, err := cs.CoreV1().ConfigMaps(ns).Patch(ctx, "huge", types.MergePatchType, []byte(patch), metav1.PatchOptions{FieldManager: "e2e-editor"}); err != nil {
		t.Fatalf("changing one line of key-07: %v", err)
	}
	blobChanged := blob[:20000] + "X" + blob[20001:]
	patch = mustJSON(t, map[string]interface{}{"data": map[string]string{"blob": blobChanged}})
	if _, err := cs.CoreV1().ConfigMaps(ns).Patch(ctx, "huge", types.MergePatchType, []byte(patch), metav1.PatchOptions{FieldManager: "e2e-editor"}); err != nil {
		t.Fatalf("changing one byte of blob: %v", err)
	}

	// -o json: the ADDED object is the whole ConfigMap; each patch replaces
	// the one changed value.
	added := expectEvent(t, jsonWatch, "ADDED", "huge")
	if got := framework.Nested(added.Object, "data"); !reflect.DeepEqual(got, toInterfaceMap(data)) {
		t.Errorf("ADDED object data differs from what was created (%d bytes)", size)
	}
	prev := added
	for _, step := range []struct{ key, value string }{{"key-07", changed}, {"blob", blobChanged}} {
		ev := expectEvent(t, jsonWatch, "MODIFIED", "huge")
		ops := framework.PatchOps(t, ev)
		if len(ops) != 1 || ops[0]["op"] != "replace" || ops[0]["path"] != "/data/"+step.key || ops[0]["value"] != step.value {
			t.Errorf("patch of the change to %s: %.500s, want one replace of /data/%s", step.key, ev.Patch, step.key)
		}
		if limit := len(mustJSON(t, step.value)) + 200; len(ev.Patch) > limit {
			t.Errorf("patch of the change to %s is %d bytes, want at most %d: the value and little else", step.key, len(ev.Patch), limit)
		}
		framework.CheckPatch(t, prev, ev, "resourceVersion", "generation")
		prev = ev
	}

	// Compact: one line per change, values cut.
	out := waitOutput(t, compact)
	expectSafeText(t, "watch compact", out)
	want := []*regexp.Regexp{
		regexp.MustCompile(`^    ~ data\.key-07: "key-07 line 0000: the quick brown fox[^"]*… \(65536 bytes\) → "key-07 line 0000: [^"]*… \(65536 bytes\)$`),
		regexp.MustCompile(`^    ~ data\.blob: "0123456789abcdef[0-9a-f]*… \(40000 bytes\) → "0123456789abcdef[0-9a-f]*… \(40000 bytes\)$`),
	}
	lines := diffLines(out)
	if len(lines) != len(want) {
		t.Errorf("compact diff has %d lines, want %d:\n%.3000s", len(lines), len(want), out)
	}
	for i := range min(len(lines), len(want)) {
		if !want[i].MatchString(lines[i]) {
			t.Errorf("compact diff line %d = %.600q, want to match %s", i+1, lines[i], want[i])
		}
		if len(lines[i]) > 600 {
			t.Errorf("compact diff line %d is %d bytes, want at most 600", i+1, len(lines[i]))
		}
	}
	t.Logf("watch compact: %d bytes in all", len(out))

	// Unified: the hunk around the changed line, not the 64 KiB value.
	out = waitOutput(t, unified)
	expectSafeText(t, "watch --diff unified", out)
	first, second, _ := strings.Cut(out, "MODIFIED configmap/huge -n "+ns+"  (by e2e-editor/Update)\n--- configmap/huge (old)\n+++ configmap/huge (new)\n@@")
	if first == out {
		t.Fatalf("unified output has no diff for the update:\n%.3000s", out)
	}
	keyDiff, blobDiff, _ := strings.Cut(second, "MODIFIED configmap/huge")
	removed, addedLines := unifiedChanges(keyDiff)
	wantRemoved := []string{"-    " + strings.Split(data["key-07"], "\n")[500]}
	wantAdded := []string{"+    " + strings.Split(changed, "\n")[500]}
	if !reflect.DeepEqual(removed, wantRemoved) || !reflect.DeepEqual(addedLines, wantAdded) {
		t.Errorf("unified diff of one changed line removes %q and adds %q, want %q and %q", removed, addedLines, wantRemoved, wantAdded)
	}
	if n := strings.Count(keyDiff, "\n"); n > 12 {
		t.Errorf("unified diff of one changed line has %d lines, want the hunk only:\n%.3000s", n, keyDiff)
	}
	// The single-line value: its start and the bytes around the change,
	// not the 40,000 bytes twice.
	removed, addedLines = unifiedChanges(blobDiff)
	if len(removed) != 1 || len(addedLines) != 1 ||
		!strings.Contains(removed[0], blob[19950:20050]) || !strings.Contains(addedLines[0], blobChanged[19950:20050]) ||
		!strings.HasSuffix(addedLines[0], "… (40008 bytes)") { // the line is "  blob: " and the value
		t.Errorf("unified diff of one changed byte of a 40,000-byte line removes %.300q and adds %.300q, want one line each with the bytes around the change", removed, addedLines)
	}
	if len(blobDiff) > 3000 {
		t.Errorf("unified diff of one changed byte of a 40,000-byte line is %d bytes, want at most 3000", len(blobDiff))
	}
	t.Logf("watch --diff unified: %d bytes for the changed line, %d bytes for the changed byte of the 40,000-byte line", len(keyDiff), len(blobDiff))

	// Query: the table and the structured formats.
	res := informer(t, "query", "configmaps", "-n", ns)
	if want := "NAME   DATA   AGE\nhuge   16     "; !strings.HasPrefix(res.Stdout, want) || strings.Count(res.Stdout, "\n") != 2 {
		t.Errorf("query configmaps = %q, want kubectl's table with one row", res.Stdout)
	}
	res = informer(t, "query", "configmaps", "-n", ns, "-o", "custom-columns=NAME:.metadata.name,VALUE:.data.key-03")
	expectSafeText(t, "query -o custom-columns", res.Stdout)
	if rows := strings.Split(strings.TrimSuffix(res.Stdout, "\n"), "\n"); len(rows) != 2 || !strings.Contains(rows[1], `key-03 line 1023: the quick brown fox`) || !strings.Contains(rows[1], `\n`) {
		t.Errorf("query -o custom-columns with a 64 KiB multi-line value: %d lines, want a header and one row with the value's newlines escaped", len(rows))
	}
	for _, format := range []string{"json", "yaml"} {
		items := queryList(t, format, "configmaps", "-n", ns)
		if len(items) != 1 {
			t.Fatalf("query -o %s printed %d items, want 1", format, len(items))
		}
		data["key-07"], data["blob"] = changed, blobChanged
		if got := framework.Nested(items[0], "data"); !reflect.DeepEqual(got, toInterfaceMap(data)) {
			t.Errorf("query -o %s: data differs from the ConfigMap's", format)
		}
	}
}

func toInterfaceMap(m map[string]string) map[string]interface{} {
	out := make(map[string]interface{}, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// deepDepth is how many maps deep the deep Widget nests.
const deepDepth = 100

// deepTree returns {"l": {"l": ... {"leaf": leaf, "list": [[[leaf]]]}}}
// nested depth maps deep.
func deepTree(depth int, leaf string) map[string]interface{} {
	tree := map[string]interface{}{"leaf": leaf, "list": []interface{}{[]interface{}{[]interface{}{leaf}}}}
	for range depth {
		tree = map[string]interface{}{"l": tree}
	}
	return tree
}

// TestDeepNesting changes the leaf of a Widget nested 100 maps deep: the
// diff names the one leaf at its full path in every output, and the queries
// print and extract it.
func TestDeepNesting(t *testing.T) {
	t.Parallel()
	cs := framework.Current(t).AdminClient()
	widgets := installWidgets(t)
	const ns = "stress-deep"
	framework.CreateNamespace(t, cs, ns)
	compact, unified := textWatches(t, "widgets", ns, 2)
	jsonWatch := startWatch(t, "widgets", "-n", ns, "-o", "json", "--max-events", "2")

	ctx := t.Context()
	w := newWidget(ns, "deep", map[string]interface{}{"color": "red", "tree": deepTree(deepDepth, "before")})
	if _, err := widgets.Namespace(ns).Create(ctx, w, metav1.CreateOptions{FieldManager: "e2e-creator"}); err != nil {
		t.Fatalf("creating a Widget nested %d deep: %v", deepDepth, err)
	}
	pointer := "/spec/tree" + strings.Repeat("/l", deepDepth)
	patch := fmt.Sprintf(`[{"op":"replace","path":%q,"value":"after"},{"op":"replace","path":%q,"value":"after"}]`, pointer+"/leaf", pointer+"/list/0/0/0")
	if _, err := widgets.Namespace(ns).Patch(ctx, "deep", types.JSONPatchType, []byte(patch), metav1.PatchOptions{FieldManager: "e2e-editor"}); err != nil {
		t.Fatalf("changing the leaves: %v", err)
	}

	added := expectEvent(t, jsonWatch, "ADDED", "deep")
	if got, want := framework.Nested(added.Object, "spec", "tree"), deepTree(deepDepth, "before"); !reflect.DeepEqual(got, want) {
		t.Errorf("ADDED object's tree differs from what was created")
	}
	modified := expectEvent(t, jsonWatch, "MODIFIED", "deep")
	var ops []diffOp
	if err := json.Unmarshal(modified.Patch, &ops); err != nil {
		t.Fatalf("decoding the patch: %v", err)
	}
	wantOps := []diffOp{{"replace", pointer + "/leaf", "after"}, {"replace", pointer + "/list/0/0/0", "after"}}
	if !reflect.DeepEqual(ops, wantOps) {
		t.Errorf("patch = %.1000s, want %v", modified.Patch, wantOps)
	}
	framework.CheckPatch(t, added, modified, "resourceVersion", "generation")

	path := "spec.tree" + strings.Repeat(".l", deepDepth)
	out := waitOutput(t, compact)
	wantDiff := []string{
		"    ~ " + path + ".leaf: \"before\" → \"after\"",
		"    ~ " + path + ".list[0][0][0]: \"before\" → \"after\"",
	}
	if got := diffLines(out); !reflect.DeepEqual(got, wantDiff) {
		t.Errorf("compact diff =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(wantDiff, "\n"))
	}

	out = waitOutput(t, unified)
	removed, addedLines := unifiedChanges(out)
	indent := strings.Repeat("  ", deepDepth+2)
	wantRemoved := []string{"-" + indent + "leaf: before", "-" + indent + "- - - before"}
	wantAdded := []string{"+" + indent + "leaf: after", "+" + indent + "- - - after"}
	if !reflect.DeepEqual(removed, wantRemoved) || !reflect.DeepEqual(addedLines, wantAdded) {
		t.Errorf("unified diff removes %q and adds %q, want %q and %q\n%s", removed, addedLines, wantRemoved, wantAdded, out)
	}

	for _, format := range []string{"json", "yaml"} {
		items := queryList(t, format, "widgets", "-n", ns)
		if len(items) != 1 || !reflect.DeepEqual(framework.Nested(items[0], "spec", "tree"), deepTree(deepDepth, "after")) {
			t.Errorf("query widgets -o %s does not print the tree as it is", format)
		}
	}
	res := informer(t, "query", "widgets", "-n", ns, "-o", "custom-columns=NAME:.metadata.name,LEAF:"+strings.ReplaceAll(path, "spec", ".spec")+".leaf,ANY:..leaf")
	if want := "NAME   LEAF    ANY\ndeep   after   after\n"; res.Stdout != want {
		t.Errorf("query -o custom-columns =\n%s\nwant\n%s", res.Stdout, want)
	}
	res = informer(t, "query", "widgets", "-n", ns, "--indexer", "leaf={"+strings.ReplaceAll(path, "spec", ".spec")+".leaf}", "--index", "leaf=after", "-o", "name")
	if want := "widget.example.com/deep\n"; res.Stdout != want {
		t.Errorf("query by an index on the deep leaf = %q, want %q", res.Stdout, want)
	}
}

// diffOp is a JSON Patch operation with a string value.
type diffOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value string `json:"value"`
}

// The hostile strings: terminal escapes (CSI, OSC with BEL), carriage
// return, NUL, DEL, a C1 control, bidirectional overrides (the "Trojan
// Source" kind), the line separator, and plain non-ASCII text, which must
// come through as it is.
const (
	hostile      = "esc\x1b[2J\x1b]0;pwned\x07 cr\roverwrite nul\x00 del\x7f c1\u009b1m rlo\u202eevil\u202c ls\u2028 tab\tnl\nend: ünïcödé 日本語 🙂"
	hostileAfter = hostile + " and\x1b[31m more\x1b[0m"
	// hostileKey is a map key only custom resources may have.
	hostileKey = "key\x1b[1m\u202ebold"
)

// TestControlCharacters puts terminal escapes, controls and bidirectional
// overrides into an annotation and data values of a ConfigMap and into the
// keys and values of a Widget, changes them, and checks every text output
// (watch compact and unified, query tables, custom columns, group-by)
// escapes them, while watch -o json and -o yaml and query -o json and -o
// yaml give back the exact values. The API refuses them in names, label
// values and ConfigMap keys; the test checks that too, so it knows which
// paths cluster data can take.
func TestControlCharacters(t *testing.T) {
	t.Parallel()
	cs := framework.Current(t).AdminClient()
	widgets := installWidgets(t)
	const ns = "stress-ctrl"
	framework.CreateNamespace(t, cs, ns)
	ctx := t.Context()

	for _, bad := range []*corev1.ConfigMap{
		{ObjectMeta: metav1.ObjectMeta{Name: "bad-label", Namespace: ns, Labels: map[string]string{"k": "a\x1bb"}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "bad-key", Namespace: ns}, Data: map[string]string{"a\x1bb": "v"}},
		{ObjectMeta: metav1.ObjectMeta{Name: "bad-\u202ename", Namespace: ns}},
	} {
		if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, bad, metav1.CreateOptions{}); !apierrors.IsInvalid(err) {
			t.Errorf("creating ConfigMap %q: %v, want Invalid (the test assumes the API refuses control characters there)", bad.Name, err)
		}
	}

	cmCompact, cmUnified := textWatches(t, "configmaps", ns, 2)
	cmJSON := startWatch(t, "configmaps", "-n", ns, "-o", "json", "--max-events", "2")
	cmYAML := startWatch(t, "configmaps", "-n", ns, "-o", "yaml", "--max-events", "2")
	cmColor := startWatch(t, "configmaps", "-n", ns, "--color", "always", "--max-events", "2")
	wgCompact, wgUnified := textWatches(t, "widgets", ns, 2)
	wgJSON := startWatch(t, "widgets", "-n", ns, "-o", "json", "--max-events", "2")

	const annotation = "stress.example.com/hostile"
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "hostile", Namespace: ns, Labels: map[string]string{"tier": "web"}, Annotations: map[string]string{annotation: hostile}},
		Data:       map[string]string{"value": hostile},
	}
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{FieldManager: "e2e-creator"}); err != nil {
		t.Fatalf("creating the ConfigMap: %v", err)
	}
	patch := mustJSON(t, map[string]interface{}{
		"metadata": map[string]interface{}{"annotations": map[string]string{annotation: hostileAfter}},
		"data":     map[string]string{"value": hostileAfter, "added": hostile},
	})
	if _, err := cs.CoreV1().ConfigMaps(ns).Patch(ctx, "hostile", types.MergePatchType, []byte(patch), metav1.PatchOptions{FieldManager: "e2e-editor"}); err != nil {
		t.Fatalf("patching the ConfigMap: %v", err)
	}
	spec := map[string]interface{}{"color": "red", "labels": map[string]interface{}{hostileKey: hostile, "plain": "x"}}
	if _, err := widgets.Namespace(ns).Create(ctx, newWidget(ns, "hostile", spec), metav1.CreateOptions{FieldManager: "e2e-creator"}); err != nil {
		t.Fatalf("creating the Widget: %v", err)
	}
	patch = mustJSON(t, map[string]interface{}{"spec": map[string]interface{}{"labels": map[string]interface{}{hostileKey: hostileAfter, hostile: "new"}}})
	if _, err := widgets.Namespace(ns).Patch(ctx, "hostile", types.MergePatchType, []byte(patch), metav1.PatchOptions{FieldManager: "e2e-editor"}); err != nil {
		t.Fatalf("patching the Widget: %v", err)
	}

	// Structured output gives back the exact values.
	added := expectEvent(t, cmJSON, "ADDED", "hostile")
	modified := expectEvent(t, cmJSON, "MODIFIED", "hostile")
	for _, c := range []struct {
		ev          watchEvent
		path        []string
		want        string
		description string
	}{
		{added, []string{"metadata", "annotations", annotation}, hostile, "ADDED annotation"},
		{added, []string{"data", "value"}, hostile, "ADDED data value"},
		{modified, []string{"metadata", "annotations", annotation}, hostileAfter, "MODIFIED annotation"},
		{modified, []string{"data", "value"}, hostileAfter, "MODIFIED data value"},
		{modified, []string{"data", "added"}, hostile, "MODIFIED added data value"},
	} {
		if got := framework.NestedString(c.ev.Object, c.path...); got != c.want {
			t.Errorf("watch -o json: %s = %q, want %q", c.description, got, c.want)
		}
	}
	framework.CheckPatch(t, added, modified, "resourceVersion", "generation")
	wgAdded := expectEvent(t, wgJSON, "ADDED", "hostile")
	wgModified := expectEvent(t, wgJSON, "MODIFIED", "hostile")
	if got := framework.Nested(wgAdded.Object, "spec", "labels"); !reflect.DeepEqual(got, map[string]interface{}{hostileKey: hostile, "plain": "x"}) {
		t.Errorf("watch widgets -o json: ADDED spec.labels = %q", got)
	}
	if got := framework.Nested(wgModified.Object, "spec", "labels"); !reflect.DeepEqual(got, map[string]interface{}{hostileKey: hostileAfter, hostile: "new", "plain": "x"}) {
		t.Errorf("watch widgets -o json: MODIFIED spec.labels = %q", got)
	}
	framework.CheckPatch(t, wgAdded, wgModified, "resourceVersion", "generation")

	yamlOut := waitOutput(t, cmYAML)
	docs := strings.Split(strings.TrimPrefix(yamlOut, "---\n"), "\n---\n")
	if len(docs) != 2 {
		t.Fatalf("watch -o yaml printed %d documents, want 2:\n%q", len(docs), yamlOut)
	}
	for i, want := range []string{hostile, hostileAfter} {
		var ev struct {
			Object map[string]interface{} `json:"object"`
		}
		if err := yaml.Unmarshal([]byte(docs[i]), &ev); err != nil {
			t.Fatalf("watch -o yaml document %d: %v\n%q", i+1, err, docs[i])
		}
		if got := framework.NestedString(ev.Object, "data", "value"); got != want {
			t.Errorf("watch -o yaml document %d: data.value = %q, want %q", i+1, got, want)
		}
		if got := framework.NestedString(ev.Object, "metadata", "annotations", annotation); got != want {
			t.Errorf("watch -o yaml document %d: annotation = %q, want %q", i+1, got, want)
		}
	}

	// Text output escapes them, and still shows them.
	escapedAfter := `"esc\u001b[2J\u001b]0;pwned\u0007 cr\roverwrite nul\u0000 del\u007f c1\u009b1m rlo\u202eevil\u202c ls\u2028 tab\tnl\nend: ünïcödé 日本語 🙂 and\u001b[31m more\u001b[0m"`
	for _, c := range []struct {
		name string
		p    *framework.Process
		want []string // lines the output must have
	}{
		{"watch configmaps", cmCompact, []string{
			"    + data.added: " + escapedAfter[:len(escapedAfter)-len(` and\u001b[31m more\u001b[0m"`)] + `"`,
			"    ~ data.value: " + escapedAfter[:len(escapedAfter)-len(` and\u001b[31m more\u001b[0m"`)] + `" → ` + escapedAfter,
		}},
		{"watch configmaps --diff unified", cmUnified, []string{
			// YAML's own escapes, in a double-quoted scalar it folds.
			`-  value: "esc\e[2J\e]0;pwned\a cr\roverwrite nul\0 del`,
		}},
		{"watch widgets", wgCompact, []string{
			`    + spec.labels["esc\u001b[2J\u001b]0;pwned\u0007 cr\roverwrite nul\u0000 del\u007f c1\u009b1m rlo\u202eevil\u202c ls\u2028 tab\tnl\nend: ünïcödé 日本語 🙂"]: "new"`,
			`    ~ spec.labels["key\u001b[1m\u202ebold"]: "esc\u001b[2J`,
		}},
		{"watch widgets --diff unified", wgUnified, nil},
	} {
		out := waitOutput(t, c.p)
		expectSafeText(t, c.name, out)
		for _, want := range c.want {
			found := false
			for _, line := range strings.Split(out, "\n") {
				if strings.HasPrefix(line, want) {
					found = true
				}
			}
			if !found {
				t.Errorf("%s: no line starts with\n%s\noutput:\n%s", c.name, want, out)
			}
		}
		if !strings.Contains(out, "MODIFIED") || !strings.Contains(out, `\u001b`) && !strings.Contains(out, `\e`) {
			t.Errorf("%s: the update or its escaped values are missing:\n%s", c.name, out)
		}
	}
	// With colours on, the only escapes are the plugin's own SGR sequences.
	colored := waitOutput(t, cmColor)
	plain := regexp.MustCompile(`\x1b\[[0-9;]*m`).ReplaceAllString(colored, "")
	expectSafeText(t, "watch --color always, without its own colours", plain)
	if plain == colored {
		t.Errorf("watch --color always printed no colours:\n%q", colored)
	}

	// Queries: tables escape, structured formats give back.
	for _, q := range []struct {
		args  []string
		shows bool // the output has the hostile value in it
	}{
		{[]string{"configmaps", "-n", ns}, false},
		{[]string{"configmaps", "-n", ns, "-o", "wide"}, false},
		{[]string{"configmaps", "-n", ns, "--group-by", "annotation:" + annotation}, true},
		{[]string{"configmaps", "-n", ns, "--index", "label:tier=web", "--indexer", "v={.data.value}", "--group-by", "v"}, true},
		{[]string{"configmaps", "-n", ns, "-o", "custom-columns=NAME:.metadata.name,VALUE:.data.value,NOTE:.metadata.annotations.stress\\.example\\.com/hostile"}, true},
		{[]string{"widgets", "-n", ns, "-o", "custom-columns=NAME:.metadata.name,LABELS:.spec.labels"}, true},
		{[]string{"widgets", "-n", ns, "--indexer", "v={.spec.labels.*}", "--group-by", "v"}, true},
	} {
		res := informer(t, append([]string{"query"}, q.args...)...)
		what := "query " + strings.Join(q.args, " ")
		expectSafeText(t, what, res.Stdout)
		if q.shows && !strings.Contains(res.Stdout, `\u001b[2J`) {
			t.Errorf("%s does not show the escaped value:\n%s", what, res.Stdout)
		}
	}
	for _, format := range []string{"json", "yaml"} {
		items := queryList(t, format, "configmaps", "-n", ns)
		if len(items) != 1 {
			t.Fatalf("query configmaps -o %s printed %d items, want 1", format, len(items))
		}
		if got := framework.NestedString(items[0], "data", "value"); got != hostileAfter {
			t.Errorf("query -o %s: data.value = %q, want %q", format, got, hostileAfter)
		}
		if got := framework.NestedString(items[0], "metadata", "annotations", annotation); got != hostileAfter {
			t.Errorf("query -o %s: annotation = %q, want %q", format, got, hostileAfter)
		}
		items = queryList(t, format, "widgets", "-n", ns)
		if len(items) != 1 || framework.NestedString(items[0], "spec", "labels", hostileKey) != hostileAfter || framework.NestedString(items[0], "spec", "labels", hostile) != "new" {
			t.Errorf("query widgets -o %s does not give back the hostile keys and values", format)
		}
	}
}

// TestReorderedLists reorders the env of a container and the containers of
// a Deployment. pkg/diff matches lists of named elements by name, so a
// reorder alone is no change in the text diff, and a change inside a
// reordered list reads as the one field that changed. The JSON Patch works
// by index: -o json prints the reorder too, and each event's patch turns
// the object of the previous event into its own.
func TestReorderedLists(t *testing.T) {
	t.Parallel()
	cs := framework.Current(t).AdminClient()
	const ns = "stress-order"
	framework.CreateNamespace(t, cs, ns)
	compact := startWatch(t, "deployments", "-n", ns, "--color", "never", "--max-events", "3")
	jsonWatch := startWatch(t, "deployments", "-n", ns, "-o", "json", "--max-events", "4")

	env := func(pairs ...string) []corev1.EnvVar {
		var out []corev1.EnvVar
		for i := 0; i < len(pairs); i += 2 {
			out = append(out, corev1.EnvVar{Name: pairs[i], Value: pairs[i+1]})
		}
		return out
	}
	labels := map[string]string{"app": "web"}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{
					{Name: "main", Image: "registry.example.com/web:v1", Env: env("A", "1", "B", "2", "C", "3")},
					{Name: "sidecar", Image: "registry.example.com/proxy:v1"},
				}},
			},
		},
	}
	ctx := t.Context()
	deployments := cs.AppsV1().Deployments(ns)
	if _, err := deployments.Create(ctx, d, metav1.CreateOptions{FieldManager: "e2e-creator"}); err != nil {
		t.Fatalf("creating the deployment: %v", err)
	}
	update := func(what string, change func(*appsv1.Deployment)) {
		t.Helper()
		cur, err := deployments.Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("getting the deployment: %v", err)
		}
		change(cur)
		if _, err := deployments.Update(ctx, cur, metav1.UpdateOptions{FieldManager: "e2e-editor"}); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	// 1. env reordered and one value changed.
	update("reordering env", func(d *appsv1.Deployment) {
		d.Spec.Template.Spec.Containers[0].Env = env("C", "3", "A", "1", "B", "two")
	})
	// 2. containers reordered, nothing else.
	update("reordering containers", func(d *appsv1.Deployment) {
		c := d.Spec.Template.Spec.Containers
		c[0], c[1] = c[1], c[0]
	})
	// 3. an image changed in the reordered list.
	update("changing the sidecar image", func(d *appsv1.Deployment) {
		d.Spec.Template.Spec.Containers[0].Image = "registry.example.com/proxy:v2"
	})

	// Text: the reorder of the containers prints nothing. The field
	// manager's entry has a time to the second, so the last update, by
	// the same manager within the same second, may show no "(by ...)".
	out := waitOutput(t, compact)
	want := []string{
		"^ADDED    deployment.apps/web -n " + ns + "$",
		"^MODIFIED deployment.apps/web -n " + ns + "  \\(by e2e-editor/Update\\)$",
		`^    ~ spec\.template\.spec\.containers\[name=main\]\.env\[name=B\]\.value: "2" → "two"$`,
		"^MODIFIED deployment.apps/web -n " + ns + "(  \\(by e2e-editor/Update\\))?$",
		`^    ~ spec\.template\.spec\.containers\[name=sidecar\]\.image: "registry\.example\.com/proxy:v1" → "registry\.example\.com/proxy:v2"$`,
	}
	got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	ok := len(got) == len(want)
	for i := range min(len(got), len(want)) {
		ok = ok && regexp.MustCompile(want[i]).MatchString(got[i])
	}
	if !ok {
		t.Errorf("watch deployments =\n%s\nwant (the containers' reorder is no change) lines matching\n%s", out, strings.Join(want, "\n"))
	}

	// JSON: every update is an event, the reorder included, and each patch
	// turns the previous event's object into its own.
	prev := expectEvent(t, jsonWatch, "ADDED", "web")
	for _, step := range []string{"env reordered, B changed", "containers reordered", "sidecar image changed"} {
		ev := expectEvent(t, jsonWatch, "MODIFIED", "web")
		if len(framework.PatchOps(t, ev)) == 0 {
			t.Errorf("%s: empty patch", step)
		}
		framework.CheckPatch(t, prev, ev, "resourceVersion", "generation")
		if t.Failed() {
			t.Logf("%s: %s", step, ev)
		}
		prev = ev
	}
}

// TestNullVersusMissing sets Widget fields from missing to null, from null
// to a value, back to null and to missing: the differ tells null from
// missing in the compact diff and the JSON Patch, and -o json keeps nulls.
func TestNullVersusMissing(t *testing.T) {
	t.Parallel()
	cs := framework.Current(t).AdminClient()
	widgets := installWidgets(t)
	const ns = "stress-null"
	framework.CreateNamespace(t, cs, ns)
	steps := []struct {
		patch       string
		wantDiff    string
		wantPatch   string
		description string
	}{
		{`[{"op":"add","path":"/spec/extra","value":null}]`, `    + spec.extra: null`, `[{"op":"add","path":"/spec/extra","value":null}]`, "missing to null"},
		{`[{"op":"replace","path":"/spec/extra","value":"x"}]`, `    ~ spec.extra: null → "x"`, `[{"op":"replace","path":"/spec/extra","value":"x"}]`, "null to a value"},
		{`[{"op":"replace","path":"/spec/extra","value":null}]`, `    ~ spec.extra: "x" → null`, `[{"op":"replace","path":"/spec/extra","value":null}]`, "a value to null"},
		{`[{"op":"remove","path":"/spec/note"}]`, `    - spec.note: null`, `[{"op":"remove","path":"/spec/note"}]`, "null to missing"},
		{`[{"op":"add","path":"/spec/empty","value":{}}]`, `    + spec.empty: {}`, `[{"op":"add","path":"/spec/empty","value":{}}]`, "missing to an empty map"},
		{`[{"op":"replace","path":"/spec/empty","value":null}]`, `    ~ spec.empty: {} → null`, `[{"op":"replace","path":"/spec/empty","value":null}]`, "an empty map to null"},
	}
	n := fmt.Sprint(len(steps) + 1)
	compact := startWatch(t, "widgets", "-n", ns, "--color", "never", "--max-events", n)
	jsonWatch := startWatch(t, "widgets", "-n", ns, "-o", "json", "--max-events", n)

	ctx := t.Context()
	w := newWidget(ns, "nulls", map[string]interface{}{"color": "red", "note": nil})
	if _, err := widgets.Namespace(ns).Create(ctx, w, metav1.CreateOptions{FieldManager: "e2e-creator"}); err != nil {
		t.Fatalf("creating the Widget: %v", err)
	}
	for _, step := range steps {
		if _, err := widgets.Namespace(ns).Patch(ctx, "nulls", types.JSONPatchType, []byte(step.patch), metav1.PatchOptions{FieldManager: "e2e-editor"}); err != nil {
			t.Fatalf("%s: %v", step.description, err)
		}
	}

	prev := expectEvent(t, jsonWatch, "ADDED", "nulls")
	if spec, _ := framework.Nested(prev.Object, "spec").(map[string]interface{}); spec == nil || !hasNull(spec, "note") {
		t.Errorf("ADDED object spec = %v, want note: null kept", framework.Nested(prev.Object, "spec"))
	}
	var wantDiff []string
	for _, step := range steps {
		ev := expectEvent(t, jsonWatch, "MODIFIED", "nulls")
		if got := string(ev.Patch); got != step.wantPatch {
			t.Errorf("%s: patch %s, want %s", step.description, got, step.wantPatch)
		}
		framework.CheckPatch(t, prev, ev, "resourceVersion", "generation")
		prev = ev
		wantDiff = append(wantDiff, step.wantDiff)
	}
	out := waitOutput(t, compact)
	if got := diffLines(out); !reflect.DeepEqual(got, wantDiff) {
		t.Errorf("compact diffs =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(wantDiff, "\n"))
	}
	items := queryList(t, "json", "widgets", "-n", ns)
	if len(items) != 1 {
		t.Fatalf("query widgets -o json printed %d items, want 1", len(items))
	}
	if spec, _ := framework.Nested(items[0], "spec").(map[string]interface{}); !hasNull(spec, "extra") || !hasNull(spec, "empty") || spec["note"] != nil || hasNull(spec, "note") {
		t.Errorf("query -o json: spec = %v, want extra and empty null and note missing", spec)
	}
}

// hasNull reports whether m has key with a null value.
func hasNull(m map[string]interface{}, key string) bool {
	v, ok := m[key]
	return ok && v == nil
}
