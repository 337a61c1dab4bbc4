package manifest

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-informer/kubectl-informer/internal/realdump"
)

func TestScanKinds(t *testing.T) {
	pod := schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	deploy := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	tests := []struct {
		name string
		data string
		want []schema.GroupVersionKind
		any  bool
	}{
		{"one object", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n", []schema.GroupVersionKind{pod}, false},
		{"quoted values and a comment", "apiVersion: 'v1'\nkind: \"Pod\" # a pod\nmetadata: {name: a}\n", []schema.GroupVersionKind{pod}, false},
		{"documents", "---\napiVersion: v1\nkind: Pod\n---\n# x\n---\napiVersion: apps/v1\nkind: Deployment\n", []schema.GroupVersionKind{pod, deploy}, false},
		{"a list, items at column 0", "apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata:\n    ownerReferences:\n    - apiVersion: apps/v1\n      kind: ReplicaSet\n- kind: Deployment\n  apiVersion: apps/v1\nkind: List\n", []schema.GroupVersionKind{pod, deploy}, false},
		{"a list, items indented", "apiVersion: v1\nkind: List\nitems:\n  -\n    apiVersion: v1\n    kind: Pod\n", []schema.GroupVersionKind{pod}, false},
		{"a typed list without item kinds", "apiVersion: v1\nkind: PodList\nitems:\n- metadata:\n    name: a\n", []schema.GroupVersionKind{pod}, false},
		{"an empty list", "apiVersion: v1\nitems: []\nkind: List\n", nil, false},
		{"events name other kinds deeper", "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Event\n  involvedObject:\n    kind: Pod\n", []schema.GroupVersionKind{{Version: "v1", Kind: "Event"}}, false},
		{"a block scalar", "apiVersion: v1\nkind: ConfigMap\ndata:\n  x: |\n    kind: Secret\n", []schema.GroupVersionKind{{Version: "v1", Kind: "ConfigMap"}}, false},
		{"a report, not an object", "header:\n  cluster_id: 1\nmembers: []\n", nil, false},
		{"a JSON object", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","labels":{"kind":"x"}}}`, []schema.GroupVersionKind{pod}, false},
		{"a JSON typed list", `{"kind":"PodList","apiVersion":"v1","items":[{"metadata":{"name":"a"}},{"kind":"Pod","apiVersion":"v1"}]}`, []schema.GroupVersionKind{pod}, false},
		{"a JSON stream and array", "{\"apiVersion\":\"v1\",\"kind\":\"Pod\"}\n[{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\"}]", []schema.GroupVersionKind{pod, deploy}, false},
		{"a JSON report", `{"header":{"cluster_id":1},"members":[{"name":"a"}]}`, nil, false},
		{"flow style", "{apiVersion: v1, kind: Pod}\n", nil, true},
		{"a flow item", "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Pod, metadata: {name: a}}\n", nil, true},
		{"an anchor", "apiVersion: v1\nkind: &k Pod\n", nil, true},
		{"a merge key in an item", "apiVersion: v1\nkind: List\nitems:\n- <<: *base\n  metadata: {name: a}\n", nil, true},
		{"prose", "Hello,\nthe cluster broke at noon.\n", nil, true},
		{"a second document without kind", "apiVersion: v1\nkind: Pod\n---\nmetadata: {name: x}\n", nil, true},
		{"an item of a List without kind", "apiVersion: v1\nkind: List\nitems:\n- metadata: {name: a}\n", nil, true},
		{"a line broken by a lone carriage return", "apiVersion: A\rkind: A\nmetadata:\n name: A", nil, true},
		{"a line broken by a line separator", "apiVersion: v1\u2028kind: Pod\nmetadata:\n name: a\n", nil, true},
		{"lines ended by CRLF", "apiVersion: v1\r\nkind: Pod\r\n", []schema.GroupVersionKind{pod}, false},
		{"tabs", "apiVersion: v1\nkind: List\nitems:\n-\tkind: Pod\n", nil, true},
		{"a kind on two lines", "apiVersion: v1\nkind: Pod\n  Template\nmetadata:\n  name: a\n", nil, true},
		{"an item's apiVersion on two lines", "apiVersion: v1\nkind: List\nitems:\n- apiVersion: apps/\n    v1\n  kind: Deployment\n", nil, true},
		{"a kind on the next line", "apiVersion: v1\nkind:\n  Pod\n", nil, true},
		{"an escaped JSON key", `{"apiVersion":"v1","ki\u006ed":"Pod"}`, nil, true},
		{"truncated JSON", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":`, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, any := scanKinds([]byte(tt.data))
			if !reflect.DeepEqual(got, tt.want) || any != tt.any {
				t.Errorf("scanKinds(%q) = %v, %v, want %v, %v", tt.data, got, any, tt.want, tt.any)
			}
		})
	}
}

// FuzzScanKinds checks the scan's promise: every object the decoder reads
// from a file is of a kind the scan found, unless the scan could not tell.
func FuzzScanKinds(f *testing.F) {
	f.Add([]byte(podListJSON))
	f.Add([]byte("apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: a}\n---\n"))
	f.Add([]byte("apiVersion: v1\nkind: PodList\nitems:\n  - metadata:\n      name: a\n"))
	f.Add([]byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a"}}` + "\n" + `[{"apiVersion":"v1","kind":"Pod","metadata":{"name":"b"}}]`))
	f.Add([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  x: |\n    kind: Secret\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		kinds, any := scanKinds(data)
		if any {
			return
		}
		var got []runtime.Object
		d := &decoder{opts: Options{MaxDocumentBytes: 1 << 16, MaxDepth: 64}.withDefaults(), name: "fuzz", add: func(o runtime.Object) { got = append(got, o) }}
		err := d.decode(bytes.NewReader(data))
		if err != nil && len(got) == 0 && d.doc <= 1 {
			// A file skipped, or one whose error the scan's "no kinds"
			// leaves unread.
			return
		}
		for _, o := range got {
			gvk := o.GetObjectKind().GroupVersionKind()
			found := false
			for _, k := range kinds {
				found = found || k == gvk
			}
			if !found {
				t.Fatalf("scanKinds(%q) = %v, but the decoder reads a %v", data, kinds, gvk)
			}
		}
	})
}

func TestLayoutResource(t *testing.T) {
	tests := []struct {
		layout layout
		rel    string
		want   schema.GroupResource
		ok     bool
	}{
		{mustGather, "namespaces/shop/core/pods.yaml", schema.GroupResource{Resource: "pods"}, true},
		{mustGather, "namespaces/shop/pods/web-1/web-1.yaml", schema.GroupResource{Resource: "pods"}, true},
		{mustGather, "namespaces/shop/shop.yaml", schema.GroupResource{Resource: "namespaces"}, true},
		{mustGather, "namespaces/shop/apps/deployments.yaml", schema.GroupResource{Group: "apps", Resource: "deployments"}, true},
		{mustGather, "namespaces/shop/route.openshift.io/routes/web.yaml", schema.GroupResource{Group: "route.openshift.io", Resource: "routes"}, true},
		{mustGather, "cluster-scoped-resources/core/nodes/node-1.yaml", schema.GroupResource{Resource: "nodes"}, true},
		{mustGather, "cluster-scoped-resources/config.openshift.io/clusterversions.yaml", schema.GroupResource{Group: "config.openshift.io", Resource: "clusterversions"}, true},
		{mustGather, "namespaces/shop/pods/web-1/web/web/logs/current.log", schema.GroupResource{}, false},
		{mustGather, "web_hooks/validatingwebhookconfigurations.yaml", schema.GroupResource{}, false},
		{mustGather, "etcd_info/member_list.json", schema.GroupResource{}, false},
		{clusterInfoDump, "nodes.json", schema.GroupResource{Resource: "nodes"}, true},
		{clusterInfoDump, "shop/replication-controllers.json", schema.GroupResource{Resource: "replicationcontrollers"}, true},
		{clusterInfoDump, "shop/deployments.yaml", schema.GroupResource{Group: "apps", Resource: "deployments"}, true},
		{clusterInfoDump, "shop/web-1/logs.txt", schema.GroupResource{}, false},
		{clusterInfoDump, "shop/extra.json", schema.GroupResource{}, false},
	}
	for _, tt := range tests {
		got, ok := layoutResource(tt.layout, tt.rel)
		if got != tt.want || ok != tt.ok {
			t.Errorf("layoutResource(%v, %q) = %v, %v, want %v, %v", tt.layout, tt.rel, got, ok, tt.want, tt.ok)
		}
	}
}

// opener counts the files a read opens.
type opener struct {
	mu     sync.Mutex
	opened []string
}

func (o *opener) open(path string) (io.ReadCloser, error) {
	o.mu.Lock()
	o.opened = append(o.opened, path)
	o.mu.Unlock()
	return os.Open(path)
}

// take returns the files opened since the last take, relative to root.
func (o *opener) take(t *testing.T, root string) []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []string
	for _, p := range o.opened {
		rel, err := filepath.Rel(root, p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, filepath.ToSlash(rel))
	}
	o.opened = nil
	sort.Strings(out)
	return out
}

var (
	realOnce sync.Once
	realRoot string
	realErr  error
)

// realMustGather unpacks the real must-gather once for the package's
// tests and returns its root.
func realMustGather(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("unpacks an 83 MB must-gather")
	}
	realOnce.Do(func() {
		dir, err := os.MkdirTemp("", "manifest-must-gather-")
		if err != nil {
			realErr = err
			return
		}
		realRoot, realErr = realdump.Unpack(dir)
	})
	if realErr != nil {
		t.Fatal(realErr)
	}
	return realRoot
}

