package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// inspectorPackage is the MCP Inspector's CLI, the second client these
// tests drive the server with, independent of the Go SDK: it is built on
// the TypeScript SDK, which also checks every structured result against
// the tool's output schema.
const inspectorPackage = "@modelcontextprotocol/inspector-cli@1.0.3"

// wantTools are the tools the server lists, sorted.
var wantTools = []string{"capacity", "contexts", "events", "indexers", "query", "tree", "types", "wait"}

var (
	inspectorOnce sync.Once
	inspectorDir  string
	inspectorErr  error
)

// inspectorBuild installs the Inspector's CLI with npm into the e2e run's
// temporary directory (the one that holds the plugin's bin directory),
// once per package, and returns the directory of its entry point. A
// missing npm or a failed install fails the test.
func inspectorBuild(t *testing.T) string {
	t.Helper()
	inspectorOnce.Do(func() {
		npm, err := exec.LookPath("npm")
		if err != nil {
			inspectorErr = fmt.Errorf("npm, which installs the MCP Inspector's CLI, is not on PATH: %w", err)
			return
		}
		prefix := filepath.Join(filepath.Dir(filepath.Dir(framework.PluginBinary())), "inspector")
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		out, err := exec.CommandContext(ctx, npm, "install", "--no-audit", "--no-fund", "--prefix", prefix, inspectorPackage).CombinedOutput()
		if err != nil {
			inspectorErr = fmt.Errorf("npm install %s: %w\n%s", inspectorPackage, err, out)
			return
		}
		inspectorDir = filepath.Join(prefix, "node_modules", "@modelcontextprotocol", "inspector-cli", "build")
	})
	if inspectorErr != nil {
		t.Fatal(inspectorErr)
	}
	return inspectorDir
}

// inspector runs the Inspector's CLI with args against `kubectl informer
// mcp --kubeconfig kubeconfig`, started over stdio through the real
// kubectl in the environment home, and returns what it prints (the JSON
// of the response). Its result is kept for the package's checks.
func inspector(t *testing.T, home []string, kubeconfig string, args ...string) string {
	t.Helper()
	dir := inspectorBuild(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", append([]string{"index.js", "kubectl", "informer", "mcp", "--kubeconfig", kubeconfig}, args...)...)
	cmd.Env = command(home).Env
	// The CLI finds its package.json relative to the working directory.
	cmd.Dir = dir
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("mcp-inspector-cli %v: %v\nstdout:\n%s\nstderr:\n%s", args, err, stdout.String(), stderr.String())
	}
	resultsMu.Lock()
	results = append(results, stdout.String())
	resultsMu.Unlock()
	return stdout.String()
}

