package fleet

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// TestFleetSilentContextCannotHang adds a context whose server accepts
// connections and never answers: a query across it and fleet-1 names it on
// stderr once, slow past --sync-timeout, answers for fleet-1, exits 1, and
// ends (well within the command's own time limit).
func TestFleetSilentContextCannotHang(t *testing.T) {
	seed(t)
	f := framework.CurrentFleet(t)
	kubeconfig := withSilentContext(t)

	r := framework.Run(t, framework.Cmd{
		Args:       []string{"informer", "query", "pods", "-n", namespace, "--context", f.Contexts[0] + ",silent", "--sync-timeout", "3s", "--no-headers"},
		Kubeconfig: kubeconfig,
		Timeout:    2 * time.Minute,
	})
	if r.TimedOut {
		t.Fatalf("the query did not end: %s", r)
	}
	if r.ExitCode != 1 {
		t.Errorf("exit code %d, want 1: %s", r.ExitCode, r)
	}
	if n := strings.Count(r.Stderr, "error: context silent: "); n != 1 || !strings.Contains(r.Stderr, "timed out") {
		t.Errorf("stderr names the silent context %d times (want once, timed out):\n%s", n, r.Stderr)
	}
	if got, want := rows(r.Stdout), expectedRows(t, f.Contexts[0]); !reflect.DeepEqual(got, want) {
		t.Errorf("rows of %s:\n got %q\nwant %q", f.Contexts[0], got, want)
	}
}
