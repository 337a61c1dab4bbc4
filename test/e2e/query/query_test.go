// Package query tests kubectl informer query end to end: the built plugin,
// run through the real kubectl, against a real kube-apiserver and etcd.
package query

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

func TestMain(m *testing.M) {
	framework.Main(m)
}

// The seeded data: pod-<i> in namespace q-<i%3>, on node-<i%4>, running
// registry.example.com/image-<i%3>:v1, labelled app=app-<i%5>; widgets with
// spec.color from a fixed palette.
const (
	seededPods = 60
	namespaces = 3
	nodes      = 4
)

var seeded bool

func seed(t *testing.T) *framework.Cluster {
	t.Helper()
	framework.SkipIfShort(t)
	c := framework.Current(t)
	if seeded {
		return c
	}
	for _, args := range [][]string{
		{"pods", "--count", fmt.Sprint(seededPods), "--namespaces", fmt.Sprint(namespaces), "--nodes", fmt.Sprint(nodes),
			"--images", "3", "--apps", "5", "--namespace-prefix", "q-"},
		{"widgets", "--count", "20", "--namespaces", "2", "--namespace-prefix", "q-"},
	} {
		if out, err := c.Seed(args...); err != nil {
			t.Fatalf("seed %v: %v\n%s", args, err, out)
		}
	}
	seeded = true
	return c
}

// informer runs kubectl informer ARGS as the admin user.
func informer(t *testing.T, args ...string) framework.Result {
	t.Helper()
	return framework.Run(t, framework.Cmd{Args: append([]string{"informer"}, args...)})
}

func mustSucceed(t *testing.T, r framework.Result) {
	t.Helper()
	if r.ExitCode != 0 {
		t.Fatalf("command failed: %s", r)
	}
}

// podNames lists pod names from the API server that satisfy keep.
func podNames(t *testing.T, c *framework.Cluster, keep func(p *corev1.Pod) bool) []string {
	t.Helper()
	pods, err := c.AdminClient().CoreV1().Pods("").List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatalf("listing pods: %v", err)
	}
	var names []string
	for i := range pods.Items {
		if keep(&pods.Items[i]) {
			names = append(names, "pod/"+pods.Items[i].Name)
		}
	}
	sort.Strings(names)
	return names
}

func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	sort.Strings(out)
	return out
}

func TestBuiltinIndexes(t *testing.T) {
	c := seed(t)
	tests := []struct {
		name string
		args []string
		keep func(p *corev1.Pod) bool
	}{
		{"node", []string{"--index", "node=node-1"}, func(p *corev1.Pod) bool { return p.Spec.NodeName == "node-1" }},
		{"namespace", []string{"--index", "namespace=q-2"}, func(p *corev1.Pod) bool { return p.Namespace == "q-2" }},
		{"label", []string{"--index", "label:app=app-3"}, func(p *corev1.Pod) bool { return p.Labels["app"] == "app-3" }},
		{"image", []string{"--index", "image=registry.example.com/image-2:v1"}, func(p *corev1.Pod) bool {
			return strings.HasPrefix(p.Namespace, "q-") && p.Spec.Containers[0].Image == "registry.example.com/image-2:v1"
		}},
		{"phase", []string{"--index", "phase=Pending"}, func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodPending }},
		{"two indexes ANDed", []string{"--index", "node=node-2", "--index", "label:app=app-0"}, func(p *corev1.Pod) bool {
			return p.Spec.NodeName == "node-2" && p.Labels["app"] == "app-0"
		}},
		{"label selector sent to the server", []string{"-l", "app=app-1", "--index", "node=node-3"}, func(p *corev1.Pod) bool {
			return p.Labels["app"] == "app-1" && p.Spec.NodeName == "node-3"
		}},
		{"field selector sent to the server", []string{"--field-selector", "spec.nodeName=node-0", "--index", "namespace=q-1"}, func(p *corev1.Pod) bool {
			return p.Spec.NodeName == "node-0" && p.Namespace == "q-1"
		}},
		// Selector operators, with the label-selector grammar.
		{"not equal", []string{"--index", "node!=node-1", "--index", "namespace=q-0"}, func(p *corev1.Pod) bool {
			return p.Namespace == "q-0" && p.Spec.NodeName != "node-1"
		}},
		{"in", []string{"--index", "node in (node-1,node-2)"}, func(p *corev1.Pod) bool {
			return p.Spec.NodeName == "node-1" || p.Spec.NodeName == "node-2"
		}},
		{"notin", []string{"--index", "label:app notin (app-0, app-1)", "--index", "namespace==q-1"}, func(p *corev1.Pod) bool {
			return p.Namespace == "q-1" && p.Labels["app"] != "app-0" && p.Labels["app"] != "app-1"
		}},
		{"has a value", []string{"--index", "label:app", "--index", "namespace=q-2"}, func(p *corev1.Pod) bool {
			_, ok := p.Labels["app"]
			return ok && p.Namespace == "q-2"
		}},
		{"has no value", []string{"--index", "!label:example.com/nosuch", "--index", "namespace in (q-0,q-2)"}, func(p *corev1.Pod) bool {
			_, ok := p.Labels["example.com/nosuch"]
			return !ok && (p.Namespace == "q-0" || p.Namespace == "q-2")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := podNames(t, c, tt.keep)
			if len(want) == 0 {
				t.Fatalf("the seeded data has no pod for this case; the test would prove nothing")
			}
			r := informer(t, append([]string{"query", "pods", "-A", "-o", "name"}, tt.args...)...)
			mustSucceed(t, r)
			if got := lines(r.Stdout); strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("query %v = %v, want %v", tt.args, got, want)
			}
		})
	}
}

