package relationships

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// zoneLabel is the label the cluster's kwok nodes carry their zone in.
const zoneLabel = "topology.kubernetes.io/zone"

// TestNodeLabelJoin proves node.label:KEY on pods, --index and --group-by,
// against pods joined to their nodes from kubectl get -o json.
func TestNodeLabelJoin(t *testing.T) {
	ns := fmt.Sprintf("zones-%d", time.Now().UnixNano()%1_000_000)
	framework.CreateNamespace(t, framework.Current(t).AdminClient(), ns)
	kubectl(t, "create", "deployment", "web", "-n", ns, "--image=registry.example.com/web:v1", "--replicas=6")
	kubectl(t, "rollout", "status", "deployment/web", "-n", ns, "--timeout="+rolloutTimeout.String())

	var nodes, pods struct {
		Items []struct {
			Metadata struct {
				Name   string            `json:"name"`
				Labels map[string]string `json:"labels"`
			} `json:"metadata"`
			Spec struct {
				NodeName string `json:"nodeName"`
			} `json:"spec"`
		} `json:"items"`
	}
	if err := json.Unmarshal([]byte(kubectl(t, "get", "nodes", "-o", "json")), &nodes); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(kubectl(t, "get", "pods", "-n", ns, "-o", "json")), &pods); err != nil {
		t.Fatal(err)
	}
	zoneOf := map[string]string{}
	for _, n := range nodes.Items {
		if z, ok := n.Metadata.Labels[zoneLabel]; ok {
			zoneOf[n.Metadata.Name] = z
		}
	}
	byZone := map[string][]string{}
	for _, p := range pods.Items {
		if z, ok := zoneOf[p.Spec.NodeName]; ok {
			byZone[z] = append(byZone[z], "pod/"+p.Metadata.Name)
		}
	}
	if len(byZone) == 0 {
		t.Fatalf("no pod runs on a node with label %s: %+v", zoneLabel, nodes.Items)
	}

	r := mustInformer(t, "query", "pods", "-n", ns, "--group-by", "node.label:"+zoneLabel, "--no-headers")
	got := map[string]int{}
	for _, l := range lines(r.Stdout) {
		f := strings.Fields(l)
		n, err := strconv.Atoi(f[len(f)-1])
		if err != nil || len(f) != 2 {
			t.Fatalf("group-by line %q is not VALUE COUNT", l)
		}
		got[f[0]] = n
	}
	want := map[string]int{}
	for z, names := range byZone {
		want[z] = len(names)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("query pods --group-by node.label:%s = %v, want %v", zoneLabel, got, want)
	}
	// Two relationship keys and a sum: the grouped path reads the bound
	// indexes too (every pod is owned by Deployment/web).
	r = mustInformer(t, "query", "pods", "-n", ns, "--group-by", "node.label:"+zoneLabel+",owner-root", "--sum", "containers", "--no-headers")
	gotTwo := map[string]string{}
	for _, l := range lines(r.Stdout) {
		f := strings.Fields(l)
		if f[0] == "TOTAL" {
			continue
		}
		if len(f) != 4 {
			t.Fatalf("group-by line %q is not ZONE OWNER-ROOT COUNT CONTAINERS", l)
		}
		gotTwo[f[0]+" "+f[1]] = f[2] + " " + f[3]
	}
	wantTwo := map[string]string{}
	for z, n := range want {
		wantTwo[z+" Deployment/web"] = fmt.Sprintf("%d %d", n, n)
	}
	if fmt.Sprint(gotTwo) != fmt.Sprint(wantTwo) {
		t.Errorf("query pods --group-by node.label:%s,owner-root --sum containers = %v, want %v", zoneLabel, gotTwo, wantTwo)
	}
	for z, names := range byZone {
		sort.Strings(names)
		r := mustInformer(t, "query", "pods", "-n", ns, "--index", "node.label:"+zoneLabel+"="+z, "-o", "name")
		if got := lines(r.Stdout); !slices.Equal(got, names) {
			t.Errorf("query pods --index node.label:%s=%s -o name = %q, want %q", zoneLabel, z, got, names)
		}
	}
}
