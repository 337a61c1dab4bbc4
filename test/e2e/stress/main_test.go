// Package stress tests kubectl informer under load and with hostile data,
// end to end: the built plugin, run through the real kubectl, against a real
// kube-apiserver and etcd. One group plays a slow consumer of a watch while
// thousands of updates are churned; the other feeds the differ and the
// printers objects that are huge, deep, full of control characters,
// reordered, or null where others are missing.
package stress

import (
	"strings"
	"testing"
	"time"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

func TestMain(m *testing.M) { framework.Main(m) }

// eventTimeout is how long a test waits for the next line of a watch: long
// enough for a loaded machine, short enough to fail in reasonable time.
const eventTimeout = 30 * time.Second

// watchLimit bounds every watch process a test starts.
const watchLimit = 10 * time.Minute

// informer runs `kubectl informer ARGS` as the admin user to completion and
// fails the test unless it exits 0.
func informer(t *testing.T, args ...string) framework.Result {
	t.Helper()
	res := framework.Run(t, framework.Cmd{Args: append([]string{"informer"}, args...), Timeout: 2 * time.Minute})
	if res.ExitCode != 0 {
		t.Fatalf("kubectl informer %s: %s", strings.Join(args, " "), res)
	}
	return res
}

// startWatch starts `kubectl informer watch ARGS` as the admin user, its
// output read by the framework as it comes, and waits until its caches
// have synced.
func startWatch(t *testing.T, args ...string) *framework.Process {
	t.Helper()
	p := framework.Start(t, framework.Cmd{Args: append([]string{"informer", "watch"}, args...), Timeout: watchLimit})
	waitFor(t, "; watching for changes", 60*time.Second, p.Stderr, p.Done())
	return p
}

// waitFor polls stderr() until it contains want, failing the test if done
// is closed first or timeout passes.
func waitFor(t *testing.T, want string, timeout time.Duration, stderr func() string, done <-chan struct{}) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !strings.Contains(stderr(), want) {
		select {
		case <-done:
			t.Fatalf("watch exited before printing %q; stderr:\n%s", want, stderr())
		case <-time.After(25 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("watch did not print %q on stderr within %s; stderr:\n%s", want, timeout, stderr())
		}
	}
}

// watchEvent is one line of `watch -o json`.
type watchEvent = framework.WatchEvent

// expectEvent reads the next event and checks its type and object name.
func expectEvent(t *testing.T, p *framework.Process, typ, name string) watchEvent {
	t.Helper()
	return framework.ExpectEvent(t, p, eventTimeout, typ, name)
}
