// Package pushdown tests that kubectl informer query has the API server
// select what its --index selectors express: the answer equals the answer
// with the selection kept in the client (KUBECTL_INFORMER_PUSHDOWN=off) and
// kubectl get's with the same label and field selectors, on the same
// objects; the audit log shows the selectors sent; a warm cache is never
// given them.
package pushdown

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

func TestMain(m *testing.M) { framework.Main(m) }

// offEnv keeps the selection in the client.
const offEnv = "KUBECTL_INFORMER_PUSHDOWN=off"

// The objects: running pods (run-<i>), pending pods (pend-<i>) on node-<i%4>,
// unscheduled pending pods (unsched-<i>), all in pd-<i%3> and labelled
// app=app-<i%3> and tier=…; in pd-0, odd-empty-app (app="", on node-1),
// odd-no-labels (unscheduled), odd-succeeded (on node-2) and odd-failed
// (unscheduled); configmaps and widgets in pd-0 and pd-1.
var seeded bool

func seed(t *testing.T) *framework.Cluster {
	t.Helper()
	framework.SkipIfShort(t)
	c := framework.Current(t)
	if seeded {
		return c
	}
	for _, args := range [][]string{
		{"pods", "--count", "24", "--namespaces", "3", "--nodes", "4", "--apps", "3", "--namespace-prefix", "pd-", "--prefix", "run", "--running"},
		{"pods", "--count", "12", "--namespaces", "3", "--nodes", "4", "--apps", "3", "--namespace-prefix", "pd-", "--prefix", "pend"},
		{"pods", "--count", "9", "--namespaces", "3", "--nodes", "0", "--apps", "3", "--namespace-prefix", "pd-", "--prefix", "unsched"},
		{"configmaps", "--count", "4", "--namespaces", "2", "--namespace-prefix", "pd-"},
		{"widgets", "--count", "6", "--namespaces", "2", "--namespace-prefix", "pd-"},
	} {
		if out, err := c.Seed(args...); err != nil {
			t.Fatalf("seed %v: %v\n%s", args, err, out)
		}
	}
	cs := c.AdminClient()
	ctx := t.Context()
	odd := []struct {
		name   string
		labels map[string]string
		node   string
		phase  corev1.PodPhase
	}{
		{"odd-empty-app", map[string]string{"app": ""}, "node-1", ""},
		{"odd-no-labels", nil, "", ""},
		{"odd-succeeded", map[string]string{"app": "app-9"}, "node-2", corev1.PodSucceeded},
		{"odd-failed", map[string]string{"app": "app-9"}, "", corev1.PodFailed},
	}
	for _, o := range odd {
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "pd-0", Name: o.name, Labels: o.labels},
			Spec: corev1.PodSpec{
				NodeName:                     o.node,
				AutomountServiceAccountToken: new(bool),
				Containers:                   []corev1.Container{{Name: "c", Image: "registry.example.com/odd:v1"}},
			},
		}
		created, err := cs.CoreV1().Pods("pd-0").Create(ctx, pod, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("creating pod %s: %v", o.name, err)
		}
		if o.phase != "" {
			created.Status.Phase = o.phase
			if _, err := cs.CoreV1().Pods("pd-0").UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
				t.Fatalf("setting the phase of pod %s: %v", o.name, err)
			}
		}
	}
	seeded = true
	return c
}

// informer runs kubectl informer ARGS as the admin user with env added.
func informer(t *testing.T, env []string, args ...string) framework.Result {
	t.Helper()
	r := framework.Run(t, framework.Cmd{Args: append([]string{"informer"}, args...), Env: env})
	if r.ExitCode != 0 {
		t.Fatalf("kubectl informer %s: %s", strings.Join(args, " "), r)
	}
	return r
}

// sent is the label and field selector of one list or watch request.
type sent struct{ label, field string }

// requestsSince returns the selectors of the plugin's list and watch
// requests of resource (of every resource when "") received since began.
func requestsSince(t *testing.T, c *framework.Cluster, resource string, began time.Time) []sent {
	t.Helper()
	events, err := c.AuditLog()
	if err != nil {
		t.Fatal(err)
	}
	var out []sent
	for _, e := range events {
		if e.Stage != "RequestReceived" || !strings.HasPrefix(e.UserAgent, "kubectl-informer/") ||
			(e.Verb != "list" && e.Verb != "watch") || (resource != "" && e.ObjectRef.Resource != resource) || e.RequestReceivedTimestamp.Before(began) {
			continue
		}
		u, err := url.Parse(e.RequestURI)
		if err != nil {
			t.Fatalf("audit event %s: %v", e.RequestURI, err)
		}
		q := u.Query()
		out = append(out, sent{label: q.Get("labelSelector"), field: q.Get("fieldSelector")})
	}
	return out
}