func TestInspectorListsTools(t *testing.T) {
	c := seed(t)
	out := inspector(t, newHome(t), c.AdminKubeconfig(), "--method", "tools/list")
	var list struct {
		Tools []struct {
			Name         string `json:"name"`
			Description  string `json:"description"`
			InputSchema  schema `json:"inputSchema"`
			OutputSchema schema `json:"outputSchema"`
			Annotations  struct {
				ReadOnlyHint bool `json:"readOnlyHint"`
			} `json:"annotations"`
		} `json:"tools"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("decoding tools/list %s: %v", out, err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		if tool.Description == "" {
			t.Errorf("tool %s has no description", tool.Name)
		}
		if tool.InputSchema.Type != "object" || tool.InputSchema.Properties["context"] == nil {
			t.Errorf("tool %s input schema = %+v, want an object with a context property", tool.Name, tool.InputSchema)
		}
		if tool.OutputSchema.Type != "object" || len(tool.OutputSchema.Properties) == 0 {
			t.Errorf("tool %s output schema = %+v, want an object with properties", tool.Name, tool.OutputSchema)
		}
		if !tool.Annotations.ReadOnlyHint {
			t.Errorf("tool %s is not marked read-only", tool.Name)
		}
	}
	slices.Sort(names)
	if !slices.Equal(names, wantTools) {
		t.Errorf("tools/list = %v, want %v", names, wantTools)
	}
	if !strings.Contains(out, `"groupBy"`) {
		t.Errorf("tools/list does not describe query's groupBy:\n%s", out)
	}
}

// schema is the part of a JSON schema the listing is checked for.
type schema struct {
	Type       string                     `json:"type"`
	Properties map[string]json.RawMessage `json:"properties"`
}

func TestInspectorQueryGroupBy(t *testing.T) {
	c := seed(t)
	want := map[string]string{}
	counts := map[string]int{}
	for _, p := range seededPodsJSON(t) {
		counts[p.Namespace]++
	}
	for ns, n := range counts {
		want[ns] = fmt.Sprint(n)
	}
	out := inspector(t, newHome(t), c.AdminKubeconfig(), "--method", "tools/call", "--tool-name", "query",
		"--tool-arg", "types=pods", "allNamespaces=true", "labelSelector="+seedLabel, `groupBy=["namespace"]`)
	var res struct {
		IsError           bool            `json:"isError"`
		StructuredContent json.RawMessage `json:"structuredContent"`
		Content           []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("decoding tools/call %s: %v", out, err)
	}
	if res.IsError {
		t.Fatalf("query is an error: %s", out)
	}
	q := decodeQuery(t, string(res.StructuredContent))
	if len(q.Contexts) != 1 || len(q.Contexts[0].Tables) != 1 {
		t.Fatalf("query = %s, want one context with one table", out)
	}
	table := q.Contexts[0].Tables[0]
	nsCol, countCol := column(t, table.Header, "NAMESPACE"), column(t, table.Header, "COUNT")
	got := map[string]string{}
	for _, row := range table.Rows {
		got[row[nsCol]] = row[countCol]
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("pods per namespace through the Inspector = %v, want %v (kubectl get -o json)", got, want)
	}
	if len(res.Content) != 1 || res.Content[0].Type != "text" || !strings.Contains(res.Content[0].Text, "COUNT") {
		t.Errorf("content = %+v, want the text form with the table", res.Content)
	}
}

// TestInspectorCallsEveryTool calls the tools besides query through the
// Inspector, whose SDK checks each structured result against the tool's
// output schema.
func TestInspectorCallsEveryTool(t *testing.T) {
	c := withEvents(t)
	capacityCluster(t)
	home := newHome(t)
	for _, tt := range []struct {
		tool string
		args []string
		want string
	}{
		{"capacity", []string{`groupBy=label:` + zoneLabel}, `"zone-a"`},
		{"tree", []string{`roots=["deployment/web"]`, "namespace=" + treeNamespace}, `"web-5d9c7-a"`},
		{"events", []string{"object=pod/web-5d9c7-a", "namespace=" + treeNamespace}, `"BackOff"`},
		{"wait", []string{"types=deployments.apps", "namespace=" + treeNamespace, "condition=object.spec.replicas == 2", "timeoutSeconds=10"}, `"met": true`},
		{"contexts", []string{"context=all"}, `"reachable": true`},
		{"types", nil, `"deployments.apps"`},
		{"indexers", nil, `"owner-root"`},
	} {
		t.Run(tt.tool, func(t *testing.T) {
			args := []string{"--method", "tools/call", "--tool-name", tt.tool}
			if len(tt.args) > 0 {
				args = append(append(args, "--tool-arg"), tt.args...)
			}
			out := inspector(t, home, c.AdminKubeconfig(), args...)
			var res struct {
				IsError bool `json:"isError"`
			}
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				t.Fatalf("decoding tools/call %s: %v\n%s", tt.tool, err, out)
			}
			if res.IsError || !strings.Contains(out, `"structuredContent"`) || !strings.Contains(out, tt.want) {
				t.Errorf("tools/call %s through the Inspector = %s, want a structured result holding %s", tt.tool, out, tt.want)
			}
		})
	}
}
