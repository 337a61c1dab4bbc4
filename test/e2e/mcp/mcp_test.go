// Package mcp tests kubectl informer mcp end to end: the Go SDK's MCP
// client runs the built plugin through the real kubectl over stdio, against
// a real kube-apiserver and etcd, and compares its answers with kubectl get.
package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

func TestMain(m *testing.M) {
	framework.Main(m)
}

// The seeded pods: pod-<i> in namespace m-<i%3>, on node-<i%4>; 50 of
// them, so the nodes hold different counts.
const (
	seededPods = 50
	seedLabel  = "app.kubernetes.io/managed-by=kubectl-informer-seed"
)

var seedOnce sync.Once

func seed(t *testing.T) *framework.Cluster {
	t.Helper()
	framework.SkipIfShort(t)
	c := framework.Current(t)
	seedOnce.Do(func() {
		args := []string{"pods", "--count", fmt.Sprint(seededPods), "--namespaces", "3", "--nodes", "4", "--namespace-prefix", "m-"}
		if out, err := c.Seed(args...); err != nil {
			t.Fatalf("seed %v: %v\n%s", args, err, out)
		}
	})
	return c
}

// results keeps every tool result of the package, for the checks that no
// result holds a credential or a Secret's value.
var (
	resultsMu sync.Mutex
	results   []string
)

// mcpServer starts `kubectl informer mcp ARGS` through kubectl with
// kubeconfig, a home and a warm cache socket directory of its own, and
// returns the Go SDK's client session over its stdio.
func mcpServer(t *testing.T, kubeconfig string, args ...string) *sdk.ClientSession {
	t.Helper()
	return mcpServerIn(t, newHome(t), kubeconfig, args...)
}

// newHome returns the environment of a home directory of the test's own:
// HOME, and XDG_RUNTIME_DIR (mode 0700), where warm caches listen.
func newHome(t *testing.T) []string {
	t.Helper()
	home := t.TempDir()
	runtime := filepath.Join(home, "run")
	if err := os.Mkdir(runtime, 0o700); err != nil {
		t.Fatal(err)
	}
	return []string{"HOME=" + home, "XDG_RUNTIME_DIR=" + runtime}
}

// command returns kubectl with args, the built plugin first on PATH, in
// the environment home.
func command(home []string, args ...string) *exec.Cmd {
	cmd := exec.Command("kubectl", args...)
	cmd.Env = append(append(os.Environ(),
		"PATH="+filepath.Dir(framework.PluginBinary())+string(os.PathListSeparator)+os.Getenv("PATH"),
		"KUBECONFIG=",
	), home...)
	return cmd
}

// mcpServerIn is mcpServer in the environment home.
func mcpServerIn(t *testing.T, home []string, kubeconfig string, args ...string) *sdk.ClientSession {
	t.Helper()
	cmd := command(home, append(append([]string{"informer", "mcp"}, args...), "--kubeconfig", kubeconfig)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	client := sdk.NewClient(&sdk.Implementation{Name: "e2e", Version: "v0"}, nil)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	began := time.Now()
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connecting to kubectl informer mcp: %v\nstderr:\n%s", err, stderr.String())
	}
	if d := time.Since(began); d > 10*time.Second {
		t.Errorf("initialize took %s; it must not wait on a cluster", d)
	}
	t.Cleanup(func() {
		if err := cs.Close(); err != nil {
			t.Logf("closing the session: %v\nstderr:\n%s", err, stderr.String())
		}
	})
	return cs
}

// call calls tool with args and returns its result and structured
// content as JSON; the text of both is kept for the package's checks.
func call(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any) (*sdk.CallToolResult, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("calling %s %v: %v", tool, args, err)
	}
	structured, _ := json.Marshal(res.StructuredContent)
	resultsMu.Lock()
	results = append(results, string(structured)+"\n"+textOf(res))
	resultsMu.Unlock()
	return res, string(structured)
}

