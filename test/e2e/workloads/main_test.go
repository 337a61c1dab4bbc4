// Package workloads tests kubectl-informer against objects made by real
// controllers: a cluster with kube-controller-manager, kube-scheduler and
// nodes simulated by kwok (hack/cluster up --nodes), where Deployments roll
// out, pods are bound and reach Running, and Jobs complete.
package workloads

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// nodes is how many simulated nodes the package's cluster has.
const nodes = 3

func TestMain(m *testing.M) { framework.Main(m, framework.WithNodes(nodes)) }

// rolloutTimeout bounds each step that waits for controllers: long enough
// for a loaded two-core machine.
const rolloutTimeout = 3 * time.Minute

var (
	deploymentsGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	replicaSetsGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "replicasets"}
	podsGVR        = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
)

// kubectl runs the real kubectl as the admin and fails the test if it fails.
func kubectl(t *testing.T, args ...string) string {
	t.Helper()
	r := framework.Run(t, framework.Cmd{Args: args, Timeout: rolloutTimeout + 30*time.Second})
	if r.ExitCode != 0 {
		t.Fatalf("kubectl %s: %s", strings.Join(args, " "), r)
	}
	return r.Stdout
}

// waitGone waits until ns holds none of the given resources.
func waitGone(t *testing.T, dyn dynamic.Interface, ns string, gvrs ...schema.GroupVersionResource) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), 200*time.Millisecond, rolloutTimeout, true, func(ctx context.Context) (bool, error) {
		for _, gvr := range gvrs {
			list, err := dyn.Resource(gvr).Namespace(ns).List(ctx, metav1.ListOptions{})
			if err != nil || len(list.Items) > 0 {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		t.Fatalf("waiting for %s to hold no %v: %v", ns, gvrs, err)
	}
}