// requestsLanded waits until the audit log has stopped growing by the
// plugin's lists and watches, and returns the time it did: a command that
// exits right after its list may leave its watch request on its way to the
// API server, which receives it after the next command has begun.
func requestsLanded(t *testing.T, c *framework.Cluster) time.Time {
	t.Helper()
	count := func() int { return len(requestsSince(t, c, "", time.Time{})) }
	last, quiet := count(), 0
	for deadline := time.Now().Add(5 * time.Second); quiet < 3 && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
		if n := count(); n == last {
			quiet++
		} else {
			last, quiet = n, 0
		}
	}
	return time.Now()
}

// checkSent fails the test unless the plugin sent at least one list or
// watch of resource since began, and every one with want.
func checkSent(t *testing.T, c *framework.Cluster, resource string, began time.Time, want sent, what string) {
	t.Helper()
	got := requestsSince(t, c, resource, began)
	if len(got) == 0 {
		t.Errorf("%s: the audit log has no list or watch of %s", what, resource)
	}
	for _, s := range got {
		if s != want {
			t.Errorf("%s: sent labelSelector=%q fieldSelector=%q for %s, want %q and %q", what, s.label, s.field, resource, want.label, want.field)
		}
	}
}

func TestPushedAnswersEqualUnpushedAndKubectl(t *testing.T) {
	c := seed(t)
	tests := []struct {
		name string
		// args follow "query pods -A -o name" (query TYPE -A -o name
		// when typ is set).
		typ  string
		args []string
		// kubectl are the arguments of kubectl get TYPE -A -o name with
		// the same selection; none when kubectl cannot express it.
		kubectl []string
		// pushed is what the pushed-down run sends with each list;
		// user is what the unpushed run sends (the user's -l and
		// --field-selector).
		pushed, user sent
		// empty is set when the answer is rightly empty.
		empty bool
	}{
		{name: "node", args: []string{"--index", "node=node-1"},
			kubectl: []string{"--field-selector", "spec.nodeName=node-1"}, pushed: sent{field: "spec.nodeName=node-1"}},
		{name: "node empty: unscheduled pods", args: []string{"--index", "node="},
			kubectl: []string{"--field-selector", "spec.nodeName="}, pushed: sent{field: "spec.nodeName="}},
		{name: "node not empty: scheduled pods", args: []string{"--index", "node!="},
			kubectl: []string{"--field-selector", "spec.nodeName!="}, pushed: sent{field: "spec.nodeName!="}},
		{name: "node not equals", args: []string{"--index", "node!=node-1"},
			kubectl: []string{"--field-selector", "spec.nodeName!=node-1"}, pushed: sent{field: "spec.nodeName!=node-1"}},
		{name: "node notin with the empty value", args: []string{"--index", "node notin (,node-2)"},
			kubectl: []string{"--field-selector", "spec.nodeName!=,spec.nodeName!=node-2"}, pushed: sent{field: "spec.nodeName!=,spec.nodeName!=node-2"}},
		{name: "node in two values is not pushed", args: []string{"--index", "node in (node-1,node-2)"}},
		{name: "node value with a comma, escaped", args: []string{"--index", "node!=a,b"},
			kubectl: []string{"--field-selector", `spec.nodeName!=a\,b`}, pushed: sent{field: `spec.nodeName!=a\,b`}},
		{name: "phase", args: []string{"--index", "phase=Running"},
			kubectl: []string{"--field-selector", "status.phase=Running"}, pushed: sent{field: "status.phase=Running"}},
		{name: "phase not equals", args: []string{"--index", "phase!=Running"},
			kubectl: []string{"--field-selector", "status.phase!=Running"}, pushed: sent{field: "status.phase!=Running"}},
		{name: "phase notin", args: []string{"--index", "phase notin (Pending,Running)"},
			kubectl: []string{"--field-selector", "status.phase!=Pending,status.phase!=Running"}, pushed: sent{field: "status.phase!=Pending,status.phase!=Running"}},
		{name: "phase in two values is not pushed", args: []string{"--index", "phase in (Failed,Succeeded)"}},
		{name: "label", args: []string{"--index", "label:app=app-1"},
			kubectl: []string{"-l", "app=app-1"}, pushed: sent{label: "app=app-1"}},
		{name: "label empty value", args: []string{"--index", "label:app="},
			kubectl: []string{"-l", "app="}, pushed: sent{label: "app="}},
		{name: "label not equals, unlabelled pods included", args: []string{"--index", "label:app!=app-1"},
			kubectl: []string{"-l", "app!=app-1"}, pushed: sent{label: "app!=app-1"}},
		{name: "label in with the empty value", args: []string{"--index", "label:app in (,app-2)"},
			kubectl: []string{"-l", "app in (,app-2)"}, pushed: sent{label: "app in (,app-2)"}},
		{name: "label notin", args: []string{"--index", "label:app notin (app-0,app-1)"},
			kubectl: []string{"-l", "app notin (app-0,app-1)"}, pushed: sent{label: "app notin (app-0,app-1)"}},
		{name: "label exists", args: []string{"--index", "label:app"},
			kubectl: []string{"-l", "app"}, pushed: sent{label: "app"}},
		{name: "label does not exist", args: []string{"--index", "!label:app"},
			kubectl: []string{"-l", "!app"}, pushed: sent{label: "!app"}},
		{name: "label value that is not a label value is not pushed", args: []string{"--index", "label:app=a b"}, empty: true},
		{name: "namespace", args: []string{"--index", "namespace=pd-1"},
			kubectl: []string{"--field-selector", "metadata.namespace=pd-1"}, pushed: sent{field: "metadata.namespace=pd-1"}},
		{name: "namespace in two values is not pushed", args: []string{"--index", "namespace in (pd-0,pd-2)"}},
		{name: "several ANDed, with an index the server cannot select",
			args:   []string{"--index", "node=node-1", "--index", "label:app=app-0", "--index", "phase=Running", "--index", "image=registry.example.com/image-1:v1"},
			pushed: sent{label: "app=app-0", field: "spec.nodeName=node-1,status.phase=Running"}},
		{name: "ANDed with -l and --field-selector",
			args:    []string{"-l", "tier", "--field-selector", "status.phase=Pending", "--index", "node=node-2", "--index", "label:app!=app-0"},
			kubectl: []string{"-l", "tier,app!=app-0", "--field-selector", "status.phase=Pending,spec.nodeName=node-2"},
			pushed:  sent{label: "tier,app!=app-0", field: "status.phase=Pending,spec.nodeName=node-2"},
			user:    sent{label: "tier", field: "status.phase=Pending"}},
		{name: "an --indexer is not pushed", args: []string{"--indexer", "img={.spec.containers[*].image}", "--index", "node=", "--index", "img=registry.example.com/odd:v1"}},
		{name: "two built-in types", typ: "pods,configmaps", args: []string{"--index", "namespace=pd-1"},
			kubectl: []string{"--field-selector", "metadata.namespace=pd-1"}, pushed: sent{field: "metadata.namespace=pd-1"}},
		{name: "namespace of a custom resource is not pushed", typ: "widgets.example.com", args: []string{"--index", "namespace=pd-1"},
			kubectl: []string{"--field-selector", "metadata.namespace=pd-1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			typ := tt.typ
			if typ == "" {
				typ = "pods"
			}
			resource := strings.Split(typ, ",")[0]
			if resource == "widgets.example.com" {
				resource = "widgets"
			}
			args := append([]string{"query", typ, "-A", "-o", "name", "--cache", "off"}, tt.args...)

			began := requestsLanded(t, c)
			unpushed := informer(t, []string{offEnv}, args...)
			checkSent(t, c, resource, began, tt.user, "unpushed")

			began = requestsLanded(t, c)
			pushed := informer(t, nil, append(args, "-v=1")...)
			checkSent(t, c, resource, began, tt.pushed, "pushed")
			if tt.pushed != (sent{}) && !strings.Contains(pushed.Stderr, `"selecting on the API server"`) {
				t.Errorf("-v=1 did not log what was pushed:\n%s", pushed.Stderr)
			}

			if pushed.Stdout != unpushed.Stdout {
				t.Errorf("pushed answer differs from the unpushed one:\n--- pushed:\n%s--- unpushed:\n%s", pushed.Stdout, unpushed.Stdout)
			}
			if (strings.TrimSpace(unpushed.Stdout) == "") != tt.empty {
				t.Fatalf("answer %q; empty = %v, want %v (the case would prove nothing)", unpushed.Stdout, !tt.empty, tt.empty)
			}
			if tt.kubectl == nil {
				return
			}
			k := framework.Kubectl(t, t.Context(), append([]string{"get", typ, "-A", "-o", "name"}, tt.kubectl...)...)
			if k.ExitCode != 0 {
				t.Fatalf("kubectl get: %s", k)
			}
			if pushed.Stdout != k.Stdout {
				t.Errorf("pushed answer differs from kubectl get %s:\n--- pushed:\n%s--- kubectl:\n%s", strings.Join(tt.kubectl, " "), pushed.Stdout, k.Stdout)
			}
		})
	}
}

