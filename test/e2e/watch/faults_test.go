package watch

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// faultTimeout is how long a test waits, after a fault ends, for the
// changes made during it: the reflector's backoff (0.8 s doubling, with
// jitter) plus a relist on a loaded machine.
const faultTimeout = 60 * time.Second

// Short HTTP/2 health-check timeouts (client-go reads them from the
// environment; the defaults are 30 s without a frame, then 15 s for the
// ping's answer), so a stalled connection is given up after about 4 s.
var fastHealthCheck = []string{"HTTP2_READ_IDLE_TIMEOUT_SECONDS=2", "HTTP2_PING_TIMEOUT_SECONDS=2"}

// proxyTo starts a TCP proxy to apiserver a and returns it with a copy of
// kubeconfig pointed at it.
func proxyTo(t *testing.T, a *framework.APIServer, kubeconfig string) (*framework.Proxy, string) {
	t.Helper()
	u, err := url.Parse(a.URL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := framework.StartProxy(t, u.Host)
	return proxy, proxy.Kubeconfig(t, kubeconfig)
}

// createAndExpectAdded creates pods names (labelled, as changeMissed
// expects) and reads their ADDED events, in any order.
func createAndExpectAdded(t *testing.T, cs kubernetes.Interface, p *framework.Process, ns string, names ...string) {
	t.Helper()
	for _, name := range names {
		createPod(t, cs, ns, name, map[string]string{"test": "faults"})
	}
	seen := map[string]bool{}
	for range names {
		ev := nextEvent(t, p)
		if ev.Type != "ADDED" || seen[ev.Name()] || !slices.Contains(names, ev.Name()) {
			t.Fatalf("event %s while waiting for ADDED %v", ev, names)
		}
		seen[ev.Name()] = true
	}
}

// TestWatchDroppedConnections puts a TCP proxy between the plugin and the
// apiserver and breaks the watch's connection in three ways, twice each, in
// one watch process:
//
//   - stall, then cut: the connection goes silent while objects change, then
//     is closed; the watch reconnects at once and resumes from its
//     resourceVersion (the apiserver's watch cache still has the changes);
//   - stall only: the connection goes silent and stays open, as when a peer
//     or middlebox vanishes; only client-go's HTTP/2 health check (a ping
//     after a silent read-idle period, given up after the ping timeout) can
//     notice, after which the watch reconnects;
//   - cut and refuse: every connection is closed and new ones are closed at
//     once for 3 s, as when a load balancer has no backend; the reflector
//     relists after the outage, and stderr says the watch failed.
//
// After each, exactly the changes made during the fault are printed, once.
func TestWatchDroppedConnections(t *testing.T) {
	t.Parallel()
	c := framework.Current(t)
	cs := framework.Current(t).AdminClient()
	const ns = "watch-dropped"
	framework.CreateNamespace(t, cs, ns)
	proxy, kubeconfig := proxyTo(t, c.APIServer(framework.PrimaryAPIServer), c.AdminKubeconfig())

	p := startWatchCmd(t, framework.Cmd{
		Args:       []string{"pods", "-n", ns, "-o", "json"},
		Kubeconfig: kubeconfig,
		Env:        fastHealthCheck,
	})
	faults := []string{"stall, then cut", "stall only", "cut and refuse", "stall, then cut", "stall only", "cut and refuse"}
	for round, fault := range faults {
		what := fmt.Sprintf("round %d (%s)", round+1, fault)
		a, b, unchanged, d := fmt.Sprintf("a%d", round), fmt.Sprintf("b%d", round), fmt.Sprintf("c%d", round), fmt.Sprintf("d%d", round)
		createAndExpectAdded(t, cs, p, ns, a, b, unchanged)
		stderrBefore := len(p.Stderr())

		var conns int
		switch fault {
		case "stall, then cut", "stall only":
			conns = proxy.Stall()
		case "cut and refuse":
			proxy.Refuse(true)
			conns = proxy.Cut()
		}
		if conns == 0 {
			t.Fatalf("%s: the watch had no open connection through the proxy", what)
		}
		began := time.Now()
		changeMissed(t, cs, ns, a, b, d, "e2e-fault")
		switch fault {
		case "stall, then cut":
			proxy.Cut()
		case "cut and refuse":
			time.Sleep(3 * time.Second)
			proxy.Refuse(false)
		}
		healed := time.Now()

		expectMissedChanges(t, p, what, a, b, d, "e2e-fault", faultTimeout)
		if fault == "stall only" {
			t.Logf("%s: %d connection(s) stalled; the changes were printed %s after the stall began",
				what, conns, time.Since(began).Round(10*time.Millisecond))
		} else {
			t.Logf("%s: %d connection(s) hit; the changes were printed %s after the fault began, %s after it ended",
				what, conns, time.Since(began).Round(10*time.Millisecond), time.Since(healed).Round(10*time.Millisecond))
		}
		expectNothingElse(t, cs, p, ns, fmt.Sprintf("sentinel%d", round))

		// A stream that broke without the server closing it (a cut after
		// silence, or the health check giving up) and an outage are both
		// worth a line, and so is the recovery; a cut the watch survives
		// at once is not a failure the user could act on, but is said too.
		stderr := p.Stderr()[stderrBefore:]
		for _, want := range []string{"warning: watch of pods failed", "watch of pods resumed"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("%s: stderr since the fault has no %q:\n%s", what, want, stderr)
			}
		}
	}

	// The server gone for good: the watch keeps retrying, says so, and
	// Ctrl-C still ends it at once.
	stderrBefore := len(p.Stderr())
	proxy.Refuse(true)
	proxy.Cut()
	deadline := time.Now().Add(faultTimeout)
	for !strings.Contains(p.Stderr()[stderrBefore:], "warning: watch of pods failed") {
		if time.Now().After(deadline) {
			t.Fatalf("server unreachable for %s, but no warning on stderr:\n%s", faultTimeout, p.Stderr())
		}
		time.Sleep(50 * time.Millisecond)
	}
	interrupted := time.Now()
	if err := p.Interrupt(); err != nil {
		t.Fatal(err)
	}
	if res := waitForExit(t, p, 5*time.Second); res.ExitCode != 0 {
		t.Errorf("Ctrl-C while the server is unreachable: %s\nwant exit code 0", res)
	}
	t.Logf("server unreachable: Ctrl-C ended the watch in %s", time.Since(interrupted).Round(10*time.Millisecond))
}

