// Package expr tests the plugin's CEL expressions end to end — query and
// watch --filter, computed indexes (--indexer NAME=CEL) and watch --until —
// on a cluster with kube-controller-manager, kube-scheduler and nodes
// simulated by kwok, where Deployments roll out and pods run, through the
// real kubectl. Every answer is compared with one computed in the test from
// `kubectl get -o json` on the same cluster.
package expr

import (
	"context"
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

func TestMain(m *testing.M) { framework.Main(m, framework.WithNodes(3)) }

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

// apply runs kubectl apply with manifest on stdin.
func apply(t *testing.T, ns, manifest string) {
	t.Helper()
	r := framework.Run(t, framework.Cmd{Args: []string{"apply", "-n", ns, "-f", "-"}, Stdin: manifest})
	if r.ExitCode != 0 {
		t.Fatalf("kubectl apply: %s", r)
	}
}

// informer runs kubectl informer ARGS and fails the test unless it exits 0.
func informer(t *testing.T, args ...string) framework.Result {
	t.Helper()
	r := framework.Run(t, framework.Cmd{Args: append([]string{"informer"}, args...)})
	if r.ExitCode != 0 {
		t.Fatalf("kubectl informer %s: %s", strings.Join(args, " "), r)
	}
	return r
}

// getPods returns the pods of ns as `kubectl get pods -o json` prints them.
func getPods(t *testing.T, ns string) []corev1.Pod {
	t.Helper()
	var list corev1.PodList
	if err := json.Unmarshal([]byte(kubectl(t, "get", "pods", "-n", ns, "-o", "json")), &list); err != nil {
		t.Fatalf("decoding kubectl get pods -o json: %v", err)
	}
	return list.Items
}

// names returns the sorted words of out, e.g. the lines of -o name.
func names(out string) []string {
	got := strings.Fields(out)
	sort.Strings(got)
	return got
}

// podNames returns "pod/NAME" for each pod that keep selects, sorted.
func podNames(pods []corev1.Pod, keep func(*corev1.Pod) bool) []string {
	var out []string
	for i := range pods {
		if keep(&pods[i]) {
			out = append(out, "pod/"+pods[i].Name)
		}
	}
	sort.Strings(out)
	return out
}

// waitPods waits until ns has n pods, all Running and Ready.
func waitPods(t *testing.T, ns string, n int) []corev1.Pod {
	t.Helper()
	var pods []corev1.Pod
	err := wait.PollUntilContextTimeout(t.Context(), 250*time.Millisecond, rolloutTimeout, true, func(context.Context) (bool, error) {
		pods = getPods(t, ns)
		if len(pods) != n {
			return false, nil
		}
		return !slices.ContainsFunc(pods, func(p corev1.Pod) bool { return !ready(&p) || p.DeletionTimestamp != nil }), nil
	})
	if err != nil {
		t.Fatalf("waiting for %d running, ready pods in %s: %v", n, ns, err)
	}
	return pods
}

func ready(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
