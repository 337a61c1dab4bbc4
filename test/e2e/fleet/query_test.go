package fleet

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// The objects of these tests: in context fleet-I (I = 1..3), namespace shop
// holds I+1 pods p-1..p-(I+1); pod p-J is bound to node node-(J%2) and
// requests 100m×J of CPU. Each cluster has the node objects node-0 and
// node-1 (in zone-0 and zone-1; nothing runs them). Cluster 2 also has pod
// viewed in team-a, which its viewer may read.
const namespace = "shop"

var (
	seedOnce sync.Once
	seedErr  error
)

func podYAML(name, ns, node, cpu string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata:
  name: %s
  namespace: %s
  labels: {app: fleet-test}
spec:
  nodeName: %s
  containers:
  - name: c
    image: nginx:1.27
    resources:
      requests: {cpu: %s}
---
`, name, ns, node, cpu)
}

// nodeYAML is a node object (nothing runs it) with cpu CPUs allocatable.
func nodeYAML(name, zone, cpu string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Node
metadata:
  name: %s
  labels: {topology.kubernetes.io/zone: %s}
status:
  allocatable: {cpu: "%s", memory: 8Gi, pods: "110"}
  capacity: {cpu: "%s", memory: 8Gi, pods: "110"}
---
`, name, zone, cpu, cpu)
}

// seed creates the objects once per package run.
func seed(t *testing.T) {
	t.Helper()
	f := framework.CurrentFleet(t)
	seedOnce.Do(func() {
		for i, c := range f.Contexts {
			// No controllers run: the namespace's default service
			// account, which admission requires, is made by hand.
			manifest := fmt.Sprintf("apiVersion: v1\nkind: Namespace\nmetadata: {name: %s}\n---\napiVersion: v1\nkind: ServiceAccount\nmetadata: {name: default, namespace: %s}\n---\n", namespace, namespace)
			for j := 1; j <= i+2; j++ {
				manifest += podYAML(fmt.Sprintf("p-%d", j), namespace, fmt.Sprintf("node-%d", j%2), fmt.Sprintf("%dm", 100*j))
			}
			if i == 1 {
				manifest += podYAML("viewed", "team-a", "node-0", "50m")
			}
			for n := 0; n < 2; n++ {
				manifest += nodeYAML(fmt.Sprintf("node-%d", n), fmt.Sprintf("zone-%d", n), fmt.Sprintf("%d", 2+i+n))
			}
			r := framework.Run(t, framework.Cmd{Args: []string{"create", "-f", "-", "--context", c}, Kubeconfig: f.Kubeconfig, Stdin: manifest})
			if r.ExitCode != 0 {
				seedErr = fmt.Errorf("creating the objects in %s: %s", c, r)
				return
			}
		}
	})
	if seedErr != nil {
		t.Fatal(seedErr)
	}
}

// informer runs `kubectl informer ARGS` with the fleet's kubeconfig.
func informer(t *testing.T, args ...string) framework.Result {
	t.Helper()
	f := framework.CurrentFleet(t)
	return framework.Run(t, framework.Cmd{Args: append([]string{"informer"}, args...), Kubeconfig: f.Kubeconfig, Timeout: 3 * time.Minute})
}

// rows splits a table into its rows' fields, with the last field (AGE of
// pods) blanked.
func rows(table string) [][]string {
	var out [][]string
	for _, line := range strings.Split(strings.TrimRight(table, "\n"), "\n") {
		if line == "" {
			continue
		}
		fields := strings.Fields(line)
		fields[len(fields)-1] = ""
		out = append(out, fields)
	}
	return out
}

// expectedRows is what a fleet table of the pods in shop must hold: each
// context's `kubectl get pods` rows, in the order of contexts, with the
// context first.
func expectedRows(t *testing.T, contexts ...string) [][]string {
	t.Helper()
	var want [][]string
	for _, c := range contexts {
		for _, r := range rows(kubectl(t, c, "get", "pods", "-n", namespace, "--no-headers")) {
			want = append(want, append([]string{c}, r...))
		}
	}
	return want
}