func TestOwnerIndexes(t *testing.T) {
	c := seed(t)
	ctx := t.Context()
	cm, err := c.AdminClient().CoreV1().ConfigMaps("q-0").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating owner configmap: %v", err)
	}
	owned := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owned", OwnerReferences: []metav1.OwnerReference{
		{APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: cm.UID},
	}}}
	if _, err := c.AdminClient().CoreV1().ConfigMaps("q-0").Create(ctx, owned, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating owned configmap: %v", err)
	}
	for _, args := range [][]string{
		{"--index", "owner=ConfigMap/owner"},
		{"--index", "owner-uid=" + string(cm.UID)},
	} {
		r := informer(t, append([]string{"query", "cm", "-n", "q-0", "-o", "name"}, args...)...)
		mustSucceed(t, r)
		if got := strings.TrimSpace(r.Stdout); got != "configmap/owned" {
			t.Errorf("query cm %v = %q, want configmap/owned", args, got)
		}
	}
}

func TestCustomJSONPathIndexOnCustomResources(t *testing.T) {
	c := seed(t)
	dyn, err := dynamic.NewForConfig(c.AdminConfig())
	if err != nil {
		t.Fatal(err)
	}
	widgets, err := dyn.Resource(schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}).
		Namespace("").List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatalf("listing widgets: %v", err)
	}
	var want []string
	for _, w := range widgets.Items {
		if color, _, _ := unstructuredString(w.Object, "spec", "color"); color == "red" {
			want = append(want, "widget.example.com/"+w.GetName())
		}
	}
	sort.Strings(want)
	if len(want) == 0 {
		t.Fatal("no red widget was seeded; the test would prove nothing")
	}
	for _, typ := range []string{"widgets.example.com", "wg", "widget"} {
		r := informer(t, "query", typ, "-A", "--indexer", "color={.spec.color}", "--index", "color=red", "-o", "name")
		mustSucceed(t, r)
		if got := lines(r.Stdout); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("query %s --index color=red = %v, want %v", typ, got, want)
		}
	}
}

func unstructuredString(obj map[string]interface{}, fields ...string) (string, bool, error) {
	var cur interface{} = obj
	for _, f := range fields {
		m, ok := cur.(map[string]interface{})
		if !ok {
			return "", false, nil
		}
		cur = m[f]
	}
	s, ok := cur.(string)
	return s, ok, nil
}

func TestGroupBy(t *testing.T) {
	seed(t)
	r := informer(t, "query", "pods", "-A", "-l", "app.kubernetes.io/managed-by=kubectl-informer-seed", "--group-by", "node")
	mustSucceed(t, r)
	got := strings.Split(strings.TrimSpace(r.Stdout), "\n")
	if len(got) != nodes+1 || !strings.HasPrefix(got[0], "NODE") || !strings.Contains(got[0], "COUNT") {
		t.Fatalf("group-by node printed:\n%s\nwant a NODE, COUNT header and %d rows", r.Stdout, nodes)
	}
	for _, row := range got[1:] {
		fields := strings.Fields(row)
		if len(fields) != 2 || fields[1] != fmt.Sprint(seededPods/nodes) {
			t.Errorf("group-by row %q, want NODE %d", row, seededPods/nodes)
		}
	}
}

