// Package capacity tests kubectl informer capacity and query --sum against
// pods made by real controllers and bound by kube-scheduler on simulated
// nodes of different sizes (hack/cluster up --nodes), comparing every sum and
// percentage with what the test computes itself from `kubectl get -o json`
// by the scheduler's documented rules.
package capacity

import (
	"strings"
	"testing"
	"time"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// nodes is how many simulated nodes the package's cluster has: six, so
// that each of the three zones holds two nodes of different instance types
// (hack/cluster cycles zones per node and instance types per three nodes).
const nodes = 6

func TestMain(m *testing.M) { framework.Main(m, framework.WithNodes(nodes)) }

// rolloutTimeout bounds each step that waits for controllers: long enough
// for a loaded two-core machine.
const rolloutTimeout = 3 * time.Minute

// kubectl runs the real kubectl as the admin and fails the test if it fails.
func kubectl(t *testing.T, args ...string) string {
	t.Helper()
	r := framework.Run(t, framework.Cmd{Args: args, Timeout: rolloutTimeout + 30*time.Second})
	if r.ExitCode != 0 {
		t.Fatalf("kubectl %s: %s", strings.Join(args, " "), r)
	}
	return r.Stdout
}

// informer runs `kubectl informer ARGS` as the admin and fails the test
// unless it succeeds.
func informer(t *testing.T, args ...string) framework.Result {
	t.Helper()
	r := framework.Run(t, framework.Cmd{Args: append([]string{"informer"}, args...)})
	if r.ExitCode != 0 {
		t.Fatalf("kubectl informer %s: %s", strings.Join(args, " "), r)
	}
	return r
}
