package mcp

import (
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// unixClient returns an HTTP client whose every request goes to the unix
// socket at path.
func unixClient(path string) *http.Client {
	return &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", path)
	}}}
}

func TestServeHTTPOnUnixSocket(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mcp.sock")
	// A socket left by a server that is gone is replaced.
	stale, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	stale.(*net.UnixListener).SetUnlinkOnClose(false)
	stale.Close()

	s := New(Options{ConfigFlags: deadKubeconfig(t)})
	ctx, cancel := context.WithCancel(t.Context())
	listening := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- s.ServeHTTP(ctx, "unix:"+path, func(url string) { listening <- url }) }()
	select {
	case url := <-listening:
		if url != "unix:"+path {
			t.Errorf("listening on %q, want unix:%s", url, path)
		}
	case err := <-done:
		t.Fatalf("ServeHTTP = %v before listening", err)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := info.Mode().Perm(); perm != 0o600 {
		t.Errorf("socket mode %04o, want 0600", perm)
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, nil)
	cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: "http://localhost/", HTTPClient: unixClient(path)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, structured := call(t, cs, "indexers", nil)
	if res.IsError || !strings.Contains(structured, `"name":"node"`) {
		t.Errorf("indexers over a unix socket = %s, want the node index", structured)
	}
	cs.Close()

	// A second server on the same socket is refused while the first runs.
	if err := New(Options{ConfigFlags: deadKubeconfig(t)}).ServeHTTP(t.Context(), "unix:"+path, nil); err == nil || !strings.Contains(err.Error(), "another server listens") {
		t.Errorf("a second server on the socket = %v, want an error saying another server listens", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("ServeHTTP = %v after the context ended, want nil", err)
	}
	if _, err := os.Lstat(path); !os.IsNotExist(err) {
		t.Errorf("the socket is still there after the server ended: %v", err)
	}
}

func TestServeHTTPRefusesAFileThatIsNotASocket(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(path, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	err := New(Options{ConfigFlags: deadKubeconfig(t)}).ServeHTTP(t.Context(), "unix:"+path, nil)
	if err == nil || !strings.Contains(err.Error(), "is not a socket") {
		t.Errorf("ServeHTTP on a regular file = %v, want an error saying it is not a socket", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "keep me" {
		t.Errorf("the file at the path was changed: %q", b)
	}
}
