package relationships

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// TestWatchWhereNodeLabelFollowsTheNode runs `watch pods --where
// node.label:topology.kubernetes.io/zone=zone-x` while the test relabels a
// node with kubectl: the pods on that node, and only those, enter the query
// when the node gets zone-x and leave it when the node gets its zone back,
// although the pods themselves do not change. A query after the relabel sees
// the new zone too.
func TestWatchWhereNodeLabelFollowsTheNode(t *testing.T) {
	ns := fmt.Sprintf("relabel-%d", time.Now().UnixNano()%1_000_000)
	framework.CreateNamespace(t, framework.Current(t).AdminClient(), ns)
	kubectl(t, "create", "deployment", "web", "-n", ns, "--image=registry.example.com/web:v1", "--replicas=6")
	kubectl(t, "rollout", "status", "deployment/web", "-n", ns, "--timeout="+rolloutTimeout.String())

	var pods struct {
		Items []struct {
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
			Spec struct {
				NodeName string `json:"nodeName"`
			} `json:"spec"`
		} `json:"items"`
	}
	if err := json.Unmarshal([]byte(kubectl(t, "get", "pods", "-n", ns, "-o", "json")), &pods); err != nil {
		t.Fatal(err)
	}
	podsOn := map[string][]string{}
	for _, p := range pods.Items {
		podsOn[p.Spec.NodeName] = append(podsOn[p.Spec.NodeName], p.Metadata.Name)
	}
	// The node with the most of the namespace's pods, and the other nodes' pods.
	var node string
	for n, names := range podsOn {
		if n != "" && (node == "" || len(names) > len(podsOn[node]) || len(names) == len(podsOn[node]) && n < node) {
			node = n
		}
	}
	if node == "" {
		t.Fatalf("no pod of %s is scheduled: %+v", ns, pods.Items)
	}
	want := slices.Sorted(slices.Values(podsOn[node]))
	zone := strings.TrimSpace(kubectl(t, "get", "node", node, "-o", "jsonpath={.metadata.labels.topology\\.kubernetes\\.io/zone}"))
	if zone == "zone-x" {
		t.Fatalf("node %s is already in zone-x", node)
	}
	restore := zoneLabel + "-"
	if zone != "" {
		restore = zoneLabel + "=" + zone
	}
	t.Cleanup(func() { kubectl(t, "label", "node", node, "--overwrite", restore) })

	p := framework.StartWatch(t, "pods", "-n", ns, "--where", "node.label:"+zoneLabel+"=zone-x", "-o", "json")
	kubectl(t, "label", "node", node, "--overwrite", zoneLabel+"=zone-x")
	entered := nextEvents(t, p, len(want))
	kubectl(t, "label", "node", node, "--overwrite", restore)
	left := nextEvents(t, p, len(want))

	for _, step := range []struct {
		what, typ, note string
		events          []framework.WatchEvent
	}{
		{"relabelled to zone-x", "ADDED", "entered query: node/" + node + " changed", entered},
		{"relabelled back", "DELETED", "left query: node/" + node + " changed", left},
	} {
		var names []string
		for _, ev := range step.events {
			names = append(names, ev.Name())
			if ev.Type != step.typ || ev.Note != step.note {
				t.Errorf("node %s %s: event %s, want %s (%s)", node, step.what, ev, step.typ, step.note)
			}
		}
		sort.Strings(names)
		if !slices.Equal(names, want) {
			t.Errorf("node %s %s: events of %q, want the pods on it, %q", node, step.what, names, want)
		}
	}

	// A fresh query joins the current labels too.
	kubectl(t, "label", "node", node, "--overwrite", zoneLabel+"=zone-x")
	r := mustInformer(t, "query", "pods", "-n", ns, "--index", "node.label:"+zoneLabel+"=zone-x", "-o", "name")
	var wantNames []string
	for _, n := range want {
		wantNames = append(wantNames, "pod/"+n)
	}
	if got := lines(r.Stdout); !slices.Equal(got, wantNames) {
		t.Errorf("query pods --index node.label:%s=zone-x -o name = %q, want %q", zoneLabel, got, wantNames)
	}
	// That relabel is the watch's third step: the pods enter again, and
	// nothing else was printed in between.
	again := nextEvents(t, p, len(want))
	if err := p.Interrupt(); err != nil {
		t.Fatal(err)
	}
	if r := p.Wait(); r.ExitCode != 0 {
		t.Errorf("watch did not exit 0 on SIGINT: %s", r)
	}
	if n := len(lines(p.Stdout())); n != 3*len(want) {
		t.Errorf("watch printed %d events, want %d (%d pods entering, leaving, entering):\n%s", n, 3*len(want), len(want), p.Stdout())
	}
	for _, ev := range again {
		if ev.Type != "ADDED" {
			t.Errorf("node %s relabelled to zone-x again: event %s, want ADDED", node, ev)
		}
	}
}

// nextEvents reads the next n events of a `watch -o json` process.
func nextEvents(t *testing.T, p *framework.Process, n int) []framework.WatchEvent {
	t.Helper()
	var events []framework.WatchEvent
	for range n {
		events = append(events, framework.NextEvent(t, p, time.Minute))
	}
	return events
}