func textOf(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// queryOutput is the query tool's structured content.
type queryOutput struct {
	Contexts []struct {
		Context        string `json:"context"`
		Error          string `json:"error"`
		NamespaceScope string `json:"namespaceScope"`
		Tables         []struct {
			Header    []string   `json:"header"`
			Rows      [][]string `json:"rows"`
			TotalRows int        `json:"totalRows"`
		} `json:"tables"`
	} `json:"contexts"`
	Cut *struct {
		Reason   string `json:"reason"`
		Returned int    `json:"returned"`
		Total    int    `json:"total"`
		Narrow   string `json:"narrow"`
	} `json:"cut"`
}

func decodeQuery(t *testing.T, structured string) queryOutput {
	t.Helper()
	var out queryOutput
	if err := json.Unmarshal([]byte(structured), &out); err != nil {
		t.Fatalf("decoding %s: %v", structured, err)
	}
	return out
}

// seededPodsJSON returns the seeded pods as kubectl get -o json lists them.
func seededPodsJSON(t *testing.T) []corev1.Pod {
	t.Helper()
	r := framework.Kubectl(t, t.Context(), "get", "pods", "-A", "-l", seedLabel, "-o", "json")
	if r.ExitCode != 0 {
		t.Fatalf("kubectl get pods: %s", r)
	}
	var list corev1.PodList
	if err := json.Unmarshal([]byte(r.Stdout), &list); err != nil {
		t.Fatalf("decoding kubectl get pods: %v", err)
	}
	if len(list.Items) != seededPods {
		t.Fatalf("kubectl get pods found %d seeded pods, want %d", len(list.Items), seededPods)
	}
	return list.Items
}

func column(t *testing.T, header []string, name string) int {
	t.Helper()
	i := slices.Index(header, name)
	if i < 0 {
		t.Fatalf("header %v has no %s column", header, name)
	}
	return i
}

func TestPodsPerNode(t *testing.T) {
	c := seed(t)
	want := map[string]string{}
	counts := map[string]int{}
	for _, p := range seededPodsJSON(t) {
		counts[p.Spec.NodeName]++
	}
	for node, n := range counts {
		want[node] = fmt.Sprint(n)
	}
	cs := mcpServer(t, c.AdminKubeconfig())
	res, structured := call(t, cs, "query", map[string]any{"types": "pods", "allNamespaces": true, "labelSelector": seedLabel, "groupBy": []string{"node"}})
	if res.IsError {
		t.Fatalf("query is an error: %s", textOf(res))
	}
	out := decodeQuery(t, structured)
	if len(out.Contexts) != 1 || len(out.Contexts[0].Tables) != 1 {
		t.Fatalf("query = %s, want one context with one table", structured)
	}
	a := out.Contexts[0]
	if a.NamespaceScope == "" || !strings.Contains(a.NamespaceScope, "all namespaces") {
		t.Errorf("namespaceScope = %q, want all namespaces", a.NamespaceScope)
	}
	table := a.Tables[0]
	nodeCol, countCol := column(t, table.Header, "NODE"), column(t, table.Header, "COUNT")
	got := map[string]string{}
	for _, row := range table.Rows {
		got[row[nodeCol]] = row[countCol]
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("pods per node = %v, want %v (kubectl get -o json)", got, want)
	}
	if !strings.Contains(textOf(res), "COUNT") {
		t.Errorf("text form = %q, want the table", textOf(res))
	}
	// A second call answers from the warm informers.
	began := time.Now()
	if res, _ := call(t, cs, "query", map[string]any{"types": "pods", "allNamespaces": true, "groupBy": []string{"namespace"}}); res.IsError {
		t.Fatalf("second query is an error: %s", textOf(res))
	}
	t.Logf("warm call took %s", time.Since(began))
}

func TestIndexLookup(t *testing.T) {
	c := seed(t)
	var want []string
	for _, p := range seededPodsJSON(t) {
		if p.Spec.NodeName == "node-1" {
			want = append(want, p.Namespace+"/"+p.Name)
		}
	}
	slices.Sort(want)
	cs := mcpServer(t, c.AdminKubeconfig())
	res, structured := call(t, cs, "query", map[string]any{"types": "pods", "allNamespaces": true, "index": []string{"node=node-1"},
		"labelSelector": seedLabel, "columns": "NAMESPACE:.metadata.namespace,NAME:.metadata.name"})
	if res.IsError {
		t.Fatalf("query is an error: %s", textOf(res))
	}
	out := decodeQuery(t, structured)
	if len(out.Contexts) != 1 || len(out.Contexts[0].Tables) != 1 {
		t.Fatalf("query = %s, want one context with one table", structured)
	}
	table := out.Contexts[0].Tables[0]
	nsCol, nameCol := column(t, table.Header, "NAMESPACE"), column(t, table.Header, "NAME")
	var got []string
	for _, row := range table.Rows {
		got = append(got, row[nsCol]+"/"+row[nameCol])
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("pods with index node=node-1 = %v, want %v (kubectl get -o json)", got, want)
	}
}

func TestErrorsAreToolErrors(t *testing.T) {
	c := seed(t)
	cs := mcpServer(t, c.AdminKubeconfig())
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"unknown type", map[string]any{"types": "nosuchthings"}, "nosuchthings"},
		{"unknown index", map[string]any{"types": "pods", "index": []string{"colour=red"}}, "colour"},
		{"bad selector", map[string]any{"types": "pods", "index": []string{"node in (a"}}, "missing"},
		{"bad expression", map[string]any{"types": "pods", "filter": "object.spec.("}, "filter"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, structured := call(t, cs, "query", tt.args)
			if !res.IsError {
				t.Fatalf("query %v = %s, want a tool error", tt.args, structured)
			}
			if !strings.Contains(textOf(res), tt.want) {
				t.Errorf("query %v error = %q, want it to name %q", tt.args, textOf(res), tt.want)
			}
		})
	}
}

