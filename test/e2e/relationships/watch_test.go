package relationships

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// TestWatchWhereOwnerRoot watches a namespace's pods with --where
// owner-root=Deployment/web from before the Deployment exists: the pods of
// web enter the query as its ReplicaSet makes them, and api's never do.
func TestWatchWhereOwnerRoot(t *testing.T) {
	ns := fmt.Sprintf("watch-%d", time.Now().UnixNano()%1_000_000)
	framework.CreateNamespace(t, framework.Current(t).AdminClient(), ns)
	p := framework.Start(t, framework.Cmd{Args: []string{"informer", "watch", "pods", "-n", ns, "--where", "owner-root=Deployment/web", "-o", "json"}, Timeout: 5 * time.Minute})
	err := wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		select {
		case <-p.Done():
			return false, fmt.Errorf("watch exited before it was watching: %s", p.Wait())
		default:
		}
		return strings.Contains(p.Stderr(), "; watching for changes"), nil
	})
	if err != nil {
		t.Fatalf("waiting for the watch to sync: %v; stderr:\n%s", err, p.Stderr())
	}

	kubectl(t, "create", "deployment", "web", "-n", ns, "--image=registry.example.com/web:v1", "--replicas=3")
	kubectl(t, "create", "deployment", "api", "-n", ns, "--image=registry.example.com/api:v1", "--replicas=2")
	kubectl(t, "rollout", "status", "deployment/web", "-n", ns, "--timeout="+rolloutTimeout.String())
	kubectl(t, "rollout", "status", "deployment/api", "-n", ns, "--timeout="+rolloutTimeout.String())
	want := readGraph(t, ns, "deployments,replicasets,pods").podsByRoot()["Deployment/web"]

	var added []string
	err = wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		added = nil
		for _, l := range lines(p.Stdout()) {
			if ev := framework.DecodeEvent(t, l); ev.Type == "ADDED" {
				added = append(added, "pod/"+ev.Name())
			}
		}
		sort.Strings(added)
		return len(added) >= len(want), nil
	})
	if err != nil || !slices.Equal(added, want) {
		t.Errorf("pods ADDED to watch --where owner-root=Deployment/web = %q, want %q (%v)\nstderr:\n%s", added, want, err, p.Stderr())
	}
	if err := p.Interrupt(); err != nil {
		t.Fatal(err)
	}
	if r := p.Wait(); r.ExitCode != 0 {
		t.Errorf("watch did not exit 0 on SIGINT: %s", r)
	}
	for _, l := range lines(p.Stdout()) {
		if ev := framework.DecodeEvent(t, l); !strings.HasPrefix(ev.Name(), "web-") {
			t.Errorf("watch printed an event of %s, which Deployment/web does not own", ev.Name())
		}
	}
}
