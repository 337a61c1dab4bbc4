// Package fleet tests kubectl-informer across several clusters at once
// against a fleet of real control planes (hack/cluster fleet up): three
// clusters, each its own etcd and kube-apiserver, and a context that points
// at nothing. Objects are created directly with kubectl in each context (no
// controllers run), and every answer is compared with what the test
// computes from `kubectl --context X get` in each context.
package fleet

import (
	"strings"
	"testing"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

func TestMain(m *testing.M) { framework.Main(m, framework.WithClusters(3)) }

// kubectl runs the real kubectl with the fleet's kubeconfig in context kctx
// and fails the test if it fails.
func kubectl(t *testing.T, kctx string, args ...string) string {
	t.Helper()
	f := framework.CurrentFleet(t)
	r := framework.Run(t, framework.Cmd{Args: append(args, "--context", kctx), Kubeconfig: f.Kubeconfig})
	if r.ExitCode != 0 {
		t.Fatalf("kubectl --context %s %s: %s", kctx, strings.Join(args, " "), r)
	}
	return r.Stdout
}

// TestFleetContextsAreDistinctClusters checks the fleet itself: each admin
// context reaches its own cluster (its own etcd: a namespace's UID differs
// in each), and the dead context fails.
func TestFleetContextsAreDistinctClusters(t *testing.T) {
	f := framework.CurrentFleet(t)
	if len(f.Contexts) != 3 || len(f.Clusters) != 3 {
		t.Fatalf("fleet has contexts %v and %d clusters; want 3 of each", f.Contexts, len(f.Clusters))
	}
	seen := map[string]string{}
	for _, c := range f.Contexts {
		uid := kubectl(t, c, "get", "namespace", "default", "-o", "jsonpath={.metadata.uid}")
		if other, ok := seen[uid]; ok || uid == "" {
			t.Errorf("context %s: namespace default has UID %q, as in context %q", c, uid, other)
		}
		seen[uid] = c
	}
	r := framework.Run(t, framework.Cmd{Args: []string{"get", "namespaces", "--context", f.Dead, "--request-timeout", "5s"}, Kubeconfig: f.Kubeconfig})
	if r.ExitCode == 0 || !strings.Contains(r.Stderr, "refused") {
		t.Errorf("kubectl --context %s: want connection refused: %s", f.Dead, r)
	}
}