// withDeadContext writes a kubeconfig holding the admin kubeconfig's
// context and a context "dead" whose API server refuses connections.
func withDeadContext(t *testing.T, c *framework.Cluster) (kubeconfig, live string) {
	t.Helper()
	config, err := clientcmd.LoadFromFile(c.AdminKubeconfig())
	if err != nil {
		t.Fatal(err)
	}
	live = config.CurrentContext
	config.Clusters["dead"] = &clientcmdapi.Cluster{Server: "https://127.0.0.1:1", InsecureSkipTLSVerify: true}
	config.Contexts["dead"] = &clientcmdapi.Context{Cluster: "dead", AuthInfo: config.Contexts[live].AuthInfo}
	kubeconfig = filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*config, kubeconfig); err != nil {
		t.Fatal(err)
	}
	return kubeconfig, live
}

func TestDeadContextBesideLiveOne(t *testing.T) {
	c := seed(t)
	kubeconfig, live := withDeadContext(t, c)
	cs := mcpServer(t, kubeconfig)
	res, structured := call(t, cs, "query", map[string]any{"context": "all", "types": "pods", "allNamespaces": true, "groupBy": []string{"namespace"}, "labelSelector": seedLabel})
	if res.IsError {
		t.Fatalf("query over a live and a dead context is an error: %s", structured)
	}
	out := decodeQuery(t, structured)
	byName := map[string]int{}
	for i, a := range out.Contexts {
		byName[a.Context] = i
	}
	dead, okDead := byName["dead"]
	alive, okLive := byName[live]
	if !okDead || !okLive {
		t.Fatalf("query answered contexts %v, want dead and %s", byName, live)
	}
	if out.Contexts[dead].Error == "" {
		t.Errorf("dead context = %+v, want an error", out.Contexts[dead])
	}
	if a := out.Contexts[alive]; a.Error != "" || len(a.Tables) != 1 || len(a.Tables[0].Rows) != 3 {
		t.Errorf("live context = %+v, want three namespaces", a)
	}
	res, structured = call(t, cs, "contexts", nil)
	var contexts struct {
		Contexts []struct {
			Name      string `json:"name"`
			Reachable bool   `json:"reachable"`
			Error     string `json:"error"`
		} `json:"contexts"`
	}
	if err := json.Unmarshal([]byte(structured), &contexts); err != nil || res.IsError {
		t.Fatalf("contexts = %s (%v), want a list", structured, err)
	}
	reachable := map[string]bool{}
	for _, c := range contexts.Contexts {
		reachable[c.Name] = c.Reachable
		if !c.Reachable && c.Error == "" {
			t.Errorf("context %s is unreachable without a reason", c.Name)
		}
	}
	if want := map[string]bool{"dead": false, live: true}; fmt.Sprint(reachable) != fmt.Sprint(want) {
		t.Errorf("contexts reachable = %v, want %v", reachable, want)
	}
	res, structured = call(t, cs, "types", map[string]any{"context": live})
	if res.IsError || !strings.Contains(structured, `"pods"`) || !strings.Contains(structured, `"deployments.apps"`) {
		t.Errorf("types = %s, want pods and deployments.apps", structured)
	}
}