// TestPushedGroupsEqualUnpushed compares grouped tables and a table of
// objects, which read the selected objects only.
func TestPushedGroupsEqualUnpushed(t *testing.T) {
	c := seed(t)
	for _, args := range [][]string{
		{"--index", "node=", "--group-by", "namespace,phase"},
		{"--index", "label:app in (app-0,app-9)", "--group-by", "node", "--sum", "containers"},
		{"--index", "phase!=Running", "--filter", "object.metadata.name.startsWith('odd-') || object.metadata.name.endsWith('1')", "--sort-by", "{.metadata.name}",
			"-o", "custom-columns=NAME:.metadata.name,NODE:.spec.nodeName,PHASE:.status.phase"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			all := append([]string{"query", "pods", "-A", "--cache", "off"}, args...)
			unpushed := informer(t, []string{offEnv}, all...)
			began := requestsLanded(t, c)
			pushed := informer(t, nil, all...)
			if pushed.Stdout != unpushed.Stdout {
				t.Errorf("pushed answer differs from the unpushed one:\n--- pushed:\n%s--- unpushed:\n%s", pushed.Stdout, unpushed.Stdout)
			}
			if len(strings.Split(strings.TrimSpace(pushed.Stdout), "\n")) < 3 {
				t.Errorf("answer %q has fewer than two rows; the case would prove little", pushed.Stdout)
			}
			for _, s := range requestsSince(t, c, "pods", began) {
				if s == (sent{}) {
					t.Errorf("a list or watch of pods was sent without selectors")
				}
			}
		})
	}
}