// TestWatchExpiredResourceVersion makes a watch resume from a
// resourceVersion etcd no longer has: the plugin watches through a proxy
// an apiserver without a watch cache (so watches go straight to etcd); the
// proxy stalls the connection while objects change and etcd is compacted,
// then cuts it. The reflector reconnects from its last resourceVersion,
// gets "410 Gone" (too old resource version) and relists; the plugin must
// print exactly the changes, as it does after any relist.
//
// It compacts etcd, which every apiserver of the cluster shares, so it does
// not run in parallel with the other tests (the primary apiserver compacts
// every 5 minutes anyway; its watch cache is not disturbed).
func TestWatchExpiredResourceVersion(t *testing.T) {
	c := framework.Current(t)
	cs := framework.Current(t).AdminClient()
	const ns = "watch-expired"
	framework.CreateNamespace(t, cs, ns)
	nocache, err := c.StartSecondAPIServer("nocache", "--no-watch-cache")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := nocache.Stop(); err != nil {
			t.Error(err)
		}
	})
	proxy, kubeconfig := proxyTo(t, nocache, nocache.Kubeconfig)

	// -v=4 makes client-go log why a watch closed, which is how the test
	// tells a 410 from any other reconnect.
	p := startWatchCmd(t, framework.Cmd{Args: []string{"pods", "-n", ns, "-o", "json", "-v=4"}, Kubeconfig: kubeconfig})
	for round := 1; round <= 3; round++ {
		what := fmt.Sprintf("round %d", round)
		a, b, unchanged, d := fmt.Sprintf("a%d", round), fmt.Sprintf("b%d", round), fmt.Sprintf("c%d", round), fmt.Sprintf("d%d", round)
		createAndExpectAdded(t, cs, p, ns, a, b, unchanged)
		stderrBefore := len(p.Stderr())

		if proxy.Stall() == 0 {
			t.Fatalf("%s: the watch had no open connection through the proxy", what)
		}
		changeMissed(t, cs, ns, a, b, d, "e2e-fault")
		if err := c.CompactEtcd(); err != nil {
			t.Fatal(err)
		}
		proxy.Cut()
		cut := time.Now()

		expectMissedChanges(t, p, what, a, b, d, "e2e-fault", faultTimeout)
		t.Logf("%s: the changes were printed %s after the connection was cut", what, time.Since(cut).Round(10*time.Millisecond))
		expectNothingElse(t, cs, p, ns, fmt.Sprintf("sentinel%d", round))

		stderr := p.Stderr()[stderrBefore:]
		if !strings.Contains(stderr, "Watch closed") || !strings.Contains(stderr, "too old") {
			t.Errorf("%s: no sign of a 410 Gone (client-go's \"Watch closed\" … \"too old\") in stderr since the fault:\n%s", what, stderr)
		}
	}
	if err := p.Interrupt(); err != nil {
		t.Fatal(err)
	}
	if res := waitForExit(t, p, eventTimeout); res.ExitCode != 0 {
		t.Errorf("watch after Ctrl-C: %s", res)
	}
}