func TestFleetQueryIsTheUnionOfEachContext(t *testing.T) {
	seed(t)
	f := framework.CurrentFleet(t)
	want := expectedRows(t, f.Contexts...)
	if len(want) != 2+3+4 {
		t.Fatalf("kubectl lists %d pods in the fleet, want 9: %q", len(want), want)
	}
	for _, sel := range [][]string{
		{"--context", strings.Join(f.Contexts, ",")},
		{"--context", "fleet-*"},
		{"--context", "fleet-[12],fleet-3"},
	} {
		t.Run(strings.Join(sel, "="), func(t *testing.T) {
			r := informer(t, append([]string{"query", "pods", "-n", namespace}, sel...)...)
			if r.ExitCode != 0 {
				t.Fatalf("query: %s", r)
			}
			got := rows(r.Stdout)
			header := strings.Fields(strings.SplitN(r.Stdout, "\n", 2)[0])
			if want := []string{"CONTEXT", "NAME", "READY", "STATUS", "RESTARTS", "AGE"}; !reflect.DeepEqual(header, want) {
				t.Errorf("header %q, want %q", header, want)
			}
			if !reflect.DeepEqual(got[1:], want) {
				t.Errorf("rows:\n got %q\nwant %q", got[1:], want)
			}
		})
	}
	r := informer(t, "query", "pods", "-n", namespace, "--context", "fleet-*", "--no-headers", "--sort-by", "{.spec.containers[0].resources.requests.cpu}")
	if r.ExitCode != 0 {
		t.Fatalf("query --sort-by: %s", r)
	}
	// Sorted by CPU across contexts; ties keep the contexts' order.
	var order []string
	for _, row := range rows(r.Stdout) {
		order = append(order, row[0]+"/"+row[1])
	}
	// Pod p-J requests 100m×J (seed), and context I has pods 1..I+1.
	var wantOrder []string
	for j := 1; j <= len(f.Contexts)+1; j++ {
		for i, c := range f.Contexts {
			if j <= i+2 {
				wantOrder = append(wantOrder, fmt.Sprintf("%s/p-%d", c, j))
			}
		}
	}
	if !reflect.DeepEqual(order, wantOrder) {
		t.Errorf("--sort-by across contexts:\n got %q\nwant %q", order, wantOrder)
	}
}

