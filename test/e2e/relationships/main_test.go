// Package relationships tests the relationship features of kubectl-informer
// (the owner-root index and the tree command) against objects made by real
// controllers: a cluster with kube-controller-manager, kube-scheduler and
// nodes simulated by kwok, where Deployments roll out and Jobs created from
// CronJobs run. Every answer is compared with relationships the test
// computes itself from `kubectl get -o json`.
package relationships

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

func TestMain(m *testing.M) { framework.Main(m, framework.WithNodes(3)) }

// rolloutTimeout bounds each step that waits for controllers on a loaded
// two-core machine.
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

// informer runs `kubectl informer ARGS` as the user of kubeconfig ("" for
// the admin) and returns how it ended.
func informer(t *testing.T, kubeconfig string, args ...string) framework.Result {
	t.Helper()
	return framework.Run(t, framework.Cmd{Args: append([]string{"informer"}, args...), Kubeconfig: kubeconfig})
}

// mustInformer is informer that fails the test unless the command exits 0.
func mustInformer(t *testing.T, args ...string) framework.Result {
	t.Helper()
	r := informer(t, "", args...)
	if r.ExitCode != 0 {
		t.Fatalf("kubectl informer %s: %s", strings.Join(args, " "), r)
	}
	return r
}

// ownerRef is the part of an ownerReference the test follows.
type ownerRef struct {
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	UID        string `json:"uid"`
	Controller bool   `json:"controller"`
}

// object is the part of an object the test reads.
type object struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name            string     `json:"name"`
		UID             string     `json:"uid"`
		OwnerReferences []ownerRef `json:"ownerReferences"`
	} `json:"metadata"`
}

// kindName is "Kind/name", as owner-root values are written.
func (o object) kindName() string { return o.Kind + "/" + o.Metadata.Name }

// resourceName is kubectl's -o name, "deployment.apps/web".
func (o object) resourceName() string {
	kind := strings.ToLower(o.Kind)
	if group, _, ok := strings.Cut(o.APIVersion, "/"); ok {
		kind += "." + group
	}
	return kind + "/" + o.Metadata.Name
}

// graph is the ownership graph of a namespace, as `kubectl get -o json`
// shows it.
type graph struct {
	byUID map[string]object
	// dependents holds, by owner UID, the objects with a reference to it.
	dependents map[string][]object
}

// readGraph reads types in ns with the real kubectl and indexes the
// ownerReferences.
func readGraph(t *testing.T, ns, types string) graph {
	t.Helper()
	var list struct {
		Items []object `json:"items"`
	}
	if err := json.Unmarshal([]byte(kubectl(t, "get", types, "-n", ns, "-o", "json")), &list); err != nil {
		t.Fatalf("decoding kubectl get %s: %v", types, err)
	}
	g := graph{byUID: map[string]object{}, dependents: map[string][]object{}}
	for _, o := range list.Items {
		g.byUID[o.Metadata.UID] = o
		for _, ref := range o.Metadata.OwnerReferences {
			g.dependents[ref.UID] = append(g.dependents[ref.UID], o)
		}
	}
	for uid := range g.dependents {
		slices.SortFunc(g.dependents[uid], func(a, b object) int {
			return strings.Compare(a.Kind+"\x00"+a.Metadata.Name, b.Kind+"\x00"+b.Metadata.Name)
		})
	}
	return g
}

// find returns the object of kind and name.
func (g graph) find(t *testing.T, kind, name string) object {
	t.Helper()
	for _, o := range g.byUID {
		if o.Kind == kind && o.Metadata.Name == name {
			return o
		}
	}
	t.Fatalf("no %s/%s in kubectl get's answer", kind, name)
	return object{}
}

// root follows o's controller references through the graph to the
// top-most controller, as "Kind/name"; "" when o has no controller.
func (g graph) root(o object) string {
	root := ""
	for range 16 {
		var ctrl *ownerRef
		for i, ref := range o.Metadata.OwnerReferences {
			if ref.Controller {
				ctrl = &o.Metadata.OwnerReferences[i]
			}
		}
		if ctrl == nil {
			break
		}
		root = ctrl.Kind + "/" + ctrl.Name
		owner, ok := g.byUID[ctrl.UID]
		if !ok {
			break
		}
		o = owner
	}
	return root
}

// down returns o and its dependents, recursively, depth first, children
// ordered by kind and name, with each one's depth.
func (g graph) down(o object, depth int, out *[]treeLine) {
	*out = append(*out, treeLine{name: o.resourceName(), kindName: o.kindName(), depth: depth})
	for _, d := range g.dependents[o.Metadata.UID] {
		g.down(d, depth+1, out)
	}
}

type treeLine struct {
	name     string // -o name
	kindName string // as the text tree writes it
	depth    int
}

// podsByRoot returns, for each owner-root value, the sorted -o name lines of
// the pods under it.
func (g graph) podsByRoot() map[string][]string {
	by := map[string][]string{}
	for _, o := range g.byUID {
		if o.Kind != "Pod" {
			continue
		}
		if root := g.root(o); root != "" {
			by[root] = append(by[root], "pod/"+o.Metadata.Name)
		}
	}
	for _, names := range by {
		sort.Strings(names)
	}
	return by
}

// lines splits output into its non-empty lines.
func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}