// grantPods lets user do verbs on pods in ns through a Role and a
// RoleBinding both called name; it returns the binding, so that a test can
// delete and re-create it.
func grantPods(t *testing.T, cs kubernetes.Interface, ns, name, user string, verbs ...string) *rbacv1.RoleBinding {
	t.Helper()
	role := &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: verbs}},
	}
	if _, err := cs.RbacV1().Roles(ns).Create(t.Context(), role, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating role %s/%s: %v", ns, name, err)
	}
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: "User", Name: user}},
	}
	created, err := cs.RbacV1().RoleBindings(ns).Create(t.Context(), binding, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating role binding %s/%s: %v", ns, name, err)
	}
	return created
}

// TestWatchListWithoutWatchPermission: a user who may list pods but not
// watch them gets a clear error naming the missing verb, not a hang.
func TestWatchListWithoutWatchPermission(t *testing.T) {
	t.Parallel()
	cs := framework.Current(t).AdminClient()
	const ns = "watch-list-only"
	framework.CreateNamespace(t, cs, ns)
	grantPods(t, cs, ns, "list-only", "lister", "get", "list")
	createPod(t, cs, ns, "p", nil)

	res := framework.Run(t, framework.Cmd{Args: []string{"informer", "watch", "pods", "-n", ns, "--as", "lister"}, Timeout: 30 * time.Second})
	t.Logf("watch as a user who may not watch: exit %d after %s; stderr:\n%s", res.ExitCode, res.Duration.Round(10*time.Millisecond), res.Stderr)
	if res.ExitCode != 1 || res.TimedOut {
		t.Fatalf("watch as a user who may list but not watch pods: %s\nwant exit code 1", res)
	}
	for _, want := range []string{`"lister"`, "cannot watch", "pods"} {
		if !strings.Contains(res.Stderr, want) {
			t.Errorf("stderr does not name %s:\n%s", want, res.Stderr)
		}
	}
	if strings.Contains(res.Stderr, "goroutine ") {
		t.Errorf("stderr has a stack trace:\n%s", res.Stderr)
	}
	if res.Duration > 10*time.Second {
		t.Errorf("the error took %s, want it within 10 s", res.Duration)
	}
}

// TestWatchPermissionRevoked removes the user's permission while a watch
// runs. The apiserver authorizes a watch when it starts, so the running
// watch goes on until it is re-established; the proxy cuts its connection
// to make that happen now rather than when its timeout ends (5–10 min).
// The plugin must say on stderr that permission was lost, keep retrying,
// and resume (with the changes made meanwhile) once permission is back.
func TestWatchPermissionRevoked(t *testing.T) {
	t.Parallel()
	c := framework.Current(t)
	cs := framework.Current(t).AdminClient()
	const ns = "watch-revoked"
	framework.CreateNamespace(t, cs, ns)
	binding := grantPods(t, cs, ns, "pod-watcher", "revokee", "get", "list", "watch")
	proxy, kubeconfig := proxyTo(t, c.APIServer(framework.PrimaryAPIServer), c.AdminKubeconfig())

	p := startWatchCmd(t, framework.Cmd{Args: []string{"pods", "-n", ns, "-o", "json", "--as", "revokee"}, Kubeconfig: kubeconfig})
	createAndExpectAdded(t, cs, p, ns, "before")

	if err := cs.RbacV1().RoleBindings(ns).Delete(t.Context(), binding.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitUntilForbidden(t, ns, "revokee")
	revoked := time.Now()
	proxy.Cut()
	waitForStderr(t, p, "warning: watch of pods failed (permission lost? retrying)", faultTimeout)
	t.Logf("permission removed: stderr said so %s after the watch was re-established", time.Since(revoked).Round(10*time.Millisecond))
	createPod(t, cs, ns, "meanwhile", nil)

	binding.ResourceVersion = ""
	if _, err := cs.RbacV1().RoleBindings(ns).Create(t.Context(), binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	restored := time.Now()
	expectEvent(t, p, "ADDED", "meanwhile")
	t.Logf("permission restored: the pod created meanwhile was printed %s later", time.Since(restored).Round(10*time.Millisecond))
	waitForStderr(t, p, "watch of pods resumed", faultTimeout)
	expectNothingElse(t, cs, p, ns, "sentinel")
	if err := p.Interrupt(); err != nil {
		t.Fatal(err)
	}
	if res := waitForExit(t, p, eventTimeout); res.ExitCode != 0 {
		t.Errorf("watch after Ctrl-C: %s", res)
	}
}

// waitUntilForbidden waits until user may no longer list pods in ns, as the
// apiserver's authorizer sees it: RBAC changes reach it through its own
// informers, a moment after the API call.
func waitUntilForbidden(t *testing.T, ns, user string) {
	t.Helper()
	cfg := framework.Current(t).AdminConfig()
	cfg.Impersonate.UserName = user
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(eventTimeout)
	for {
		_, err := client.CoreV1().Pods(ns).List(t.Context(), metav1.ListOptions{Limit: 1})
		if err != nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s may still list pods in %s %s after the role binding was deleted", user, ns, eventTimeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