// secretValue is the value of the Secret TestSecretsHaveNoValues creates,
// which no result may hold.
const secretValue = "mcp-e2e-secret-value-7d3f"

func TestSecretsHaveNoValues(t *testing.T) {
	c := seed(t)
	framework.CreateNamespace(t, c.AdminClient(), "m-secrets")
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "db-password", Namespace: "m-secrets"},
		StringData: map[string]string{"password": secretValue},
	}
	if _, err := c.AdminClient().CoreV1().Secrets("m-secrets").Create(t.Context(), secret, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	cs := mcpServer(t, c.AdminKubeconfig())
	for _, args := range []map[string]any{
		{"types": "secrets", "namespace": "m-secrets"},
		{"types": "secrets", "namespace": "m-secrets", "wide": true},
		{"types": "secrets", "namespace": "m-secrets", "columns": "NAME:.metadata.name,DATA:.data,PASSWORD:.data.password,STRING:.stringData"},
		{"types": "secrets", "allNamespaces": true, "groupBy": []string{"namespace"}},
	} {
		res, structured := call(t, cs, "query", args)
		if res.IsError {
			t.Errorf("query %v is an error: %s", args, textOf(res))
			continue
		}
		if _, ok := args["groupBy"]; !ok && !strings.Contains(structured, "db-password") {
			t.Errorf("query %v = %s, want the secret's name", args, structured)
		}
	}
	encoded := base64.StdEncoding.EncodeToString([]byte(secretValue))
	for _, r := range results {
		if strings.Contains(r, secretValue) || strings.Contains(r, encoded) {
			t.Errorf("a result holds the Secret's value: %s", r)
		}
	}
}

func TestResultOverBudgetIsCut(t *testing.T) {
	c := seed(t)
	cs := mcpServer(t, c.AdminKubeconfig(), "--max-result-tokens", "300")
	res, structured := call(t, cs, "query", map[string]any{"types": "pods", "allNamespaces": true, "labelSelector": seedLabel})
	if res.IsError {
		t.Fatalf("query is an error: %s", textOf(res))
	}
	out := decodeQuery(t, structured)
	if out.Cut == nil || out.Cut.Total != seededPods || out.Cut.Returned >= seededPods || out.Cut.Narrow == "" {
		t.Fatalf("query over budget = %s, want a cut of %d rows that says how to narrow", structured, seededPods)
	}
	if size := len(structured) + len(textOf(res)); size > 300*4 {
		t.Errorf("result of %d bytes, want at most 1200 (300 tokens of 4 bytes)", size)
	}
	if !strings.Contains(textOf(res), "CUT") {
		t.Errorf("text form = %q, want it to say it was cut", textOf(res))
	}
}