// TestWarmCacheIsNotPushed checks that a query answered by a warm cache
// leaves the cache's informer whole: the cache holds every pod and answers
// as the command does without it.
func TestWarmCacheIsNotPushed(t *testing.T) {
	seed(t)
	runtime, err := os.MkdirTemp("", "pushdown-xdg-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(runtime, 0o700); err != nil {
		t.Fatal(err)
	}
	env := []string{"XDG_RUNTIME_DIR=" + runtime, "KUBECACHEDIR=" + filepath.Join(runtime, "kubecache")}
	t.Cleanup(func() {
		framework.Run(t, framework.Cmd{Args: []string{"informer", "cache", "stop", "--all"}, Env: env})
		os.RemoveAll(runtime)
	})
	informer(t, env, "cache", "start")
	args := []string{"query", "pods", "-A", "-o", "name", "--index", "node=node-1"}
	warm := informer(t, env, args...)
	direct := informer(t, env, append(args, "--cache", "off")...)
	if warm.Stdout != direct.Stdout {
		t.Errorf("the warm cache's answer differs from the direct one:\n--- warm:\n%s--- direct:\n%s", warm.Stdout, direct.Stdout)
	}
	status := informer(t, env, "cache", "status", "-o", "json")
	var caches []struct {
		Status *struct {
			Caches []struct {
				Type    string `json:"type"`
				Objects int    `json:"objects"`
			} `json:"caches"`
		} `json:"status"`
	}
	if err := json.Unmarshal([]byte(status.Stdout), &caches); err != nil {
		t.Fatalf("cache status -o json: %v\n%s", err, status.Stdout)
	}
	pods, err := framework.Current(t).AdminClient().CoreV1().Pods("").List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, c := range caches {
		if c.Status == nil {
			continue
		}
		for _, tc := range c.Status.Caches {
			found = append(found, fmt.Sprintf("%s: %d", tc.Type, tc.Objects))
			if strings.HasPrefix(tc.Type, "pods") && tc.Objects != len(pods.Items) {
				t.Errorf("the warm cache holds %d pods, want every pod (%d)", tc.Objects, len(pods.Items))
			}
		}
	}
	if len(found) == 0 {
		t.Errorf("cache status shows no cache:\n%s", status.Stdout)
	}
}
