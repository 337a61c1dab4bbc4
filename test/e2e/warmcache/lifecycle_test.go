package warmcache

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// TestStartStatusStop starts a cache, starts it again (it says it runs
// already), checks what status says before and after a query, and stops
// it: the process exits and its socket goes.
func TestStartStatusStop(t *testing.T) {
	framework.SkipIfShort(t)
	e := newEnv(t)
	ns := uniqueNamespace("warm-life")
	configMaps(t, ns, 3)

	if res := e.mustRun(framework.NoKubeconfig, "cache", "status"); !strings.Contains(res.Stderr, "No caches running") {
		t.Errorf("cache status with none running: %s", res)
	}
	e.start("", "--idle-timeout", "10m")
	res := e.mustRun("", "cache", "start")
	if !strings.Contains(res.Stdout, "a cache already runs for ") {
		t.Errorf("second cache start: %s\nwant it to say a cache already runs", res)
	}
	c := e.onlyCache()
	if c.Status.Server != framework.Current(t).AdminConfig().Host || c.Status.User != "admin" || c.Status.IdleTimeout != "10m0s" || len(c.Status.Caches) != 0 {
		t.Errorf("cache status = %+v, want server %s, user admin, idle timeout 10m0s, no types yet", *c.Status, framework.Current(t).AdminConfig().Host)
	}
	info, err := os.Stat(c.Socket)
	if err != nil {
		t.Fatal(err)
	}
	if perm := info.Mode().Perm(); perm != 0o600 {
		t.Errorf("socket mode = %04o, want 0600", perm)
	}

	e.mustRun("", "query", "configmaps", "-n", ns, "--index", "label:app=a", "-o", "name")
	c = e.onlyCache()
	if len(c.Status.Caches) != 1 {
		t.Fatalf("after one query the cache holds %d types, want 1: %+v", len(c.Status.Caches), c.Status.Caches)
	}
	got := c.Status.Caches[0]
	if got.Type != "configmaps" || strings.Join(got.Namespaces, ",") != ns || got.Objects != 3 || strings.Join(got.Indexes, ",") != "label:app" || got.FailingSince != nil {
		t.Errorf("cached type = %+v, want configmaps in %s, 3 objects, index label:app, healthy", got, ns)
	}
	table := e.mustRun(framework.NoKubeconfig, "cache", "status").Stdout
	for _, want := range []string{"PID", "SERVER", "USER", "MEMORY", "SOCKET", "configmaps", ns, "label:app", "healthy"} {
		if !strings.Contains(table, want) {
			t.Errorf("cache status table lacks %q:\n%s", want, table)
		}
	}

	res = e.mustRun("", "cache", "stop")
	if !strings.Contains(res.Stdout, "stopped the cache") {
		t.Errorf("cache stop: %s", res)
	}
	waitFor(t, 10*time.Second, "the cache process to exit", func() bool { return processGone(c.Status.Pid) })
	if _, err := os.Stat(c.Socket); !os.IsNotExist(err) {
		t.Errorf("the socket is still there after cache stop: %v", err)
	}
	if st := e.status(); len(st) != 0 {
		t.Errorf("cache status after stop lists %+v, want none", st)
	}
}

// TestIdleExit starts a cache with a short --idle-timeout: it exits on its
// own, and its socket goes with it.
func TestIdleExit(t *testing.T) {
	framework.SkipIfShort(t)
	e := newEnv(t)
	// The margins are seconds wide: a query's process can take a second or
	// two to reach the cache on a loaded machine.
	e.start("", "--idle-timeout", "8s")
	c := e.onlyCache()
	// A request keeps it alive for another idle timeout.
	time.Sleep(4 * time.Second)
	e.mustRun("", "query", "namespaces", "-o", "name")
	answered := time.Now()
	time.Sleep(5 * time.Second)
	if processGone(c.Status.Pid) {
		t.Fatalf("the cache exited %s after a query it answered; its idle timeout is 8s", time.Since(answered).Round(time.Millisecond))
	}
	waitFor(t, 20*time.Second, "the idle cache to exit", func() bool { return processGone(c.Status.Pid) })
	if _, err := os.Stat(c.Socket); !os.IsNotExist(err) {
		t.Errorf("the socket is still there after the idle exit: %v", err)
	}
}

// TestStopWithWatchRunning stops the cache while a watch runs through it:
// the cache process really exits (its connections are closed, not waited
// for), and the watch, which has printed already, ends with one error line
// and exit code 1 instead of hanging.
func TestStopWithWatchRunning(t *testing.T) {
	framework.SkipIfShort(t)
	e := newEnv(t)
	ns := uniqueNamespace("warm-stopwatch")
	configMaps(t, ns, 2)
	e.start("")
	w := e.startWatch("configmaps", "-n", ns, "--initial")
	pid := e.onlyCache().Status.Pid
	if res := e.mustRun("", "cache", "stop"); !strings.Contains(res.Stdout, "stopped the cache") {
		t.Fatalf("cache stop: %s", res)
	}
	waitFor(t, 10*time.Second, "the cache process to exit while a watch was connected", func() bool { return processGone(pid) })
	select {
	case <-w.Done():
	case <-time.After(30 * time.Second):
		t.Fatalf("the watch still runs 30s after its cache stopped\nstderr:\n%s", w.Stderr())
	}
	res := w.Wait()
	if res.ExitCode != 1 || strings.Count(strings.TrimSpace(res.Stderr), "\n") > 1 || !strings.Contains(res.Stderr, "error: ") {
		t.Errorf("the watch after its cache stopped: %s\nwant exit 1 and one error line", res)
	}
}
