// Package security tests what the plugin may and may not do against a real
// kube-apiserver: it only reads, it does not print credentials, and it
// fails fast and clearly when RBAC, impersonation, the network or discovery
// say no.
package security

import (
	"encoding/base64"
	"net"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

func TestMain(m *testing.M) { framework.Main(m) }

// pluginUserAgent is the User-Agent internal/version builds:
// kubectl-informer/<version> (<os>/<arch>) <commit>.
var pluginUserAgent = regexp.MustCompile(`^kubectl-informer/\S+ \(\w+/\w+\) \S+$`)

// informer runs `kubectl informer ARGS` with kubeconfig ("" for admin).
func informer(t *testing.T, kubeconfig string, args ...string) framework.Result {
	t.Helper()
	return framework.Run(t, framework.Cmd{Args: append([]string{"informer"}, args...), Kubeconfig: kubeconfig, Timeout: 30 * time.Second})
}

// expectFailure checks that res is exit code 1 within limit and that its
// stderr contains every one of wants.
func expectFailure(t *testing.T, what string, res framework.Result, limit time.Duration, wants ...string) {
	t.Helper()
	if res.ExitCode != 1 || res.TimedOut {
		t.Errorf("%s: %s\nwant exit code 1", what, res)
		return
	}
	if res.Duration > limit {
		t.Errorf("%s took %s, want under %s", what, res.Duration.Round(time.Millisecond), limit)
	}
	for _, want := range wants {
		if !strings.Contains(res.Stderr, want) {
			t.Errorf("%s: stderr does not say %q:\n%s", what, want, res.Stderr)
		}
	}
	if res.Stdout != "" {
		t.Errorf("%s printed to stdout:\n%s", what, res.Stdout)
	}
}

func expectSuccess(t *testing.T, what string, res framework.Result) {
	t.Helper()
	if res.ExitCode != 0 || res.TimedOut {
		t.Errorf("%s: %s\nwant exit code 0", what, res)
	}
}

// TestCredentialsNotLogged runs a query at -v=10, where client-go logs
// every request as a curl command with its headers, and checks that
// neither the admin's client key (the admin kubeconfig authenticates with
// an embedded client certificate and key; see hack/tools/cmd/cluster) nor a
// bearer token given with --token appears in the output.
func TestCredentialsNotLogged(t *testing.T) {
	c := framework.Current(t)
	cfg, err := clientcmd.LoadFromFile(c.AdminKubeconfig())
	if err != nil {
		t.Fatalf("loading the admin kubeconfig: %v", err)
	}
	kctx := cfg.Contexts[cfg.CurrentContext]
	if kctx == nil || cfg.AuthInfos[kctx.AuthInfo] == nil {
		t.Fatalf("the admin kubeconfig has no user for context %q", cfg.CurrentContext)
	}
	user := cfg.AuthInfos[kctx.AuthInfo]
	if len(user.ClientKeyData) == 0 {
		t.Fatalf("the admin kubeconfig has no embedded client key; this test expects client-certificate auth")
	}
	if user.Token != "" {
		t.Fatalf("the admin kubeconfig has a token; this test expects client-certificate auth only")
	}

	// Secrets: the key's PEM body lines, the PEM as the kubeconfig encodes
	// it, and a token of our own.
	const token = "e2e-bearer-token-0123456789abcdef"
	secrets := []string{base64.StdEncoding.EncodeToString(user.ClientKeyData), token}
	for _, line := range strings.Split(string(user.ClientKeyData), "\n") {
		if len(line) >= 16 && !strings.HasPrefix(line, "-----") {
			secrets = append(secrets, line)
		}
	}

	runs := []struct {
		name string
		args []string
	}{
		{"client certificate", []string{"query", "pods", "-A", "-v=10"}},
		{"client certificate and --token", []string{"query", "pods", "-A", "-v=10", "--token", token}},
	}
	for _, run := range runs {
		res := informer(t, "", run.args...)
		// Non-vacuous: -v=10 did log the requests with their headers.
		if !strings.Contains(res.Stderr, "curl -v -XGET") || !strings.Contains(res.Stderr, "User-Agent: kubectl-informer/") {
			t.Errorf("%s: -v=10 logged no request headers; is the check meaningful?\n%s", run.name, res)
		}
		for _, out := range []struct{ name, text string }{{"stdout", res.Stdout}, {"stderr", res.Stderr}} {
			for _, secret := range secrets {
				if strings.Contains(out.text, secret) {
					t.Errorf("%s: %s contains a credential (%.12s…)", run.name, out.name, secret)
				}
			}
			if strings.Contains(out.text, "PRIVATE KEY") {
				t.Errorf("%s: %s contains a PEM private key header", run.name, out.name)
			}
		}
		if slices.Contains(run.args, "--token") && !strings.Contains(res.Stderr, "Authorization: Bearer <masked>") {
			t.Errorf("%s: stderr does not show the masked Authorization header", run.name)
		}
	}
}

// TestImpersonation checks --as: the admin impersonating viewer gets
// exactly viewer's rights.
func TestImpersonation(t *testing.T) {
	framework.Current(t)
	res := informer(t, "", "query", "pods", "-A", "--as", "viewer")
	expectFailure(t, "query pods -A --as viewer", res, 5*time.Second, "pods", "forbidden", `User "viewer"`)
	res = informer(t, "", "watch", "pods", "-A", "--as", "viewer")
	expectFailure(t, "watch pods -A --as viewer", res, 5*time.Second, "pods", "forbidden")

	expectSuccess(t, "query pods -n team-a --as viewer", informer(t, "", "query", "pods", "-n", "team-a", "--as", "viewer"))
	expectSuccess(t, "watch pods -n team-a --as viewer --timeout 1s", informer(t, "", "watch", "pods", "-n", "team-a", "--as", "viewer", "--timeout", "1s"))
}

// TestViewer checks the viewer user, whom RBAC allows get, list and watch
// of pods in team-a only.
func TestViewer(t *testing.T) {
	c := framework.Current(t)
	viewer := c.ViewerKubeconfig()

	res := informer(t, viewer, "query", "pods", "-A")
	expectFailure(t, "viewer: query pods -A", res, 5*time.Second, "pods", "forbidden")
	res = informer(t, viewer, "query", "configmaps", "-n", "team-a")
	expectFailure(t, "viewer: query configmaps -n team-a", res, 5*time.Second, "configmaps", "forbidden")
	// Several types: one forbidden type fails the whole command.
	res = informer(t, viewer, "query", "pods,configmaps", "-n", "team-a")
	expectFailure(t, "viewer: query pods,configmaps -n team-a", res, 5*time.Second, "configmaps", "forbidden")

	expectSuccess(t, "viewer: query pods -n team-a", informer(t, viewer, "query", "pods", "-n", "team-a"))
	expectSuccess(t, "viewer: watch pods -n team-a --timeout 1s", informer(t, viewer, "watch", "pods", "-n", "team-a", "--timeout", "1s"))
}

// TestUnreachableServerAndUnknownType checks the two ways a command can
// fail before any informer starts.
func TestUnreachableServerAndUnknownType(t *testing.T) {
	framework.Current(t)
	for _, args := range [][]string{
		{"query", "pods", "-A", "--server", "https://127.0.0.1:1"},
		{"query", "pods", "-A", "--server", "https://127.0.0.1:1", "--insecure-skip-tls-verify"},
		{"watch", "pods", "-A", "--server", "https://127.0.0.1:1"},
	} {
		res := informer(t, "", args...)
		expectFailure(t, strings.Join(args, " "), res, 10*time.Second, "connection refused")
	}
	for _, command := range []string{"query", "watch"} {
		res := informer(t, "", command, "nosuchthing", "-A")
		expectFailure(t, command+" nosuchthing", res, 10*time.Second, `the server doesn't have a resource type "nosuchthing"`)
	}
}

// TestUnansweringServer points the plugin at a server that accepts TCP
// connections and never answers (a hung apiserver, a black-holing load
// balancer). Discovery, which client-go retries for minutes against such a
// server, must end with --sync-timeout like the list does.
func TestUnansweringServer(t *testing.T) {
	framework.Current(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		var held []net.Conn
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	for _, command := range []string{"query", "watch"} {
		args := []string{command, "pods", "-A", "--server", "https://" + ln.Addr().String(), "--insecure-skip-tls-verify",
			"--cache-dir", t.TempDir(), "--sync-timeout", "3s"}
		res := informer(t, "", args...)
		expectFailure(t, strings.Join(args, " "), res, 15*time.Second,
			"timed out after 3s waiting for the API server at https://"+ln.Addr().String())
	}
}

// TestReadOnly runs a representative set of plugin commands and then checks
// in the apiserver's audit log that every request the plugin made (told
// apart by its User-Agent) was a get, list or watch. It runs last in this
// file so that the audit log also holds the requests of the tests above.
func TestReadOnly(t *testing.T) {
	c := framework.Current(t)
	cs := c.AdminClient()
	const ns = "security-readonly"
	framework.CreateNamespace(t, cs, ns)
	noToken := false
	for _, name := range []string{"web-1", "web-2"} {
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{"app": "web", "tier": "frontend"}},
			Spec: corev1.PodSpec{
				AutomountServiceAccountToken: &noToken,
				NodeName:                     "node-1",
				Containers:                   []corev1.Container{{Name: "main", Image: "registry.example.com/web:v1"}},
			},
		}
		if _, err := cs.CoreV1().Pods(ns).Create(t.Context(), pod, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating pod: %v", err)
		}
	}
	if out, err := c.Seed("widgets", "--count", "3", "--namespaces", "1", "--namespace-prefix", "security-widgets-"); err != nil {
		t.Fatal(err)
	} else {
		t.Log(strings.TrimSpace(out))
	}

	began := time.Now()
	commands := [][]string{
		{"query", "pods", "-A", "--index", "node=node-1", "-o", "name"},
		{"query", "pods", "-A", "--index", "label:app=web", "--index", "namespace=" + ns, "-o", "json"},
		{"query", "pods", "-n", ns, "--group-by", "label:tier"},
		{"query", "pods", "-A", "--indexer", "img={.spec.containers[*].image}", "--index", "img=registry.example.com/web:v1", "-o", "wide"},
		{"query", "pods,configmaps", "-n", ns, "-o", "yaml"},
		{"query", "wg", "-A", "-o", "name"},
		{"query", "widgets.example.com", "-n", "security-widgets-0", "--index", "owner=Deployment/none"},
		{"watch", "pods,configmaps", "-n", ns, "--timeout", "2s", "--initial", "-o", "json"},
		{"watch", "wg", "-A", "--timeout", "1s", "--initial"},
	}
	for _, args := range commands {
		expectSuccess(t, strings.Join(args, " "), informer(t, "", args...))
	}

	// The audit log is written as requests arrive; a watch's last stage may
	// come a little after the plugin exits. Poll until the log shows the
	// plugin listing or watching both pods and widgets since began.
	var events []framework.AuditEvent
	deadline := time.Now().Add(10 * time.Second)
	for {
		var err error
		events, err = c.AuditLog()
		if err != nil {
			t.Fatalf("reading the audit log: %v", err)
		}
		seen := map[string]bool{}
		for _, e := range events {
			if strings.HasPrefix(e.UserAgent, "kubectl-informer/") && e.RequestReceivedTimestamp.After(began.Add(-time.Second)) &&
				(e.Verb == "list" || e.Verb == "watch") {
				seen[e.ObjectRef.Resource] = true
			}
		}
		if seen["pods"] && seen["widgets"] && seen["configmaps"] {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the audit log shows no list or watch by the plugin of pods, configmaps and widgets (saw %v) within 10s", seen)
		}
		time.Sleep(100 * time.Millisecond)
	}

	verbs := map[string]int{}
	for _, e := range events {
		if !strings.HasPrefix(e.UserAgent, "kubectl-informer/") {
			continue
		}
		if !pluginUserAgent.MatchString(e.UserAgent) {
			t.Errorf("audit event %s %s: User-Agent %q does not match %s", e.Verb, e.RequestURI, e.UserAgent, pluginUserAgent)
		}
		verbs[e.Verb]++
		switch e.Verb {
		case "get", "list", "watch":
		default:
			t.Errorf("the plugin sent a %s: %s %s as %s (%s)", e.Verb, e.Stage, e.RequestURI, e.User.Username, e.UserAgent)
		}
	}
	t.Logf("plugin requests in the audit log, by verb (one event per stage): %v", verbs)
	if verbs["list"]+verbs["watch"] == 0 {
		t.Fatal("the audit log has no list or watch by the plugin; the check would be vacuous")
	}
}