func TestFleetOutputNameAndJSON(t *testing.T) {
	seed(t)
	f := framework.CurrentFleet(t)
	var wantNames []string
	for _, c := range f.Contexts {
		for _, n := range strings.Fields(kubectl(t, c, "get", "pods", "-n", namespace, "-o", "name")) {
			wantNames = append(wantNames, c+"/"+n)
		}
	}
	r := informer(t, "query", "pods", "-n", namespace, "--context", "fleet-*", "-o", "name")
	if r.ExitCode != 0 {
		t.Fatalf("query -o name: %s", r)
	}
	if got := strings.Fields(r.Stdout); !reflect.DeepEqual(got, wantNames) {
		t.Errorf("-o name:\n got %q\nwant %q", got, wantNames)
	}

	r = informer(t, "query", "pods", "-n", namespace, "--context", "fleet-*", "-o", "json")
	if r.ExitCode != 0 {
		t.Fatalf("query -o json: %s", r)
	}
	var list struct {
		Kind     string   `json:"kind"`
		Contexts []string `json:"contexts"`
		Items    []struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name string `json:"name"`
				UID  string `json:"uid"`
			} `json:"metadata"`
		} `json:"items"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &list); err != nil {
		t.Fatalf("parsing -o json: %v\n%s", err, r.Stdout)
	}
	if list.Kind != "List" || len(list.Items) != len(list.Contexts) {
		t.Fatalf("-o json: kind %q, %d items and %d contexts; want a List with a context per item", list.Kind, len(list.Items), len(list.Contexts))
	}
	var got []string
	for i, item := range list.Items {
		got = append(got, list.Contexts[i]+"/"+strings.ToLower(item.Kind)+"/"+item.Metadata.Name)
		// The item is the object of that context, unchanged: its UID is
		// the one kubectl reads there.
		if uid := kubectl(t, list.Contexts[i], "get", "pod", "-n", namespace, item.Metadata.Name, "-o", "jsonpath={.metadata.uid}"); uid != item.Metadata.UID {
			t.Errorf("item %d: uid %s, but %s in context %s", i, item.Metadata.UID, uid, list.Contexts[i])
		}
	}
	if !reflect.DeepEqual(got, wantNames) {
		t.Errorf("-o json items:\n got %q\nwant %q", got, wantNames)
	}
}

// podFacts is what the group-by tests compute from kubectl get -o json.
type podFacts struct {
	context, node string
	cpu           resource.Quantity
}

func facts(t *testing.T, contexts []string) []podFacts {
	t.Helper()
	var out []podFacts
	for _, c := range contexts {
		var list struct {
			Items []struct {
				Spec struct {
					NodeName   string `json:"nodeName"`
					Containers []struct {
						Resources struct {
							Requests map[string]string `json:"requests"`
						} `json:"resources"`
					} `json:"containers"`
				} `json:"spec"`
			} `json:"items"`
		}
		if err := json.Unmarshal([]byte(kubectl(t, c, "get", "pods", "-n", namespace, "-o", "json")), &list); err != nil {
			t.Fatalf("parsing kubectl get pods -o json in %s: %v", c, err)
		}
		for _, p := range list.Items {
			var cpu resource.Quantity
			for _, ctr := range p.Spec.Containers {
				cpu.Add(resource.MustParse(ctr.Resources.Requests["cpu"]))
			}
			out = append(out, podFacts{context: c, node: p.Spec.NodeName, cpu: cpu})
		}
	}
	return out
}

// groupRows parses a grouped table into key → the remaining cells, without
// the header; keys are the first nKeys cells joined by '/'.
func groupRows(t *testing.T, table string, nKeys int) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	lines := strings.Split(strings.TrimRight(table, "\n"), "\n")
	for _, line := range lines[1:] {
		fields := strings.Fields(line)
		if fields[0] == "TOTAL" {
			out["TOTAL"] = fields[1:]
			continue
		}
		out[strings.Join(fields[:nKeys], "/")] = fields[nKeys:]
	}
	return out
}

func TestFleetGroupBySumsOverContexts(t *testing.T) {
	seed(t)
	f := framework.CurrentFleet(t)
	all := facts(t, f.Contexts)
	type agg struct {
		n   int
		cpu resource.Quantity
	}
	sum := func(key func(podFacts) string) map[string][]string {
		m := map[string]*agg{}
		var total agg
		for _, p := range all {
			k := key(p)
			if m[k] == nil {
				m[k] = &agg{}
			}
			m[k].n++
			m[k].cpu.Add(p.cpu)
			total.n++
			total.cpu.Add(p.cpu)
		}
		out := map[string][]string{"TOTAL": {strconv.Itoa(total.n), total.cpu.String()}}
		for k, a := range m {
			out[k] = []string{strconv.Itoa(a.n), a.cpu.String()}
		}
		return out
	}
	for _, tc := range []struct {
		groupBy string
		nKeys   int
		key     func(podFacts) string
	}{
		{"node", 1, func(p podFacts) string { return p.node }},
		{"context", 1, func(p podFacts) string { return p.context }},
		{"context,node", 2, func(p podFacts) string { return p.context + "/" + p.node }},
		{"node,context", 2, func(p podFacts) string { return p.node + "/" + p.context }},
	} {
		t.Run(tc.groupBy, func(t *testing.T) {
			r := informer(t, "query", "pods", "-n", namespace, "--context", "fleet-*", "--group-by", tc.groupBy, "--sum", "requests.cpu")
			if r.ExitCode != 0 {
				t.Fatalf("query: %s", r)
			}
			if got, want := groupRows(t, r.Stdout, tc.nKeys), sum(tc.key); !reflect.DeepEqual(got, want) {
				t.Errorf("--group-by %s --sum requests.cpu:\n got %v\nwant %v\n%s", tc.groupBy, got, want, r.Stdout)
			}
		})
	}
	// Counts alone, largest first: a node's count is its sum over clusters.
	r := informer(t, "query", "pods", "-n", namespace, "--context", "fleet-*", "--group-by", "node")
	if r.ExitCode != 0 {
		t.Fatalf("query: %s", r)
	}
	byNode := map[string]int{}
	for _, p := range all {
		byNode[p.node]++
	}
	nodes := make([]string, 0, len(byNode))
	for n := range byNode {
		nodes = append(nodes, n)
	}
	sort.Slice(nodes, func(i, j int) bool {
		if byNode[nodes[i]] != byNode[nodes[j]] {
			return byNode[nodes[i]] > byNode[nodes[j]]
		}
		return nodes[i] < nodes[j]
	})
	want := "NODE     COUNT\n"
	for _, n := range nodes {
		want += fmt.Sprintf("%-8s %d\n", n, byNode[n])
	}
	if r.Stdout != want {
		t.Errorf("--group-by node:\n got %q\nwant %q", r.Stdout, want)
	}
	// Counts alone by context: a row per context, its count of pods.
	r = informer(t, "query", "pods", "-n", namespace, "--context", "fleet-*", "--group-by", "context")
	if r.ExitCode != 0 {
		t.Fatalf("query --group-by context: %s", r)
	}
	byContext := map[string][]string{}
	for _, p := range all {
		n := 0
		if c := byContext[p.context]; c != nil {
			n, _ = strconv.Atoi(c[0])
		}
		byContext[p.context] = []string{strconv.Itoa(n + 1)}
	}
	if got := groupRows(t, r.Stdout, 1); !reflect.DeepEqual(got, byContext) {
		t.Errorf("--group-by context:\n got %v\nwant %v\n%s", got, byContext, r.Stdout)
	}
}

func TestFleetContextIndex(t *testing.T) {
	seed(t)
	f := framework.CurrentFleet(t)
	for _, tc := range []struct {
		selector string
		want     []string
	}{
		{"context=fleet-2", []string{"fleet-2"}},
		{"context!=fleet-2", []string{"fleet-1", "fleet-3"}},
		{"context in (fleet-3,fleet-1)", []string{"fleet-1", "fleet-3"}},
	} {
		t.Run(tc.selector, func(t *testing.T) {
			r := informer(t, "query", "pods", "-n", namespace, "--context", strings.Join(f.Contexts, ","), "--index", tc.selector, "--no-headers")
			if r.ExitCode != 0 {
				t.Fatalf("query: %s", r)
			}
			if got, want := rows(r.Stdout), expectedRows(t, tc.want...); !reflect.DeepEqual(got, want) {
				t.Errorf("--index %s:\n got %q\nwant %q", tc.selector, got, want)
			}
		})
	}
}

func TestFleetPartialFailure(t *testing.T) {
	seed(t)
	f := framework.CurrentFleet(t)
	for _, tc := range []struct {
		name, context, failed, reason string
		answered                      []string
	}{
		{"dead", "fleet-1," + f.Dead + ",fleet-3", f.Dead, "connection refused", []string{"fleet-1", "fleet-3"}},
		{"unknown", "fleet-2,no-such-context", "no-such-context", "not in the kubeconfig", []string{"fleet-2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := informer(t, "query", "pods", "-n", namespace, "--context", tc.context, "--no-headers")
			if r.ExitCode != 1 {
				t.Errorf("exit code %d, want 1: %s", r.ExitCode, r)
			}
			line := "error: context " + tc.failed + ": "
			if n := strings.Count(r.Stderr, line); n != 1 || !strings.Contains(r.Stderr, tc.reason) {
				t.Errorf("stderr names %q %d times (want once, with %q):\n%s", line, n, tc.reason, r.Stderr)
			}
			for _, c := range tc.answered {
				if strings.Contains(r.Stderr, "context "+c+":") {
					t.Errorf("stderr names context %s, which answered:\n%s", c, r.Stderr)
				}
			}
			if got, want := rows(r.Stdout), expectedRows(t, tc.answered...); !reflect.DeepEqual(got, want) {
				t.Errorf("rows of the contexts that answered:\n got %q\nwant %q", got, want)
			}
		})
	}
	r := informer(t, "query", "pods", "-n", namespace, "--context", "fleet-1,qa-*")
	if r.ExitCode != 1 || !strings.Contains(r.Stderr, `pattern "qa-*" matches no context`) || r.Stdout != "" {
		t.Errorf("a pattern that matches nothing: want exit 1, an error naming it and no answer: %s", r)
	}
}

// TestFleetViewerReadsLess checks that each context is its own identity: the
// viewer of cluster 2 may read pods in team-a only.
func TestFleetViewerReadsLess(t *testing.T) {
	seed(t)
	f := framework.CurrentFleet(t)
	sel := f.Contexts[0] + "," + f.ViewerContexts[1]
	r := informer(t, "query", "pods", "-n", "team-a", "--context", sel, "-o", "name")
	if r.ExitCode != 0 {
		t.Fatalf("query -n team-a: %s", r)
	}
	want := []string{f.ViewerContexts[1] + "/pod/viewed"}
	if got := strings.Fields(r.Stdout); !reflect.DeepEqual(got, want) {
		t.Errorf("-n team-a as admin of cluster 1 and viewer of cluster 2: got %q, want %q", got, want)
	}
	r = informer(t, "query", "pods", "-n", namespace, "--context", sel, "--no-headers")
	if r.ExitCode != 1 || !strings.Contains(r.Stderr, "error: context "+f.ViewerContexts[1]+": ") || !strings.Contains(r.Stderr, "forbidden") {
		t.Errorf("-n %s as viewer: want context %s named forbidden, exit 1: %s", namespace, f.ViewerContexts[1], r)
	}
	if got, want := rows(r.Stdout), expectedRows(t, f.Contexts[0]); !reflect.DeepEqual(got, want) {
		t.Errorf("the admin context's rows:\n got %q\nwant %q", got, want)
	}
}

// TestFleetOneContextIsUnchanged checks that a plain --context answers as a
// query always has: kubectl's table, no CONTEXT column.
func TestFleetOneContextIsUnchanged(t *testing.T) {
	seed(t)
	f := framework.CurrentFleet(t)
	for _, args := range [][]string{
		{"get", "pods", "-n", namespace},
		{"get", "pods", "-n", namespace, "-o", "name"},
	} {
		want := kubectl(t, f.Contexts[2], args...)
		r := informer(t, append([]string{"query"}, append(args[1:], "--context", f.Contexts[2])...)...)
		if r.ExitCode != 0 {
			t.Fatalf("query: %s", r)
		}
		if slices.Contains(args, "name") {
			if r.Stdout != want {
				t.Errorf("query %v:\n got %q\nwant %q", args[1:], r.Stdout, want)
			}
			continue
		}
		if got, want := rows(r.Stdout), rows(want); !reflect.DeepEqual(got, want) {
			t.Errorf("query %v:\n got %q\nwant %q", args[1:], got, want)
		}
	}
}
