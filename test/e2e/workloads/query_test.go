package workloads

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// TestQueryControllerObjects queries pods that kube-controller-manager
// created, kube-scheduler bound and kwok ran — a Deployment's and a Job's —
// by node, by owner and by phase, and compares each answer with the one
// computed from `kubectl get pods -o json` on the same cluster.
func TestQueryControllerObjects(t *testing.T) {
	c := framework.Current(t)
	const ns = "controllers"
	framework.CreateNamespace(t, c.AdminClient(), ns)

	kubectl(t, "create", "deployment", "shop", "-n", ns, "--image=registry.example.com/shop:v1", "--replicas=6")
	kubectl(t, "rollout", "status", "deployment/shop", "-n", ns, "--timeout="+rolloutTimeout.String())
	kubectl(t, "create", "job", "report", "-n", ns, "--image=registry.example.com/report:v1")
	kubectl(t, "wait", "job/report", "-n", ns, "--for=condition=Complete", "--timeout="+rolloutTimeout.String())

	var list corev1.PodList
	if err := json.Unmarshal([]byte(kubectl(t, "get", "pods", "-n", ns, "-o", "json")), &list); err != nil {
		t.Fatalf("decoding kubectl get pods -o json: %v", err)
	}
	byNode := map[string][]string{}
	byOwner := map[string][]string{}
	byPhase := map[string][]string{}
	for _, pod := range list.Items {
		name := "pod/" + pod.Name
		if pod.Spec.NodeName == "" {
			t.Errorf("pod %s was not scheduled", pod.Name)
		}
		byNode[pod.Spec.NodeName] = append(byNode[pod.Spec.NodeName], name)
		if ref := metav1.GetControllerOf(&pod); ref != nil {
			byOwner[ref.Kind+"/"+ref.Name] = append(byOwner[ref.Kind+"/"+ref.Name], name)
		}
		byPhase[string(pod.Status.Phase)] = append(byPhase[string(pod.Status.Phase)], name)
	}
	if len(byOwner) != 2 || len(byPhase["Running"]) != 6 || len(byPhase["Succeeded"]) != 1 {
		t.Fatalf("the controllers made pods owned by %d controllers, %d Running and %d Succeeded; want 2 owners (a ReplicaSet and a Job), 6 Running, 1 Succeeded",
			len(byOwner), len(byPhase["Running"]), len(byPhase["Succeeded"]))
	}

	check := func(index string, want []string) {
		t.Helper()
		r := framework.Run(t, framework.Cmd{Args: []string{"informer", "query", "pods", "-n", ns, "--index", index, "-o", "name"}})
		if r.ExitCode != 0 {
			t.Fatalf("query --index %s: %s", index, r)
		}
		got := strings.Fields(r.Stdout)
		sort.Strings(got)
		sort.Strings(want)
		if !slices.Equal(got, want) {
			t.Errorf("query pods --index %s = %v, want %v (from kubectl get pods -o json)", index, got, want)
		}
	}
	for i := 1; i <= nodes; i++ {
		node := "kwok-node-" + string(rune('0'+i))
		check("node="+node, byNode[node])
	}
	for owner, pods := range byOwner {
		check("owner="+owner, pods)
	}
	for phase, pods := range byPhase {
		check("phase="+phase, pods)
	}
	t.Logf("pods per node: %d on %d nodes, per owner: %v", len(list.Items), len(byNode), keys(byOwner))
}

func keys(m map[string][]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
