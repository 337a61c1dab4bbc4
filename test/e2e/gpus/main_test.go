// Package gpus tests kubectl informer capacity --resource and the globs of
// --sum against pods asking for nvidia.com/gpu, bound by kube-scheduler on
// simulated nodes of which every other one has GPUs (hack/cluster up --gpus),
// comparing every GPU column with what the test sums itself from `kubectl
// get nodes,pods -o json`.
package gpus

import (
	"strings"
	"testing"
	"time"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// nodes is how many simulated nodes the package's cluster has; gpus the
// nvidia.com/gpu of each odd-numbered one. Four nodes in hack/cluster's
// three zones put GPU nodes and nodes without GPUs in one zone.
const (
	nodes = 4
	gpus  = 2
)

func TestMain(m *testing.M) { framework.Main(m, framework.WithNodes(nodes), framework.WithGPUs(gpus)) }

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
