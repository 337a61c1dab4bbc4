// Package offline tests --from end to end: on a cluster with
// kube-controller-manager, kube-scheduler and kwok nodes, it creates
// workloads, takes the dumps users take with the real kubectl (`kubectl get
// -o yaml` and `-o json`, `kubectl cluster-info dump`, a must-gather-style
// directory) and the live answers of the commands at the same time, stops
// the API server, and runs the same commands with --from each dump, without
// a kubeconfig: their answers must be the live ones (ages aside). It also
// feeds the readers hostile files, which must fail with an error naming the
// file, in bounded time and memory.
//
// TestOffline stops the API server once, after every live answer is taken,
// and starts it again when it ends; the tests of hostile files need no
// cluster.
package offline

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// nodes is how many simulated nodes the package's cluster has.
const nodes = 3

func TestMain(m *testing.M) { framework.Main(m, framework.WithNodes(nodes)) }

// rolloutTimeout bounds each wait for controllers: long enough for a loaded
// two-core machine.
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

// kubectlStdin is kubectl with stdin.
func kubectlStdin(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	r := framework.Run(t, framework.Cmd{Args: args, Stdin: stdin, Timeout: rolloutTimeout})
	if r.ExitCode != 0 {
		t.Fatalf("kubectl %s: %s", strings.Join(args, " "), r)
	}
	return r.Stdout
}

// live runs `kubectl informer ARGS` against the cluster as the admin.
func live(t *testing.T, args ...string) framework.Result {
	t.Helper()
	return framework.Run(t, framework.Cmd{Args: append([]string{"informer"}, args...), Timeout: 2 * time.Minute})
}

// offline runs `kubectl informer ARGS` as a user without a cluster would:
// no --kubeconfig, and KUBECONFIG naming a file that does not exist.
func offline(t *testing.T, args ...string) framework.Result {
	t.Helper()
	return framework.Run(t, framework.Cmd{
		Args:       append([]string{"informer"}, args...),
		Kubeconfig: framework.NoKubeconfig,
		Env:        []string{"KUBECONFIG=" + missingKubeconfig},
		Timeout:    2 * time.Minute,
	})
}

// missingKubeconfig is a kubeconfig path that does not exist.
const missingKubeconfig = "/nonexistent/kubectl-informer-e2e/kubeconfig"

// waitUntil polls cond every second until it holds or timeout passes.
func waitUntil(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	defer cancel()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("waiting for %s: not within %s", what, timeout)
		case <-time.After(time.Second):
		}
	}
}
