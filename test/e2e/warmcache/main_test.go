// Package warmcache tests the warm cache (kubectl informer cache
// start|status|stop, and query and watch through it) against a real
// kube-apiserver, through the real kubectl: its answers are the direct
// answers, byte for byte; it stays fresh; it says when it may be stale; it
// falls back when broken; it exits when idle; and it answers no other
// identity and no other OS user.
//
// The tests run one at a time (one stops the apiserver). Each has a socket
// directory of its own ($XDG_RUNTIME_DIR) and stops its caches when it ends.
package warmcache

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilrand "k8s.io/apimachinery/pkg/util/rand"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

func TestMain(m *testing.M) { framework.Main(m) }

// env is one test's view of the caches: its socket directory.
type env struct {
	t       *testing.T
	runtime string // $XDG_RUNTIME_DIR
}

// newEnv returns an env with a fresh $XDG_RUNTIME_DIR (mode 0700) and stops
// every cache started in it when the test ends.
func newEnv(t *testing.T) *env {
	t.Helper()
	e := &env{t: t}
	e.runtime = framework.CacheRuntimeDir(t, "warmcache-xdg-", func() framework.Result { return e.run("", "cache", "stop", "--all") })
	return e
}

// environ is the environment of e's commands: its socket directory, and a
// discovery cache of its own, so that no test (nor a second run, -count=2)
// resolves types from an earlier test's discovery (a deleted CRD's type
// would stay in kubectl's disk cache for its 6 hours).
func (e *env) environ() []string {
	return []string{"XDG_RUNTIME_DIR=" + e.runtime, "KUBECACHEDIR=" + filepath.Join(e.runtime, "kubecache")}
}

// run runs `kubectl informer ARGS` with kubeconfig ("" for admin).
func (e *env) run(kubeconfig string, args ...string) framework.Result {
	e.t.Helper()
	return framework.Run(e.t, framework.Cmd{
		Args:       append([]string{"informer"}, args...),
		Kubeconfig: kubeconfig,
		Env:        e.environ(),
		Timeout:    60 * time.Second,
	})
}

// mustRun runs like run and fails the test unless the command exits 0.
func (e *env) mustRun(kubeconfig string, args ...string) framework.Result {
	e.t.Helper()
	res := e.run(kubeconfig, args...)
	if res.ExitCode != 0 || res.TimedOut {
		e.t.Fatalf("kubectl informer %s: %s", strings.Join(args, " "), res)
	}
	return res
}

// start starts the cache of kubeconfig's identity.
func (e *env) start(kubeconfig string, args ...string) {
	e.t.Helper()
	res := e.mustRun(kubeconfig, append([]string{"cache", "start"}, args...)...)
	if !strings.Contains(res.Stdout, "started a cache for ") {
		e.t.Fatalf("cache start did not say it started a cache: %s", res)
	}
}

// cacheStatus is what `cache status -o json` prints per cache.
type cacheStatus struct {
	Socket string `json:"socket"`
	Error  string `json:"error"`
	Status *struct {
		Pid         int    `json:"pid"`
		Server      string `json:"server"`
		User        string `json:"user"`
		IdleTimeout string `json:"idleTimeout"`
		Caches      []struct {
			Type         string     `json:"type"`
			Namespaces   []string   `json:"namespaces"`
			Purpose      string     `json:"purpose"`
			Objects      int        `json:"objects"`
			Indexes      []string   `json:"indexes"`
			Users        int        `json:"users"`
			FailingSince *time.Time `json:"failingSince"`
		} `json:"caches"`
	} `json:"status"`
}

// status returns the caches `cache status -o json` lists.
func (e *env) status() []cacheStatus {
	e.t.Helper()
	res := e.mustRun(framework.NoKubeconfig, "cache", "status", "-o", "json")
	var st []cacheStatus
	if err := json.Unmarshal([]byte(res.Stdout), &st); err != nil {
		e.t.Fatalf("decoding cache status -o json: %v\n%s", err, res)
	}
	return st
}

// onlyCache returns the one running cache, failing the test if there is
// not exactly one answering.
func (e *env) onlyCache() cacheStatus {
	e.t.Helper()
	st := e.status()
	if len(st) != 1 || st[0].Status == nil {
		e.t.Fatalf("cache status lists %d caches, want 1 answering: %+v", len(st), st)
	}
	return st[0]
}

// waitFor polls cond every 100ms until it holds or timeout passes.
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

// processGone reports whether no process with pid runs (or it is a zombie
// nobody reaps: the cache's parent, kubectl, has exited).
func processGone(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return true
	}
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	return err == nil && strings.Contains(string(b), ") Z ")
}

// uniqueNamespace returns base with a random suffix, so that a test run
// again against the same cluster (go test -count=2, or
// KUBECTL_INFORMER_E2E_CLUSTER) does not find the objects of its last run.
func uniqueNamespace(base string) string { return base + "-" + utilrand.String(5) }

// configMaps creates namespace ns with n config maps cm-0… labelled app=a
// or app=b.
func configMaps(t *testing.T, ns string, n int) {
	t.Helper()
	cs := framework.Current(t).AdminClient()
	framework.CreateNamespace(t, cs, ns)
	for i := range n {
		app := "a"
		if i%2 == 1 {
			app = "b"
		}
		createConfigMap(t, ns, "cm-"+strconv.Itoa(i), app)
	}
}

func createConfigMap(t *testing.T, ns, name, app string) {
	t.Helper()
	cs := framework.Current(t).AdminClient()
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{"app": app}},
		Data:       map[string]string{"k": name},
	}
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(context.Background(), cm, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating config map %s/%s: %v", ns, name, err)
	}
}