func TestMain(m *testing.M) {
	code := m.Run()
	if realRoot != "" {
		os.RemoveAll(strings.TrimSuffix(realRoot, realdump.Root))
	}
	os.Exit(code)
}

// objectKeys lists kind namespace/name@resourceVersion of objects, sorted.
func objectKeys(objects []runtime.Object, kind string) []string {
	var keys []string
	for _, obj := range objects {
		gvk := obj.GetObjectKind().GroupVersionKind()
		if kind != "" && gvk.Kind != kind {
			continue
		}
		m, _ := meta.Accessor(obj)
		keys = append(keys, fmt.Sprintf("%s %s %s/%s@%s", gvk.GroupVersion(), gvk.Kind, m.GetNamespace(), m.GetName(), m.GetResourceVersion()))
	}
	sort.Strings(keys)
	return keys
}

// podFiles matches the files of a must-gather that hold pods.
var podFiles = regexp.MustCompile(`^namespaces/[^/]+/(core/pods\.yaml|pods/([^/]+)/([^/]+)\.yaml)$`)

// TestDumpReadsOnlyPodsFiles opens the real must-gather, asks for its pods,
// and checks which files were opened: at the start only those the layout
// does not name (scanned for their kinds), then only the files of pods;
// and that the pods, each in two files, are the whole read's, once each.
func TestDumpReadsOnlyPodsFiles(t *testing.T) {
	root := realMustGather(t)
	o := &opener{}
	d, err := Options{Open: o.open}.OpenDump([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range o.take(t, root) {
		if strings.HasPrefix(p, "namespaces/") || strings.HasPrefix(p, "cluster-scoped-resources/") {
			t.Errorf("OpenDump opened %s, which the layout names", p)
		}
	}
	decodedBefore := d.decoded
	pods, err := d.Read([]schema.GroupResource{{Resource: "pods"}}, []schema.GroupKind{{Kind: "Pod"}})
	if err != nil {
		t.Fatal(err)
	}
	opened := o.take(t, root)
	// The namespaces' lists are decoded; a pod's own file only where it
	// holds a newer copy than the list.
	if decoded := d.decoded - decodedBefore; decoded >= len(opened) || decoded < 56 {
		t.Errorf("Read(pods) decoded %d of the %d files it opened, want the 56 lists and the pod files newer than them", decoded, len(opened))
	}
	t.Logf("Read(pods) opened %d files and decoded %d", len(opened), d.decoded-decodedBefore)
	var want []string
	err = filepath.WalkDir(root, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if m := podFiles.FindStringSubmatch(filepath.ToSlash(rel)); m != nil && m[2] == m[3] {
			want = append(want, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(want)
	if !reflect.DeepEqual(opened, want) {
		t.Errorf("Read(pods) opened %d files, want the %d files of pods; the others: %v", len(opened), len(want), difference(opened, want))
	}
	whole, err := Options{}.ReadObjects([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	got, wantPods := objectKeys(pods, "Pod"), objectKeys(whole, "Pod")
	if len(got) != 239 || !reflect.DeepEqual(got, wantPods) {
		t.Errorf("Read(pods) = %d pods, want the whole read's %d (239)", len(got), len(wantPods))
	}
	if len(objectKeys(pods, "")) != len(got) {
		t.Errorf("Read(pods) returned %d objects, want only its %d pods", len(objectKeys(pods, "")), len(got))
	}
	// Asking again opens nothing and returns nothing new.
	again, err := d.Read([]schema.GroupResource{{Resource: "pods"}}, nil)
	if err != nil || len(again) != 0 || len(o.take(t, root)) != 0 {
		t.Errorf("Read(pods) again = %d objects, %v, and opened files; want none", len(again), err)
	}
	rest, err := d.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if all := objectKeys(append(pods, rest...), ""); !reflect.DeepEqual(all, objectKeys(whole, "")) {
		t.Errorf("Read(pods) then ReadAll = %d objects, want the whole read's %d", len(all), len(objectKeys(whole, "")))
	}
	for _, p := range o.take(t, root) {
		if !strings.HasSuffix(p, ".yaml") && !strings.HasSuffix(p, ".yml") && !strings.HasSuffix(p, ".json") {
			t.Errorf("ReadAll opened %s, which holds no objects", p)
		}
	}
}

func difference(a, b []string) []string {
	in := map[string]bool{}
	for _, s := range b {
		in[s] = true
	}
	var out []string
	for _, s := range a {
		if !in[s] {
			out = append(out, s)
		}
	}
	if len(out) > 5 {
		out = append(out[:5], "…")
	}
	return out
}

// TestDumpDuplicates checks that an object in several files is kept once,
// as a whole read keeps it, whichever file a question reads first.
func TestDumpDuplicates(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, content string) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pod := func(name, rv, image string) string {
		return fmt.Sprintf("- apiVersion: v1\n  kind: Pod\n  metadata: {name: %s, namespace: shop, resourceVersion: %q}\n  spec: {containers: [{name: c, image: %s}]}\n", name, rv, image)
	}
	write("timestamp", "2026-11-26 10:00:00.5 +0000 UTC m=+0.1\n")
	write("namespaces/shop/core/pods.yaml", "apiVersion: v1\nkind: List\nitems:\n"+pod("a", "10", "old")+pod("b", "x", "first"))
	write("namespaces/shop/pods/a/a.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: a, namespace: shop, resourceVersion: \"12\"}\nspec: {containers: [{name: c, image: new}]}\n")
	write("namespaces/shop/pods/b/b.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: b, namespace: shop, resourceVersion: \"y\"}\nspec: {containers: [{name: c, image: last}]}\n")
	write("extra/pods.yaml", "apiVersion: v1\nkind: List\nitems:\n"+pod("a", "11", "older"))
	whole, err := Options{}.ReadObjects([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	d, err := Options{}.OpenDump([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	got, err := d.Read([]schema.GroupResource{{Resource: "pods"}}, []schema.GroupKind{{Kind: "Pod"}})
	if err != nil {
		t.Fatal(err)
	}
	if g, w := objectKeys(got, ""), objectKeys(whole, ""); !reflect.DeepEqual(g, w) || len(g) != 2 {
		t.Errorf("Read(pods) = %v, want the whole read's %v", g, w)
	}
}

func TestDumpTime(t *testing.T) {
	t.Run("must-gather", func(t *testing.T) {
		root := realMustGather(t)
		// The must-gather's own timestamp file says when its gathering
		// ended; the archive's top folder's, when the whole run ended.
		for _, tt := range []struct {
			path, from string
			want       time.Time
		}{
			{root, root, time.Date(2021, 8, 3, 10, 13, 47, 364145495, time.UTC)},
			{filepath.Dir(root), filepath.Dir(root), time.Date(2021, 8, 3, 10, 14, 13, 0, time.UTC)},
		} {
			d, err := Options{}.OpenDump([]string{tt.path})
			if err != nil {
				t.Fatal(err)
			}
			got, err := d.Time()
			from := "timestamp file " + filepath.Join(tt.from, "timestamp")
			if err != nil || got.Time.Truncate(time.Second) != tt.want.Truncate(time.Second) || !got.Stamped || got.From != from {
				t.Errorf("OpenDump(%s).Time() = %+v, %v, want %v from %s", tt.path, got, err, tt.want, from)
			}
		}
	})
	t.Run("cluster-info dump", func(t *testing.T) {
		dir := filepath.Join("testdata", "cluster-info")
		o := &opener{}
		d, err := Options{Open: o.open}.OpenDump([]string{dir})
		if err != nil {
			t.Fatal(err)
		}
		if opened := o.take(t, dir); len(opened) != 0 {
			t.Errorf("OpenDump opened %v, want none: the layout names every file", opened)
		}
		pods, err := d.Read([]schema.GroupResource{{Resource: "pods"}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if opened, want := o.take(t, dir), []string{"default/pods.json", "kube-system/pods.json"}; !reflect.DeepEqual(opened, want) || len(pods) != 2 {
			t.Errorf("Read(pods) opened %v and read %d pods, want %v and 2", opened, len(pods), want)
		}
		got, err := d.Time()
		want := time.Date(2026, 11, 26, 10, 2, 31, 0, time.UTC)
		if err != nil || !got.Time.Equal(want) || got.Stamped || got.From != "lastTimestamp in "+filepath.Join(dir, "default", "events.json") {
			t.Errorf("Time() = %+v, %v, want %v from lastTimestamp in default/events.json", got, err, want)
		}
	})
	t.Run("no time", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "pod.yaml")
		if err := os.WriteFile(p, []byte("apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		d, err := Options{}.OpenDump([]string{p})
		if err != nil {
			t.Fatal(err)
		}
		if got, err := d.Time(); err != ErrNoDumpTime {
			t.Errorf("Time() = %+v, %v, want ErrNoDumpTime", got, err)
		}
	})
}

func TestScanIdentity(t *testing.T) {
	tests := []struct {
		name string
		data string
		want identity
		ok   bool
	}{
		{"a pod", "---\napiVersion: v1\nkind: Pod\nmetadata:\n  annotations:\n    a: b\n  labels: {app: web}\n  name: web-1\n  namespace: shop\n  ownerReferences:\n  - name: rs\n  resourceVersion: \"42\"\nspec: {}\n",
			identity{key: objectKey{kind: "Pod", namespace: "shop", name: "web-1"}, resourceVersion: "42"}, true},
		{"a group", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n    name: web\n    resourceVersion: '7'\n",
			identity{key: objectKey{group: "apps", kind: "Deployment", name: "web"}, resourceVersion: "7"}, true},
		{"no resourceVersion", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n", identity{}, false},
		{"two documents", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n  resourceVersion: \"1\"\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: b\n  resourceVersion: \"1\"\n", identity{}, false},
		{"flow metadata", "apiVersion: v1\nkind: Pod\nmetadata: {name: a, resourceVersion: \"1\"}\n", identity{}, false},
		{"a list", "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n", identity{}, false},
		{"JSON", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","resourceVersion":"1"}}`, identity{}, false},
	}
	for _, tt := range tests {
		got, ok := scanIdentity([]byte(tt.data))
		if ok != tt.ok || ok && got != tt.want {
			t.Errorf("%s: scanIdentity() = %+v, %v, want %+v, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}

// TestDumpErrors checks that a file that does not decode is reported with
// its path and line when it is read: at once when its kinds cannot be told
// (a directory without a layout), when its type is asked in a must-gather.
func TestDumpErrors(t *testing.T) {
	truncated := "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: apps/v1, kind: Deployment, metadata: {name: web\n"
	t.Run("no layout", func(t *testing.T) {
		dir := t.TempDir()
		p := filepath.Join(dir, "gather", "namespaces", "shop", "apps", "deployments.yaml")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(truncated), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Options{}.OpenDump([]string{filepath.Join(dir, "gather")})
		if err == nil || !strings.Contains(err.Error(), p+": document 1: yaml: line 4") {
			t.Errorf("OpenDump() = %v, want the file's error with its line", err)
		}
	})
	t.Run("must-gather", func(t *testing.T) {
		dir := t.TempDir()
		p := filepath.Join(dir, "namespaces", "shop", "apps", "deployments.yaml")
		for path, content := range map[string]string{
			p: truncated,
			filepath.Join(dir, "namespaces", "shop", "core", "pods.yaml"): "apiVersion: v1\nkind: List\nitems: []\n",
			filepath.Join(dir, "timestamp"):                               "2026-11-26 01:00:00 +0000 UTC\n",
		} {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		d, err := Options{}.OpenDump([]string{dir})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := d.Read([]schema.GroupResource{{Resource: "pods"}}, nil); err != nil {
			t.Errorf("Read(pods) = %v, want no error: the bad file holds deployments", err)
		}
		_, err = d.Read([]schema.GroupResource{{Group: "apps", Resource: "deployments"}}, nil)
		if err == nil || !strings.Contains(err.Error(), p+": document 1: yaml: line 4") {
			t.Errorf("Read(deployments) = %v, want the file's error with its line", err)
		}
	})
}
