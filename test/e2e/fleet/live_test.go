package fleet

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// liveNamespace is where the tests of this file create their pods, apart
// from the pods other tests create and delete in namespace shop.
const liveNamespace = "fleet-live"

// livePod is what the tests read of a pod from kubectl get -o json.
type livePod struct {
	Metadata struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		NodeName   string `json:"nodeName"`
		Containers []struct {
			Resources struct {
				Requests map[string]string `json:"requests"`
			} `json:"resources"`
		} `json:"containers"`
	} `json:"spec"`
}

// createLiveNamespace creates liveNamespace (and its default service
// account, which admission requires and no controller makes here) in
// context c, if it is not there yet.
func createLiveNamespace(t *testing.T, f *framework.Fleet, c string) {
	t.Helper()
	r := framework.Run(t, framework.Cmd{Args: []string{"get", "namespace", liveNamespace, "--context", c}, Kubeconfig: f.Kubeconfig})
	if r.ExitCode == 0 {
		return
	}
	manifest := fmt.Sprintf("apiVersion: v1\nkind: Namespace\nmetadata: {name: %s}\n---\napiVersion: v1\nkind: ServiceAccount\nmetadata: {name: default, namespace: %s}\n", liveNamespace, liveNamespace)
	runKubectl(t, f, manifest, "create", "-f", "-", "--context", c)
}

// livePods lists liveNamespace's pods in context c with kubectl.
func livePods(t *testing.T, c string) []livePod {
	t.Helper()
	var list struct {
		Items []livePod `json:"items"`
	}
	if err := json.Unmarshal([]byte(kubectl(t, c, "get", "pods", "-n", liveNamespace, "-o", "json")), &list); err != nil {
		t.Fatalf("kubectl get pods in %s: %v", c, err)
	}
	return list.Items
}

// liveGroup is a group's count and sum of requests.cpu.
type liveGroup struct {
	count int64
	cpu   resource.Quantity
}

func (g liveGroup) String() string { return fmt.Sprintf("count %d, cpu %s", g.count, g.cpu.String()) }

// expectedGroups computes, from kubectl get -o json in each context, the
// groups of watch --group-by groupBy --sum requests.cpu by the documented
// rules: a group is a combination of key values (context: the pod's
// context; node: its spec.nodeName), its count and sum added up over the
// contexts; requests.cpu of these pods (one container, no init
// containers, no overhead) is their container's cpu request.
func expectedGroups(t *testing.T, contexts, groupBy []string) map[string]liveGroup {
	t.Helper()
	groups := map[string]liveGroup{}
	for _, c := range contexts {
		for _, p := range livePods(t, c) {
			var key []string
			for _, k := range groupBy {
				switch k {
				case "context":
					key = append(key, c)
				case "node":
					key = append(key, p.Spec.NodeName)
				default:
					t.Fatalf("expectedGroups: unknown key %s", k)
				}
			}
			g := groups[strings.Join(key, " ")]
			g.count++
			for _, ctr := range p.Spec.Containers {
				if v, ok := ctr.Resources.Requests["cpu"]; ok {
					g.cpu.Add(resource.MustParse(v))
				}
			}
			groups[strings.Join(key, " ")] = g
		}
	}
	return groups
}

// sameGroups compares groups by count and by the value of the sums.
func sameGroups(a, b map[string]liveGroup) bool {
	if len(a) != len(b) {
		return false
	}
	for k, g := range a {
		h, ok := b[k]
		if !ok || g.count != h.count || g.cpu.Cmp(h.cpu) != 0 {
			return false
		}
	}
	return true
}