func TestSeveralTypesInOneRun(t *testing.T) {
	seed(t)
	r := informer(t, "query", "po,wg", "-n", "q-1", "--index", "namespace=q-1")
	mustSucceed(t, r)
	// One table per type, as kubectl get prints them: each type's
	// columns, names with their kind, the queried index last.
	tables := strings.Split(r.Stdout, "\n\n")
	want := []struct{ header, kind string }{
		{"NAME READY STATUS RESTARTS AGE NAMESPACE", "pod/"},
		{"NAME COLOR SIZE AGE NAMESPACE", "widget.example.com/"},
	}
	if len(tables) != len(want) {
		t.Fatalf("query po,wg printed %d tables, want %d:\n%s", len(tables), len(want), r.Stdout)
	}
	for i, w := range want {
		rows := strings.Split(strings.TrimSpace(tables[i]), "\n")
		if h := strings.Join(strings.Fields(rows[0]), " "); h != w.header {
			t.Errorf("table %d header = %q, want %q", i+1, h, w.header)
		}
		for _, row := range rows[1:] {
			if !strings.HasPrefix(row, w.kind) || !strings.HasSuffix(row, "q-1") {
				t.Errorf("table %d row %q, want a name starting %q and namespace q-1 last", i+1, row, w.kind)
			}
		}
	}
}

func TestOutputFormats(t *testing.T) {
	c := seed(t)
	want := podNames(t, c, func(p *corev1.Pod) bool { return p.Namespace == "q-0" && p.Spec.NodeName == "node-1" })
	base := []string{"query", "pods", "-n", "q-0", "--index", "node=node-1"}

	t.Run("json", func(t *testing.T) {
		r := informer(t, append(base, "-o", "json")...)
		mustSucceed(t, r)
		var list corev1.List
		if err := json.Unmarshal([]byte(r.Stdout), &list); err != nil {
			t.Fatalf("-o json is not a List: %v", err)
		}
		checkListItems(t, list, want)
	})
	t.Run("yaml", func(t *testing.T) {
		r := informer(t, append(base, "-o", "yaml")...)
		mustSucceed(t, r)
		var list corev1.List
		if err := yaml.Unmarshal([]byte(r.Stdout), &list); err != nil {
			t.Fatalf("-o yaml is not a List: %v", err)
		}
		checkListItems(t, list, want)
	})
	t.Run("jsonpath", func(t *testing.T) {
		r := informer(t, append(base, "-o", "jsonpath={range .items[*]}{.spec.nodeName}{\"\\n\"}{end}")...)
		mustSucceed(t, r)
		got := lines(r.Stdout)
		if len(got) != len(want) || got[0] != "node-1" || got[len(got)-1] != "node-1" {
			t.Errorf("-o jsonpath printed %v, want %d lines of node-1", got, len(want))
		}
	})
	t.Run("custom-columns", func(t *testing.T) {
		r := informer(t, append(base, "-o", "custom-columns=POD:.metadata.name,NODE:.spec.nodeName", "--no-headers")...)
		mustSucceed(t, r)
		got := lines(r.Stdout)
		if len(got) != len(want) || !strings.HasSuffix(got[0], "node-1") {
			t.Errorf("-o custom-columns printed %v, want %d rows ending in node-1", got, len(want))
		}
	})
	t.Run("table and wide", func(t *testing.T) {
		r := informer(t, base...)
		mustSucceed(t, r)
		// kubectl's columns, then the queried index.
		if h := strings.Fields(strings.SplitN(r.Stdout, "\n", 2)[0]); strings.Join(h, " ") != "NAME READY STATUS RESTARTS AGE NODE" {
			t.Errorf("table header = %v, want NAME READY STATUS RESTARTS AGE NODE", h)
		}
		r = informer(t, append(base, "-o", "wide")...)
		mustSucceed(t, r)
		if h := strings.Fields(strings.SplitN(r.Stdout, "\n", 2)[0]); strings.Join(h, " ") != "NAME READY STATUS RESTARTS AGE IP NODE NOMINATED NODE READINESS GATES NODE" {
			t.Errorf("wide header = %v, want kubectl's wide columns and NODE", h)
		}
		if n := len(lines(r.Stdout)) - 1; n != len(want) {
			t.Errorf("wide printed %d rows, want %d", n, len(want))
		}
	})
}

