package mcp

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// fleetKubeconfig returns a kubeconfig whose contexts one and two are the
// admin contexts of clusters[0] and clusters[1], and dead one whose API
// server does not exist.
func fleetKubeconfig(t *testing.T, clusters ...*framework.Cluster) string {
	t.Helper()
	merged := clientcmdapi.NewConfig()
	for i, c := range clusters {
		config, err := clientcmd.LoadFromFile(c.AdminKubeconfig())
		if err != nil {
			t.Fatal(err)
		}
		ctx := config.Contexts[config.CurrentContext]
		name := []string{"one", "two"}[i]
		merged.Clusters[name] = config.Clusters[ctx.Cluster]
		merged.AuthInfos[name] = config.AuthInfos[ctx.AuthInfo]
		merged.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name}
	}
	merged.Clusters["dead"] = &clientcmdapi.Cluster{Server: "https://127.0.0.1:1", InsecureSkipTLSVerify: true}
	merged.Contexts["dead"] = &clientcmdapi.Context{Cluster: "dead", AuthInfo: "one"}
	merged.CurrentContext = "one"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*merged, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// configMapsPerNamespace counts the ConfigMaps of cluster c per namespace
// from kubectl get -o json.
func configMapsPerNamespace(t *testing.T, c *framework.Cluster) map[string]string {
	t.Helper()
	r := framework.Run(t, framework.Cmd{Args: []string{"get", "configmaps", "-A", "-o", "json"}, Kubeconfig: c.AdminKubeconfig()})
	if r.ExitCode != 0 {
		t.Fatalf("kubectl get configmaps: %s", r)
	}
	var list struct {
		Items []corev1.ConfigMap `json:"items"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &list); err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, cm := range list.Items {
		counts[cm.Namespace]++
	}
	out := map[string]string{}
	for ns, n := range counts {
		out[ns] = fmt.Sprint(n)
	}
	return out
}

// TestFleetOfTwoAndADeadContext asks two real control planes and a dead
// context at once: each live context's ConfigMaps per namespace equal its
// own kubectl get, and the dead one is an error beside them, through the
// Go SDK's client and the Inspector's CLI.
func TestFleetOfTwoAndADeadContext(t *testing.T) {
	one := seed(t)
	two := framework.StartCluster(t)
	cs := two.AdminClient()
	for i := range 3 {
		ns := fmt.Sprintf("fleet-two-%d", i)
		framework.CreateNamespace(t, cs, ns)
		for j := range i + 2 {
			if _, err := cs.CoreV1().ConfigMaps(ns).Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%d", j)}}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	want := map[string]map[string]string{"one": configMapsPerNamespace(t, one), "two": configMapsPerNamespace(t, two)}
	kubeconfig := fleetKubeconfig(t, one, two)
	args := map[string]any{"context": "all", "types": "configmaps", "allNamespaces": true, "groupBy": []string{"namespace"}}
	check := func(t *testing.T, client, structured string) {
		t.Helper()
		var out queryOutput
		if err := json.Unmarshal([]byte(structured), &out); err != nil {
			t.Fatalf("%s: decoding %s: %v", client, structured, err)
		}
		got := map[string]map[string]string{}
		for _, a := range out.Contexts {
			if a.Context == "dead" {
				if a.Error == "" {
					t.Errorf("%s: the dead context = %+v, want an error", client, a)
				}
				continue
			}
			if a.Error != "" || len(a.Tables) != 1 {
				t.Errorf("%s: context %s = %+v, want its table of namespaces", client, a.Context, a)
				continue
			}
			got[a.Context] = map[string]string{}
			for _, row := range a.Tables[0].Rows {
				got[a.Context][row[0]] = row[1]
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) || len(out.Contexts) != 3 {
			t.Errorf("%s: ConfigMaps per namespace = %v over %d contexts, want %v and the dead context (kubectl get of each)", client, got, len(out.Contexts), want)
		}
	}
	res, structured := call(t, mcpServer(t, kubeconfig), "query", args)
	if res.IsError {
		t.Fatalf("a query of two live contexts and a dead one is an error: %s", textOf(res))
	}
	check(t, "the Go SDK's client", structured)

	out := inspector(t, newHome(t), kubeconfig, "--method", "tools/call", "--tool-name", "query", "--tool-arg",
		"context=all", "types=configmaps", "allNamespaces=true", `groupBy=["namespace"]`)
	var result struct {
		IsError           bool            `json:"isError"`
		StructuredContent json.RawMessage `json:"structuredContent"`
	}
	if err := json.Unmarshal([]byte(out), &result); err != nil || result.IsError {
		t.Fatalf("the Inspector's query = %s (%v)", out, err)
	}
	check(t, "the Inspector's CLI", string(result.StructuredContent))
}
