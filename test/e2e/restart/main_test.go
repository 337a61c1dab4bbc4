// Package restart tests watches through API server restarts as they happen
// in a real control plane: kube-controller-manager, kube-scheduler and kwok
// talk to a second kube-apiserver on the same etcd, as they would through
// the load balancer of an HA control plane, and keep rolling a Deployment
// out while the API server the watch talks to is down. What each watch
// printed is compared with the second API server's own watch streams.
//
// The tests stop the primary API server, so they run one at a time (none
// calls t.Parallel).
package restart

import (
	"sync"
	"testing"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// nodes is how many simulated nodes the package's cluster has.
const nodes = 3

func TestMain(m *testing.M) { framework.Main(m, framework.WithNodes(nodes)) }

// secondName is the second API server's name in the cluster.
const secondName = "second"

var (
	secondOnce sync.Once
	second     *framework.APIServer
	secondErr  error
)

// secondAPIServer starts, once per package run, the second API server and
// moves the controllers, the scheduler and kwok to it; every test of the
// package (and every -count repetition) shares it.
func secondAPIServer(t *testing.T) *framework.APIServer {
	t.Helper()
	c := framework.Current(t)
	secondOnce.Do(func() {
		second, secondErr = c.StartSecondAPIServer(secondName)
		if secondErr == nil {
			secondErr = c.MoveComponents(secondName)
		}
	})
	if secondErr != nil {
		t.Fatalf("starting the second API server and moving the controllers to it: %v", secondErr)
	}
	return second
}
