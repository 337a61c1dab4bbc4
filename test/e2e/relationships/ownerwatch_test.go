package relationships

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// TestWatchWhereOwnerRootFollowsTheOwner runs `watch pods --where
// owner-root=Deployment/web` while the test deletes the Deployment with
// --cascade=orphan: the garbage collector takes the ReplicaSet's owner
// reference away, so its pods, which do not change themselves, leave the
// query, each naming the ReplicaSet; the other Deployment's pods print
// nothing.
func TestWatchWhereOwnerRootFollowsTheOwner(t *testing.T) {
	ns := fmt.Sprintf("orphan-%d", time.Now().UnixNano()%1_000_000)
	framework.CreateNamespace(t, framework.Current(t).AdminClient(), ns)
	kubectl(t, "create", "deployment", "web", "-n", ns, "--image=registry.example.com/web:v1", "--replicas=3")
	kubectl(t, "create", "deployment", "api", "-n", ns, "--image=registry.example.com/api:v1", "--replicas=2")
	kubectl(t, "rollout", "status", "deployment/web", "-n", ns, "--timeout="+rolloutTimeout.String())
	kubectl(t, "rollout", "status", "deployment/api", "-n", ns, "--timeout="+rolloutTimeout.String())
	want := readGraph(t, ns, "deployments,replicasets,pods").podsByRoot()["Deployment/web"]
	var rs struct {
		Items []object `json:"items"`
	}
	if err := json.Unmarshal([]byte(kubectl(t, "get", "replicasets", "-n", ns, "-l", "app=web", "-o", "json")), &rs); err != nil {
		t.Fatal(err)
	}
	if len(rs.Items) != 1 || len(want) != 3 {
		t.Fatalf("Deployment web has %d ReplicaSets and pods %q; want one ReplicaSet and 3 pods", len(rs.Items), want)
	}
	note := "left query: replicaset/" + rs.Items[0].Metadata.Name + " changed"

	p := framework.StartWatch(t, "pods", "-n", ns, "--where", "owner-root=Deployment/web", "-o", "json")
	kubectl(t, "delete", "deployment", "web", "-n", ns, "--cascade=orphan")
	var left []string
	for _, ev := range nextEvents(t, p, len(want)) {
		left = append(left, "pod/"+ev.Name())
		if ev.Type != "DELETED" || ev.Note != note {
			t.Errorf("Deployment web orphaned its ReplicaSet: event %s, want DELETED (%s)", ev, note)
		}
	}
	sort.Strings(left)
	if !slices.Equal(left, want) {
		t.Errorf("pods leaving owner-root=Deployment/web = %q, want %q", left, want)
	}
	if err := p.Interrupt(); err != nil {
		t.Fatal(err)
	}
	if r := p.Wait(); r.ExitCode != 0 {
		t.Errorf("watch did not exit 0 on SIGINT: %s", r)
	}
	if n := len(lines(p.Stdout())); n != len(want) {
		t.Errorf("watch printed %d events, want %d:\n%s", n, len(want), p.Stdout())
	}
	// A fresh query agrees: the pods' root is now their ReplicaSet.
	r := mustInformer(t, "query", "pods", "-n", ns, "--index", "owner-root=ReplicaSet/"+rs.Items[0].Metadata.Name, "-o", "name")
	if got := lines(r.Stdout); !slices.Equal(got, want) {
		t.Errorf("query pods --index owner-root=ReplicaSet/%s -o name = %q, want %q", rs.Items[0].Metadata.Name, got, want)
	}
}