func checkListItems(t *testing.T, list corev1.List, want []string) {
	t.Helper()
	if list.Kind != "List" || list.APIVersion != "v1" {
		t.Errorf("list kind = %s/%s, want v1/List", list.APIVersion, list.Kind)
	}
	var got []string
	for _, item := range list.Items {
		var pod corev1.Pod
		if err := json.Unmarshal(item.Raw, &pod); err != nil {
			t.Fatalf("item is not a pod: %v", err)
		}
		if pod.Kind != "Pod" || pod.Spec.NodeName != "node-1" {
			t.Errorf("item %s: kind %q node %q, want Pod on node-1", pod.Name, pod.Kind, pod.Spec.NodeName)
		}
		if len(pod.ManagedFields) != 0 {
			t.Errorf("item %s carries managedFields; the cache should drop them", pod.Name)
		}
		got = append(got, "pod/"+pod.Name)
	}
	sort.Strings(got)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("list items = %v, want %v", got, want)
	}
}

func TestNothingFound(t *testing.T) {
	seed(t)
	r := informer(t, "query", "pods", "-n", "q-0", "--index", "node=no-such-node")
	mustSucceed(t, r)
	if r.Stdout != "" || strings.TrimSpace(r.Stderr) != "No resources found in q-0 namespace." {
		t.Errorf("no match printed stdout %q, stderr %q; want nothing and 'No resources found in q-0 namespace.'", r.Stdout, r.Stderr)
	}
}

func TestBadInputAndFailFast(t *testing.T) {
	c := seed(t)
	tests := []struct {
		name       string
		args       []string
		kubeconfig string
		wantErr    string
	}{
		{"bad index selector", []string{"query", "pods", "--index", "node in (a"}, "", `--index "node in (a": missing ")"`},
		{"unknown index", []string{"query", "pods", "--index", "nod=x"}, "", `unknown index "nod"; known: namespace, label:KEY`},
		{"unknown group-by", []string{"query", "pods", "--group-by", "colour"}, "", `--group-by colour: unknown index "colour"`},
		{"invalid JSONPath", []string{"query", "pods", "--indexer", "img={.spec.containers[*.image}"}, "", "--indexer"},
		{"unknown output", []string{"query", "pods", "-o", "xml"}, "", `unknown -o/--output format "xml"`},
		{"empty namespace", []string{"query", "pods", "-n", "q-0,,q-1"}, "", `-n/--namespace "q-0,,q-1": empty namespace name`},
		{"sort-by without the field", []string{"query", "pods", "-n", "q-0", "--sort-by", ".spec.nothing"}, "", `couldn't find any field with path "{.spec.nothing}"`},
		{"unknown type", []string{"query", "nosuchthing"}, "", `the server doesn't have a resource type "nosuchthing"`},
		{"forbidden at cluster scope", []string{"query", "pods", "-A"}, c.ViewerKubeconfig(), `pods is forbidden: User "viewer" cannot list resource "pods"`},
		{"forbidden type in the allowed namespace", []string{"query", "configmaps", "-n", "team-a"}, c.ViewerKubeconfig(), `configmaps is forbidden`},
		{"unreachable server", []string{"query", "pods", "--server", "https://127.0.0.1:1", "--insecure-skip-tls-verify"}, "", "connection refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A sync timeout far beyond the command's own limit: an error
			// that waited for it instead of failing at once times out.
			args := append(append([]string{"informer"}, tt.args...), "--sync-timeout", "10m")
			r := framework.Run(t, framework.Cmd{Args: args, Kubeconfig: tt.kubeconfig, Timeout: 3 * time.Minute})
			if r.TimedOut {
				t.Fatalf("still running after 3m (--sync-timeout 10m): it waited instead of failing: %s", r)
			}
			if r.ExitCode != 1 {
				t.Fatalf("exit code %d, want 1: %s", r.ExitCode, r)
			}
			if !strings.Contains(r.Stderr, tt.wantErr) {
				t.Errorf("stderr %q does not contain %q", r.Stderr, tt.wantErr)
			}
			if strings.Contains(r.Stderr, "goroutine ") || strings.Contains(r.Stderr, "Usage:") {
				t.Errorf("stderr has a stack trace or usage dump:\n%s", r.Stderr)
			}
		})
	}
}

