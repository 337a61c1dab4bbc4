package usage

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kubectl-informer/kubectl-informer/pkg/usage"
	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// mcpSession starts kubectl informer mcp through the real kubectl as the
// admin, in a home of the test's own, and returns the Go SDK's client
// session over its stdio.
func mcpSession(t *testing.T) *sdk.ClientSession {
	t.Helper()
	home := t.TempDir()
	runtime := filepath.Join(home, "run")
	if err := os.Mkdir(runtime, 0o700); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("kubectl", "informer", "mcp", "--kubeconfig", framework.Current(t).AdminKubeconfig())
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(framework.PluginBinary())+string(os.PathListSeparator)+os.Getenv("PATH"),
		"KUBECONFIG=", "HOME="+home, "XDG_RUNTIME_DIR="+runtime)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "e2e", Version: "v0"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connecting to kubectl informer mcp: %v\nstderr:\n%s", err, stderr.String())
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// mcpTable is one context's one table of the query tool's answer.
type mcpTable struct {
	Header []string   `json:"header"`
	Rows   [][]string `json:"rows"`
	Total  []string   `json:"total"`
}

// TestMCPUsage asks the MCP server's query tool for usage per namespace
// and owner-root, and its capacity tool for usage: the query's rows equal
// the command's own (--cache off) read within the same sample, and the
// capacity tool has the usage columns, none blank.
func TestMCPUsage(t *testing.T) {
	c := framework.Current(t)
	startWorkloads(t)
	client, err := usage.NewClient(c.AdminConfig())
	if err != nil {
		t.Fatal(err)
	}
	waitForSamples(t, client, len(pods(t)))
	cs := mcpSession(t)
	sums := []string{"usage.cpu", "usage.memory"}
	callTool := func(tool string, args map[string]any) []byte {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
		defer cancel()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("calling %s: %v %+v", tool, err, res)
		}
		b, _ := json.Marshal(res.StructuredContent)
		return b
	}

	for attempt := 1; ; attempt++ {
		before, err := usage.Fetch(context.Background(), client, usage.Config{Pods: true, Nodes: true})
		if err != nil {
			t.Fatal(err)
		}
		raw := callTool("query", map[string]any{"types": "pods", "allNamespaces": true, "groupBy": []string{"namespace", "owner-root"}, "sums": sums})
		direct := informer(t, "query", "pods", "-A", "--group-by", "namespace,owner-root", "--sum", "usage.cpu", "--sum", "usage.memory", "--cache", "off")
		after, err := usage.Fetch(context.Background(), client, usage.Config{Pods: true, Nodes: true})
		if err != nil {
			t.Fatal(err)
		}
		if !after.SameSamples(before) {
			if attempt == 5 {
				t.Fatalf("a new sample came while the tool and the command ran, %d times", attempt)
			}
			continue
		}
		var out struct {
			Contexts []struct {
				Tables []mcpTable `json:"tables"`
			} `json:"contexts"`
		}
		if err := json.Unmarshal(raw, &out); err != nil || len(out.Contexts) != 1 || len(out.Contexts[0].Tables) != 1 {
			t.Fatalf("query tool = %s (%v), want one table", raw, err)
		}
		table := out.Contexts[0].Tables[0]
		var lines []string
		for _, r := range append(table.Rows, table.Total) {
			lines = append(lines, strings.Join(strings.Fields(strings.Join(r, " ")), " "))
		}
		var want []string
		for _, line := range strings.Split(strings.TrimSpace(direct.Stdout), "\n")[1:] {
			want = append(want, strings.Join(strings.Fields(line), " "))
		}
		if strings.Join(lines, "\n") != strings.Join(want, "\n") {
			t.Errorf("query tool's rows:\n%s\nthe command's:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
		}
		break
	}

	raw := callTool("capacity", map[string]any{"usage": true})
	var capacity struct {
		Contexts []struct {
			Columns  []string         `json:"columns"`
			Rows     []map[string]any `json:"rows"`
			Warnings []string         `json:"warnings"`
		} `json:"contexts"`
	}
	if err := json.Unmarshal(raw, &capacity); err != nil || len(capacity.Contexts) != 1 {
		t.Fatalf("capacity tool = %s (%v)", raw, err)
	}
	a := capacity.Contexts[0]
	if len(a.Rows) != nodes {
		t.Errorf("capacity tool rows = %d, want %d nodes", len(a.Rows), nodes)
	}
	for _, row := range a.Rows {
		for _, col := range []string{"usage.cpu", "usage.memory", "pods.usage.cpu", "pods.usage.memory"} {
			if share, ok := row[col].(map[string]any); !ok || share["used"] == nil || share["percent"] == nil {
				t.Errorf("capacity tool row %v has no %s used of allocatable", row, col)
			}
		}
	}
	for _, w := range a.Warnings {
		if strings.Contains(w, "not available") {
			t.Errorf("capacity tool warning %q", w)
		}
	}
}
