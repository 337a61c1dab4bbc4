package restart

import (
	"strings"
	"testing"

	utilrand "k8s.io/apimachinery/pkg/util/rand"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// watchArgs is the watch every test runs: several types in one watch.
func watchArgs(ns string) []string { return []string{"deploy,rs,pods", "-n", ns, "-o", "json"} }

// TestWatchThroughRestarts runs `kubectl informer watch deploy,rs,pods -o
// json` against the primary API server through a rollout with outages
// (rollout.run) and checks what it printed against the second API server's
// own watch streams (rollout.check).
func TestWatchThroughRestarts(t *testing.T) {
	r := newRollout(t, "restart-"+utilrand.String(5))
	p := framework.StartWatch(t, watchArgs(r.ns)...)
	r.watches = []*framework.Process{p}
	r.run()
	stop(t, p)
	events := printedEvents(t, p, "")
	r.check("watch", events)
	t.Logf("the watch printed %d events for %d objects; the server sent %d; stderr:\n%s", len(events), len(printedFinal(events)), r.serverLen(), p.Stderr())
}

// stop interrupts p as a user's Ctrl-C would and fails the test unless it
// exits 0.
func stop(t *testing.T, p *framework.Process) {
	t.Helper()
	if err := p.Interrupt(); err != nil {
		t.Fatalf("interrupting the watch: %v", err)
	}
	if res := p.Wait(); res.ExitCode != 0 {
		t.Fatalf("the watch did not exit 0 on SIGINT: %s", res)
	}
	if !strings.Contains(p.Stderr(), "resumed; changes made meanwhile follow") {
		t.Errorf("the watch never said it resumed; stderr:\n%s", p.Stderr())
	}
}