func TestConfigMapsNothingUses(t *testing.T) {
	c := seed(t)
	const ns = "m-configmaps"
	cs := c.AdminClient()
	framework.CreateNamespace(t, cs, ns)
	for _, name := range []string{"used", "unused"} {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Data: map[string]string{"k": "v"}}
		if _, err := cs.CoreV1().ConfigMaps(ns).Create(t.Context(), cm, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "reader", Namespace: ns},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.example.com/app:v1",
			EnvFrom: []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "used"}}}}}}},
	}
	if _, err := cs.CoreV1().Pods(ns).Create(t.Context(), pod, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	session := mcpServer(t, c.AdminKubeconfig())
	res, structured := call(t, session, "query", map[string]any{"types": "configmaps", "namespace": ns, "index": []string{"!used-by"},
		"columns": "NAME:.metadata.name"})
	if res.IsError {
		t.Fatalf("query is an error: %s", textOf(res))
	}
	out := decodeQuery(t, structured)
	var got []string
	for _, table := range out.Contexts[0].Tables {
		for _, row := range table.Rows {
			got = append(got, row[0])
		}
	}
	// kube-root-ca.crt is published by kube-controller-manager, which this
	// cluster does not run.
	if want := []string{"unused"}; !slices.Equal(got, want) {
		t.Errorf("configmaps nothing uses = %v, want %v", got, want)
	}
	if !strings.Contains(out.Contexts[0].NamespaceScope, ns) {
		t.Errorf("namespaceScope = %q, want %s", out.Contexts[0].NamespaceScope, ns)
	}
}