// TestSeveralNamespaces queries -n a,b: one informer per namespace, a
// NAMESPACE column, and the namespaces' objects only.
func TestSeveralNamespaces(t *testing.T) {
	c := seed(t)
	want := podNames(t, c, func(p *corev1.Pod) bool { return p.Namespace == "q-0" || p.Namespace == "q-2" })
	r := informer(t, "query", "pods", "-n", "q-2,q-0", "-o", "name")
	mustSucceed(t, r)
	if got := lines(r.Stdout); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("query pods -n q-2,q-0 = %v, want %v", got, want)
	}
	r = informer(t, "query", "pods", "-n", "q-0,q-1", "--index", "node=node-1")
	mustSucceed(t, r)
	rows := strings.Split(strings.TrimSpace(r.Stdout), "\n")
	if h := strings.Join(strings.Fields(rows[0]), " "); h != "NAMESPACE NAME READY STATUS RESTARTS AGE NODE" {
		t.Errorf("header = %q, want a NAMESPACE column first", h)
	}
	seen := map[string]bool{}
	for _, row := range rows[1:] {
		seen[strings.Fields(row)[0]] = true
	}
	if len(seen) != 2 || !seen["q-0"] || !seen["q-1"] {
		t.Errorf("rows from namespaces %v, want q-0 and q-1", seen)
	}
	r = informer(t, "query", "pods", "-n", "q-0,q-1", "--index", "node=no-such-node")
	mustSucceed(t, r)
	if got := strings.TrimSpace(r.Stderr); got != "No resources found in q-0, q-1 namespaces." {
		t.Errorf("nothing found says %q", got)
	}
	// One informer per namespace: a user allowed in team-a only is
	// answered there, refused as soon as another namespace is named.
	r = framework.Run(t, framework.Cmd{Args: []string{"informer", "query", "pods", "-n", "team-a,team-a"}, Kubeconfig: c.ViewerKubeconfig()})
	mustSucceed(t, r)
	r = framework.Run(t, framework.Cmd{Args: []string{"informer", "query", "pods", "-n", "team-a,q-0"}, Kubeconfig: c.ViewerKubeconfig()})
	if r.ExitCode != 1 || !strings.Contains(r.Stderr, `pods is forbidden: User "viewer" cannot list resource "pods" in API group "" in the namespace "q-0"`) {
		t.Errorf("viewer -n team-a,q-0: %s\nwant exit 1, forbidden in q-0", r)
	}
}

func TestViewerInAllowedNamespace(t *testing.T) {
	c := seed(t)
	r := framework.Run(t, framework.Cmd{Args: []string{"informer", "query", "pods", "-n", "team-a"}, Kubeconfig: c.ViewerKubeconfig()})
	mustSucceed(t, r)
}

// TestListOrderIsKubectls checks that query -A prints objects in the order
// kubectl get -A does, the API server's: by storage key in byte order, so
// namespace qsort-a before qsort ('-' sorts below '/'), and a cluster-scoped
// type by name.
func TestListOrderIsKubectls(t *testing.T) {
	c := seed(t)
	cs := c.AdminClient()
	const label = "e2e-order"
	for _, ns := range []string{"qsort", "qsort-a", "qsort0"} {
		obj := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: map[string]string{label: "yes"}}}
		if _, err := cs.CoreV1().Namespaces().Create(t.Context(), obj, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatalf("creating namespace %s: %v", ns, err)
		}
		for _, name := range []string{"web", "api", "web-1", "web.1"} {
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{label: "yes"}}}
			if _, err := cs.CoreV1().ConfigMaps(ns).Create(t.Context(), cm, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
				t.Fatalf("creating configmap %s/%s: %v", ns, name, err)
			}
		}
	}
	for _, args := range [][]string{
		{"configmaps", "-A", "-l", label, "-o", "custom-columns=NAMESPACE:.metadata.namespace,NAME:.metadata.name"},
		{"namespaces", "-l", label, "-o", "custom-columns=NAME:.metadata.name"},
	} {
		want := framework.Kubectl(t, t.Context(), append([]string{"get"}, args...)...)
		if want.ExitCode != 0 {
			t.Fatalf("kubectl get %v: %s", args, want)
		}
		got := informer(t, append([]string{"query"}, args...)...)
		mustSucceed(t, got)
		// The order is under test, not the column widths.
		if g, w := fieldLines(got.Stdout), fieldLines(want.Stdout); !slices.Equal(g, w) {
			t.Errorf("query %s printed\n%s\nkubectl get printed\n%s", strings.Join(args, " "), got.Stdout, want.Stdout)
		}
	}
}

// fieldLines returns the lines of s, in order, each with its fields joined
// by one space.
func fieldLines(s string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		out = append(out, strings.Join(strings.Fields(l), " "))
	}
	return out
}
