package relationships

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// TestSelectedBy proves selected-by against the pods each selector selects,
// computed from kubectl get -o json: a Service's map selector, a PDB's and
// a Deployment's label selectors.
func TestSelectedBy(t *testing.T) {
	ns := fmt.Sprintf("sel-%d", time.Now().UnixNano()%1_000_000)
	framework.CreateNamespace(t, framework.Current(t).AdminClient(), ns)
	kubectl(t, "create", "deployment", "web", "-n", ns, "--image=registry.example.com/web:v1", "--replicas=2")
	kubectl(t, "create", "deployment", "api", "-n", ns, "--image=registry.example.com/api:v1", "--replicas=1")
	kubectl(t, "rollout", "status", "deployment/web", "-n", ns, "--timeout="+rolloutTimeout.String())
	kubectl(t, "rollout", "status", "deployment/api", "-n", ns, "--timeout="+rolloutTimeout.String())
	kubectl(t, "expose", "deployment", "web", "-n", ns, "--port=80")
	// kubectl create pdb wants a selector; an empty one (every pod of the
	// namespace, in policy/v1) needs a manifest.
	everything := "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: everything\nspec:\n  minAvailable: 1\n  selector: {}\n"
	if r := framework.Run(t, framework.Cmd{Args: []string{"apply", "-n", ns, "-f", "-"}, Stdin: everything}); r.ExitCode != 0 {
		t.Fatalf("kubectl apply of the PDB: %s", r)
	}
	kubectl(t, "create", "pdb", "api", "-n", ns, "--selector=app=api", "--min-available=1")

	var pods struct {
		Items []struct {
			Metadata metav1.ObjectMeta `json:"metadata"`
		} `json:"items"`
	}
	if err := json.Unmarshal([]byte(kubectl(t, "get", "pods", "-n", ns, "-o", "json")), &pods); err != nil {
		t.Fatal(err)
	}
	var selectorOf struct {
		Spec struct {
			Selector json.RawMessage `json:"selector"`
		} `json:"spec"`
	}
	selected := func(kind, name string, sel labels.Selector) []string {
		t.Helper()
		var want []string
		for _, p := range pods.Items {
			if sel.Matches(labels.Set(p.Metadata.Labels)) {
				want = append(want, "pod/"+p.Metadata.Name)
			}
		}
		sort.Strings(want)
		r := mustInformer(t, "query", "pods", "-n", ns, "--index", "selected-by="+kind+"/"+name, "-o", "name")
		if got := lines(r.Stdout); !slices.Equal(got, want) {
			t.Errorf("query pods --index selected-by=%s/%s -o name = %q, want %q", kind, name, got, want)
		}
		return want
	}
	var servicePods []string
	// selectedPods holds, by -o name of the selecting object, the pods it selects.
	selectedPods := map[string][]string{}
	for _, tt := range []struct{ kind, resource, name string }{
		{"Service", "service", "web"},
		{"PodDisruptionBudget", "poddisruptionbudget.policy", "everything"},
		{"PodDisruptionBudget", "poddisruptionbudget.policy", "api"},
		{"Deployment", "deployment.apps", "web"},
	} {
		if err := json.Unmarshal([]byte(kubectl(t, "get", tt.resource, tt.name, "-n", ns, "-o", "json")), &selectorOf); err != nil {
			t.Fatal(err)
		}
		var sel labels.Selector
		if tt.kind == "Service" {
			var m map[string]string
			if err := json.Unmarshal(selectorOf.Spec.Selector, &m); err != nil {
				t.Fatal(err)
			}
			sel = labels.SelectorFromSet(m)
		} else {
			var ls metav1.LabelSelector
			if err := json.Unmarshal(selectorOf.Spec.Selector, &ls); err != nil {
				t.Fatal(err)
			}
			var err error
			if sel, err = metav1.LabelSelectorAsSelector(&ls); err != nil {
				t.Fatal(err)
			}
		}
		pods := selected(tt.kind, tt.name, sel)
		if tt.kind == "Service" {
			servicePods = pods
		}
		selectedPods[tt.resource+"/"+tt.name] = pods
	}

	// selects, the reverse: the objects that select one web pod, in the
	// order of the types asked for.
	pod := servicePods[0]
	var wantSelecting []string
	for _, name := range []string{"service/web", "poddisruptionbudget.policy/api", "poddisruptionbudget.policy/everything", "deployment.apps/web"} {
		if slices.Contains(selectedPods[name], pod) {
			wantSelecting = append(wantSelecting, name)
		}
	}
	r := mustInformer(t, "query", "svc,pdb,deploy", "-n", ns, "--index", "selects=Pod/"+strings.TrimPrefix(pod, "pod/"), "-o", "name")
	if got := lines(r.Stdout); !slices.Equal(got, wantSelecting) {
		t.Errorf("query svc,pdb,deploy --index selects=Pod/%s -o name = %q, want %q", pod, got, wantSelecting)
	}

	// tree service/web: its EndpointSlices (owned) and the pods it selects.
	// The EndpointSlice controller makes the slice soon after the Service;
	// wait for it, so the tree and kubectl get see the same.
	var endpointSlices []string
	for deadline := time.Now().Add(time.Minute); len(endpointSlices) == 0 && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		endpointSlices = lines(kubectl(t, "get", "endpointslices", "-n", ns, "-l", "kubernetes.io/service-name=web", "-o", "name"))
	}
	want := append([]string{"service/web"}, endpointSlices...)
	want = append(want, servicePods...)
	if r := mustInformer(t, "tree", "service/web", "-n", ns, "-o", "name"); !slices.Equal(lines(r.Stdout), want) {
		t.Errorf("tree service/web -o name = %q, want %q", lines(r.Stdout), want)
	}

	r = informer(t, "", "query", "pods", "-n", ns, "--index", "selected-by=ConfigMap/x")
	if r.ExitCode != 1 || !strings.Contains(r.Stderr, "selected-by needs KIND/NAME") {
		t.Errorf("query --index selected-by=ConfigMap/x = %s; want exit 1 naming KIND/NAME", r)
	}
}