// TestRunningCacheAnswers: a cache start of the context's identity answers
// the query tool and feeds the informers of the other tools, though it
// started after the server had built the context's engines; Secrets are
// never asked of it.
func TestRunningCacheAnswers(t *testing.T) {
	c := seed(t)
	home := newHome(t)
	kubectl := func(args ...string) string {
		t.Helper()
		out, err := command(home, append(args, "--kubeconfig", c.AdminKubeconfig())...).CombinedOutput()
		if err != nil {
			t.Fatalf("kubectl %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	// The server answers a first question before the cache starts: the
	// context's engines are built with no cache running.
	cs := mcpServerIn(t, home, c.AdminKubeconfig())
	var out struct {
		Contexts []struct {
			AnsweredBy string `json:"answeredBy"`
			Tables     []struct {
				Rows [][]string `json:"rows"`
			} `json:"tables"`
		} `json:"contexts"`
	}
	// Secrets are never asked of the cache process, which holds their
	// values.
	askSecrets := func() {
		t.Helper()
		_, structured := call(t, cs, "query", map[string]any{"types": "secrets", "allNamespaces": true, "columns": "NAME:.metadata.name,DATA:.data"})
		if err := json.Unmarshal([]byte(structured), &out); err != nil || len(out.Contexts) != 1 {
			t.Fatalf("query of secrets = %s (%v)", structured, err)
		}
		if by := out.Contexts[0].AnsweredBy; by != "this server's informers" {
			t.Errorf("query of secrets answeredBy = %q, want this server's informers", by)
		}
	}
	askSecrets()
	kubectl("informer", "cache", "start")
	t.Cleanup(func() { kubectl("informer", "cache", "stop", "--all") })
	res, structured := call(t, cs, "query", map[string]any{"types": "pods", "allNamespaces": true, "labelSelector": seedLabel, "groupBy": []string{"node"}})
	if res.IsError {
		t.Fatalf("query is an error: %s", textOf(res))
	}
	if err := json.Unmarshal([]byte(structured), &out); err != nil || len(out.Contexts) != 1 || len(out.Contexts[0].Tables) != 1 {
		t.Fatalf("query = %s (%v), want one table", structured, err)
	}
	if by := out.Contexts[0].AnsweredBy; !strings.Contains(by, "cache start") {
		t.Errorf("answeredBy = %q, want the running cache", by)
	}
	if rows := len(out.Contexts[0].Tables[0].Rows); rows != 4 {
		t.Errorf("pods per node from the running cache: %d rows, want 4", rows)
	}
	askSecrets()
	// The other tools' informers started after the cache are fed from it,
	// though the context's engines were built before it ran: nodes, which
	// only capacity asks for, are then among the cache's types.
	if res, _ := call(t, cs, "capacity", nil); res.IsError {
		t.Fatalf("capacity is an error: %s", textOf(res))
	}
	var caches []struct {
		Status *struct {
			Caches []struct {
				Type string `json:"type"`
			} `json:"caches"`
		} `json:"status"`
	}
	status := kubectl("informer", "cache", "status", "-o", "json")
	if err := json.Unmarshal([]byte(status), &caches); err != nil {
		t.Fatalf("cache status -o json: %v\n%s", err, status)
	}
	var types []string
	for _, c := range caches {
		if c.Status != nil {
			for _, tc := range c.Status.Caches {
				types = append(types, tc.Type)
			}
		}
	}
	if !slices.ContainsFunc(types, func(s string) bool { return strings.HasPrefix(s, "nodes") }) {
		t.Errorf("after the capacity tool the running cache holds %q, want nodes among them (the tool's informers fed from it)", types)
	}
}

// TestZNoCredentialInAnyResult calls every tool, then reads every result
// of the package for a credential of the kubeconfig or the value of the
// Secret TestSecretsHaveNoValues created; it comes last in the file, so it
// runs last.
func TestZNoCredentialInAnyResult(t *testing.T) {
	c := seed(t)
	cs := mcpServer(t, c.AdminKubeconfig())
	for _, tool := range []struct {
		name string
		args map[string]any
	}{
		{"contexts", nil},
		{"types", nil},
		{"indexers", nil},
		{"capacity", nil},
		{"tree", map[string]any{"roots": []string{"pods"}, "namespace": "m-0", "direction": "up"}},
		{"events", map[string]any{"object": "pod/pod-0", "namespace": "m-0"}},
		{"wait", map[string]any{"types": "secrets", "allNamespaces": true, "condition": "true", "timeoutSeconds": 5}},
		{"tree", map[string]any{"roots": []string{"serviceaccounts"}, "allNamespaces": true, "direction": "refs"}},
		{"query", map[string]any{"types": "pods", "allNamespaces": true, "wide": true}},
		{"query", map[string]any{"types": "secrets,configmaps,serviceaccounts", "allNamespaces": true}},
	} {
		if res, _ := call(t, cs, tool.name, tool.args); res.IsError {
			t.Errorf("%s %v is an error: %s", tool.name, tool.args, textOf(res))
		}
	}
	config, err := clientcmd.LoadFromFile(c.AdminKubeconfig())
	if err != nil {
		t.Fatal(err)
	}
	var secrets []string
	for _, u := range config.AuthInfos {
		for _, s := range []string{u.Token, string(u.ClientKeyData), string(u.ClientCertificateData), u.Password} {
			if len(s) > 8 {
				secrets = append(secrets, s, base64.StdEncoding.EncodeToString([]byte(s)))
			}
		}
	}
	for _, cl := range config.Clusters {
		if len(cl.CertificateAuthorityData) > 0 {
			secrets = append(secrets, base64.StdEncoding.EncodeToString(cl.CertificateAuthorityData))
		}
	}
	secrets = append(secrets, "PRIVATE KEY", "BEGIN CERTIFICATE", secretValue, base64.StdEncoding.EncodeToString([]byte(secretValue)))
	for _, r := range results {
		for _, s := range secrets {
			if strings.Contains(r, s) {
				t.Errorf("a result holds a credential of the kubeconfig or a Secret's value: %.200s", r)
			}
		}
	}
}
