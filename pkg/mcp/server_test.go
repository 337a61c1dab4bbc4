package mcp

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"
	"k8s.io/cli-runtime/pkg/genericclioptions"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// deadKubeconfig writes a kubeconfig of two contexts whose API servers
// refuse connections, and returns ConfigFlags that read it.
func deadKubeconfig(t *testing.T) *genericclioptions.ConfigFlags {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	config := `apiVersion: v1
kind: Config
current-context: one
clusters:
- name: dead
  cluster: {server: "https://127.0.0.1:1"}
users:
- name: u
  user: {token: secret-token-value}
contexts:
- name: one
  context: {cluster: dead, user: u, namespace: team-a}
- name: two
  context: {cluster: dead, user: u}
`
	if err := os.WriteFile(path, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	cf := genericclioptions.NewConfigFlags(true)
	cf.KubeConfig = &path
	return cf
}

// connect starts s on an in-memory transport and returns a client session.
func connect(t *testing.T, s *Server) *sdk.ClientSession {
	t.Helper()
	serverT, clientT := sdk.NewInMemoryTransports()
	ctx := t.Context()
	ss, err := s.Connect(ctx, serverT)
	if err != nil {
		t.Fatal(err)
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, nil)
	cs, err := client.Connect(ctx, clientT, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
		s.Close()
	})
	return cs
}