// TestFleetWatchGroupsLive runs watch --group-by … --sum requests.cpu over
// two contexts and the dead one, off a terminal: the table printed first
// holds the groups computed from kubectl get in each context, the dead
// context is named once on stderr, and after pods are created and deleted
// in both contexts the change lines bring the table to the groups computed
// again; Ctrl-C then ends it with exit 1, for the dead context.
func TestFleetWatchGroupsLive(t *testing.T) {
	f := framework.CurrentFleet(t)
	a, b := f.Contexts[0], f.Contexts[1]
	for _, c := range []string{a, b} {
		createLiveNamespace(t, f, c)
	}
	for _, groupBy := range [][]string{{"context", "node"}, {"node"}} {
		t.Run(strings.Join(groupBy, ","), func(t *testing.T) {
			tag := strings.ReplaceAll(strings.Join(groupBy, "-"), ",", "-")
			// Pods on node-0 in both contexts, so that merging adds up.
			for i, c := range []string{a, b} {
				manifest := podYAML("g-"+tag+"-keep", liveNamespace, "node-0", fmt.Sprintf("%dm", 100*(i+1)))
				manifest += podYAML("g-"+tag+"-gone", liveNamespace, fmt.Sprintf("node-%d", i), "50m")
				runKubectl(t, f, manifest, "create", "-f", "-", "--context", c)
			}
			p := framework.Start(t, framework.Cmd{
				Args: []string{"informer", "watch", "pods", "-n", liveNamespace, "--context", a + "," + b + "," + f.Dead,
					"--group-by", strings.Join(groupBy, ","), "--sum", "requests.cpu"},
				Kubeconfig: f.Kubeconfig,
				Timeout:    6 * time.Minute,
			})
			defer func() {
				_ = p.Kill()
				p.Wait()
			}()
			header, err := p.NextLine(3 * time.Minute)
			if err != nil {
				t.Fatalf("no table: %v", err)
			}
			wantHeader := append(strings.Split(strings.ToUpper(strings.Join(groupBy, " ")), " "), "COUNT", "REQUESTS.CPU")
			if got := strings.Fields(header); !reflect.DeepEqual(got, wantHeader) {
				t.Fatalf("header %q, want %q", got, wantHeader)
			}
			state := map[string]liveGroup{}
			for {
				line, err := p.NextLine(time.Minute)
				if err != nil {
					t.Fatalf("reading the table: %v", err)
				}
				fields := strings.Fields(line)
				if len(fields) > 0 && fields[0] == "TOTAL" {
					break
				}
				if len(fields) != len(groupBy)+2 {
					t.Fatalf("table row %q has %d cells, want %d", line, len(fields), len(groupBy)+2)
				}
				g := liveGroup{cpu: resource.MustParse(fields[len(groupBy)+1])}
				fmt.Sscan(fields[len(groupBy)], &g.count)
				state[strings.Join(fields[:len(groupBy)], " ")] = g
			}
			if want := expectedGroups(t, []string{a, b}, groupBy); !sameGroups(state, want) {
				t.Errorf("first table %v, want %v (from kubectl get)", state, want)
			}
			waitStderr(t, p, "error: context "+f.Dead+": ")
			// Changes in both contexts: one pod more in a, one less in b.
			runKubectl(t, f, podYAML("g-"+tag+"-new", liveNamespace, "node-1", "300m"), "create", "-f", "-", "--context", a)
			runKubectl(t, f, "", "delete", "pod", "g-"+tag+"-gone", "-n", liveNamespace, "--context", b, "--grace-period=0", "--force")
			want := expectedGroups(t, []string{a, b}, groupBy)
			deadline := time.Now().Add(2 * time.Minute)
			for !sameGroups(state, want) {
				line, err := p.NextLine(time.Until(deadline))
				if err != nil {
					t.Fatalf("groups %v, want %v after the changes: %v", state, want, err)
				}
				key, g, ok := parseChangeLine(t, line, groupBy)
				if !ok {
					continue
				}
				if g.count == 0 {
					delete(state, key)
				} else {
					state[key] = g
				}
			}
			if n := strings.Count(p.Stderr(), "error: context "+f.Dead+": "); n != 1 {
				t.Errorf("the dead context is named %d times on stderr, want once:\n%s", n, p.Stderr())
			}
			if err := p.Interrupt(); err != nil {
				t.Fatal(err)
			}
			r := p.Wait()
			if r.ExitCode != 1 {
				t.Errorf("exit code %d after Ctrl-C with a dead context, want 1: %s", r.ExitCode, r)
			}
			t.Logf("stdout:\n%s\nstderr:\n%s", r.Stdout, r.Stderr)
			for _, c := range []string{a, b} {
				runKubectl(t, f, "", "delete", "pods", "--all", "-n", liveNamespace, "--context", c, "--grace-period=0", "--force")
			}
		})
	}
}

// parseChangeLine reads a change line, "context=a node=node-0: count 1 →
// 2, requests.cpu 100m → 300m", as its group's key and state after.
func parseChangeLine(t *testing.T, line string, groupBy []string) (string, liveGroup, bool) {
	t.Helper()
	keys, values, ok := strings.Cut(line, ": ")
	if !ok {
		t.Fatalf("change line %q has no ': '", line)
	}
	var key []string
	for i, kv := range strings.Fields(keys) {
		name, value, _ := strings.Cut(kv, "=")
		if i >= len(groupBy) || name != groupBy[i] {
			t.Fatalf("change line %q: key %q, want the keys %v", line, kv, groupBy)
		}
		key = append(key, value)
	}
	after := func(part, name string) string {
		part = strings.TrimPrefix(strings.TrimSpace(part), name+" ")
		if _, to, ok := strings.Cut(part, " → "); ok {
			return to
		}
		return part
	}
	count, cpu, ok := strings.Cut(values, ", ")
	if !ok {
		t.Fatalf("change line %q has no sum", line)
	}
	var g liveGroup
	fmt.Sscan(after(count, "count"), &g.count)
	g.cpu = resource.MustParse(after(cpu, "requests.cpu"))
	return strings.Join(key, " "), g, true
}