func call(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any) (*sdk.CallToolResult, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("calling %s: %v", name, err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	return res, string(b)
}

func TestToolsListedWithSchemas(t *testing.T) {
	cs := connect(t, New(Options{ConfigFlags: deadKubeconfig(t)}))
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, tool := range tools.Tools {
		got[tool.Name] = true
		if tool.InputSchema == nil || tool.OutputSchema == nil {
			t.Errorf("tool %s: input schema %v, output schema %v, want both", tool.Name, tool.InputSchema != nil, tool.OutputSchema != nil)
		}
		if tool.Annotations == nil || !tool.Annotations.ReadOnlyHint {
			t.Errorf("tool %s is not marked read-only", tool.Name)
		}
	}
	for _, name := range []string{"query", "capacity", "tree", "events", "wait", "contexts", "types", "indexers"} {
		if !got[name] {
			t.Errorf("tools/list has no %s tool; got %v", name, got)
		}
	}
}

func TestIndexers(t *testing.T) {
	cs := connect(t, New(Options{ConfigFlags: deadKubeconfig(t)}))
	res, structured := call(t, cs, "indexers", nil)
	if res.IsError || !strings.Contains(structured, `"name":"node"`) {
		t.Errorf("indexers = IsError %v, %s; want the node index", res.IsError, structured)
	}
}

func TestDeadContextsAreErrors(t *testing.T) {
	cs := connect(t, New(Options{ConfigFlags: deadKubeconfig(t), SyncTimeout: 5 * time.Second}))
	tests := []struct {
		name    string
		tool    string
		args    map[string]any
		isError bool
		want    []string
	}{
		{"query all", "query", map[string]any{"context": "all", "types": "pods"}, true, []string{`"context":"one"`, `"context":"two"`, `"error":`}},
		{"query missing", "query", map[string]any{"context": "one,nope", "types": "pods"}, true, []string{`context \"nope\" is not in the kubeconfig`}},
		{"contexts", "contexts", nil, false, []string{`"name":"one"`, `"name":"two"`, `"reachable":false`, `"current":"one"`}},
		{"types", "types", map[string]any{"context": "two"}, true, []string{`"context":"two"`, `"error":`}},
		{"bad pattern", "query", map[string]any{"context": "prod-*", "types": "pods"}, true, nil},
		{"capacity all", "capacity", map[string]any{"context": "all"}, true, []string{`"context":"one"`, `"context":"two"`, `"error":`}},
		{"tree all", "tree", map[string]any{"context": "all", "roots": []string{"deployment/web"}}, true, []string{`"context":"one"`, `"context":"two"`, `"error":`}},
		{"events all", "events", map[string]any{"context": "all", "object": "pod/web"}, true, []string{`"context":"one"`, `"context":"two"`, `"error":`}},
		{"wait all", "wait", map[string]any{"context": "all", "types": "pods", "condition": "true"}, true, []string{`"context":"one"`, `"context":"two"`, `"error":`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, structured := call(t, cs, tt.tool, tt.args)
			if res.IsError != tt.isError {
				t.Errorf("%s IsError = %v, want %v: %s", tt.tool, res.IsError, tt.isError, structured)
			}
			for _, w := range tt.want {
				if !strings.Contains(structured, w) {
					t.Errorf("%s = %s, want it to hold %s", tt.tool, structured, w)
				}
			}
			if strings.Contains(structured, "secret-token-value") {
				t.Errorf("%s returned the kubeconfig's token: %s", tt.tool, structured)
			}
		})
	}
}

func TestCheckAddress(t *testing.T) {
	tests := []struct {
		addr string
		ok   bool
	}{
		{"127.0.0.1:8080", true},
		{"[::1]:0", true},
		{"localhost:9000", true},
		{":8080", false},
		{"0.0.0.0:8080", false},
		{"192.168.1.5:80", false},
		{"example.com:80", false},
		{"8080", false},
		{"unix:/run/user/1000/mcp.sock", true},
		{"unix:mcp.sock", true},
		{"unix:", false},
	}
	for _, tt := range tests {
		if err := CheckAddress(tt.addr); (err == nil) != tt.ok {
			t.Errorf("CheckAddress(%q) = %v, want ok %v", tt.addr, err, tt.ok)
		}
	}
}

func TestFitBudget(t *testing.T) {
	size := func(k int) int { return 100 + 10*k }
	tests := []struct {
		tokens, most, want int
	}{
		{1000, 50, 50},
		{100, 50, 30},
		{10, 50, 0},
	}
	for _, tt := range tests {
		if got := fitBudget(tt.tokens, tt.most, size); got != tt.want {
			t.Errorf("fitBudget(%d, %d) = %d, want %d", tt.tokens, tt.most, got, tt.want)
		}
	}
}

func TestServeHTTP(t *testing.T) {
	s := New(Options{ConfigFlags: deadKubeconfig(t)})
	ctx, cancel := context.WithCancel(t.Context())
	addr := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- s.ServeHTTP(ctx, "127.0.0.1:0", func(a string) { addr <- a }) }()
	var url string
	select {
	case url = <-addr:
	case err := <-done:
		t.Fatalf("ServeHTTP = %v before listening", err)
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, nil)
	cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, structured := call(t, cs, "indexers", nil)
	if res.IsError || !strings.Contains(structured, `"name":"node"`) {
		t.Errorf("indexers over HTTP = %s, want the node index", structured)
	}
	cs.Close()
	for _, h := range []struct{ host, origin string }{
		{"evil.example.com", ""},
		{"", "https://evil.example.com"},
	} {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if h.host != "" {
			req.Host = h.host
		}
		if h.origin != "" {
			req.Header.Set("Origin", h.origin)
			req.Header.Set("Sec-Fetch-Site", "cross-site")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("a request with Host %q, Origin %q = %s, want 403", h.host, h.origin, resp.Status)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("ServeHTTP = %v after the context ended, want nil", err)
	}
}

func TestInitializeTouchesNoCluster(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var connections atomic.Int32
	accepted := make(chan struct{})
	go func() {
		defer close(accepted)
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			connections.Add(1)
			conn.Close()
		}
	}()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	config := "apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters:\n- name: c\n  cluster: {server: \"https://" + ln.Addr().String() + "\"}\n" +
		"users:\n- name: u\n  user: {token: t}\ncontexts:\n- name: c\n  context: {cluster: c, user: u}\n"
	if err := os.WriteFile(path, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	cf := genericclioptions.NewConfigFlags(true)
	cf.KubeConfig = &path
	cs := connect(t, New(Options{ConfigFlags: cf}))
	if _, err := cs.ListTools(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	call(t, cs, "indexers", nil)
	if n := connections.Load(); n != 0 {
		t.Errorf("initialize, tools/list and indexers opened %d connections to the API server, want none", n)
	}
	ln.Close()
	<-accepted
}