// TestFleetQueryWatchNamesEachRowsContext runs query -w over two contexts
// and the dead one: the answer first, as rows naming their context, equal
// to the pods kubectl get lists in each context (in the order of the
// contexts); the dead context named once on stderr; then a row for a pod
// created in each context, naming its context (table: the CONTEXT column;
// -o name: CONTEXT/pod/NAME; -o json: the List of the one pod with its
// context in contexts).
func TestFleetQueryWatchNamesEachRowsContext(t *testing.T) {
	f := framework.CurrentFleet(t)
	a, b := f.Contexts[0], f.Contexts[1]
	for _, c := range []string{a, b} {
		createLiveNamespace(t, f, c)
	}
	for _, output := range []string{"table", "name", "json"} {
		t.Run(output, func(t *testing.T) {
			for i, c := range []string{a, b} {
				var manifest string
				for j := 0; j <= i; j++ {
					manifest += podYAML(fmt.Sprintf("w-%s-%d", output, j), liveNamespace, "node-0", "10m")
				}
				runKubectl(t, f, manifest, "create", "-f", "-", "--context", c)
			}
			args := []string{"informer", "query", "pods", "-n", liveNamespace, "--context", a + "," + b + "," + f.Dead, "-w"}
			if output != "table" {
				args = append(args, "-o", output)
			}
			p := framework.Start(t, framework.Cmd{Args: args, Kubeconfig: f.Kubeconfig, Timeout: 6 * time.Minute})
			defer func() {
				_ = p.Kill()
				p.Wait()
			}()
			var want []string // context/name of the answer, in order
			for _, c := range []string{a, b} {
				var names []string
				for _, pod := range livePods(t, c) {
					names = append(names, pod.Metadata.Name)
				}
				sort.Strings(names)
				for _, n := range names {
					want = append(want, c+"/"+n)
				}
			}
			if output == "table" {
				header, err := p.NextLine(3 * time.Minute)
				if err != nil {
					t.Fatalf("no header: %v", err)
				}
				if fields := strings.Fields(header); len(fields) < 2 || fields[0] != "CONTEXT" || fields[1] != "NAME" {
					t.Fatalf("header %q, want CONTEXT NAME …", header)
				}
			}
			read := readQueryWatchRow(t, p, output)
			var got []string
			for range want {
				got = append(got, read(3*time.Minute))
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("the answer's rows name %q, want %q (kubectl get in each context)", got, want)
			}
			waitStderr(t, p, "error: context "+f.Dead+": ")
			created := map[string]string{}
			for _, c := range []string{a, b} {
				name := fmt.Sprintf("w-%s-new-%s", output, c)
				runKubectl(t, f, podYAML(name, liveNamespace, "node-1", "10m"), "create", "-f", "-", "--context", c)
				created[c+"/"+name] = c
			}
			deadline := time.Now().Add(2 * time.Minute)
			for len(created) > 0 {
				row := read(time.Until(deadline))
				delete(created, row)
			}
			if n := strings.Count(p.Stderr(), "error: context "+f.Dead+": "); n != 1 {
				t.Errorf("the dead context is named %d times on stderr, want once:\n%s", n, p.Stderr())
			}
			if err := p.Interrupt(); err != nil {
				t.Fatal(err)
			}
			r := p.Wait()
			if r.ExitCode != 1 {
				t.Errorf("exit code %d after Ctrl-C with a dead context, want 1: %s", r.ExitCode, r)
			}
			t.Logf("stdout:\n%s\nstderr:\n%s", r.Stdout, r.Stderr)
			for _, c := range []string{a, b} {
				runKubectl(t, f, "", "delete", "pods", "--all", "-n", liveNamespace, "--context", c, "--grace-period=0", "--force")
			}
		})
	}
}

// readQueryWatchRow returns a function reading the next row (or object) of
// query -w's output as CONTEXT/NAME.
func readQueryWatchRow(t *testing.T, p *framework.Process, output string) func(time.Duration) string {
	return func(timeout time.Duration) string {
		t.Helper()
		switch output {
		case "name":
			line, err := p.NextLine(timeout)
			if err != nil {
				t.Fatalf("reading a row: %v", err)
			}
			c, name, ok := strings.Cut(line, "/pod/")
			if !ok {
				t.Fatalf("-o name line %q is not CONTEXT/pod/NAME", line)
			}
			return c + "/" + name
		case "json":
			// Each object is an indented JSON document; its end is a
			// line "}".
			var doc strings.Builder
			for {
				line, err := p.NextLine(timeout)
				if err != nil {
					t.Fatalf("reading an object: %v; so far %q", err, doc.String())
				}
				doc.WriteString(line + "\n")
				if line == "}" {
					break
				}
			}
			var list struct {
				Kind     string    `json:"kind"`
				Items    []livePod `json:"items"`
				Contexts []string  `json:"contexts"`
			}
			if err := json.Unmarshal([]byte(doc.String()), &list); err != nil {
				t.Fatalf("object %q: %v", doc.String(), err)
			}
			if list.Kind != "List" || len(list.Items) != 1 || len(list.Contexts) != 1 {
				t.Fatalf("object is not a List of one item with its context:\n%s", doc.String())
			}
			return list.Contexts[0] + "/" + list.Items[0].Metadata.Name
		}
		line, err := p.NextLine(timeout)
		if err != nil {
			t.Fatalf("reading a row: %v", err)
		}
		fields := strings.Fields(line)
		if len(fields) < 2 {
			t.Fatalf("row %q has no CONTEXT and NAME", line)
		}
		return fields[0] + "/" + fields[1]
	}
}
