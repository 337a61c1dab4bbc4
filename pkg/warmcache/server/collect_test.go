package server

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/client"
	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/protocol"
)

// TestServerCollect checks that a Collect request goes to the Collect
// handler (not Run), with its kind, and that a server without one declines
// it with a Fallback.
func TestServerCollect(t *testing.T) {
	run := func(ctx context.Context, req protocol.Request, stdout, stderr io.Writer) Outcome {
		fmt.Fprint(stdout, "printed text")
		return Outcome{}
	}
	collect := func(ctx context.Context, req protocol.Request, stdout, stderr io.Writer) Outcome {
		fmt.Fprintf(stdout, `{"kind":%q,"args":%q}`, req.Kind, req.Args)
		fmt.Fprintln(stderr, "a warning")
		return Outcome{}
	}
	for _, tc := range []struct {
		name         string
		collect      Handler
		wantOut      string
		wantErr      string
		wantFallback bool
	}{
		{name: "collect handler", collect: collect, wantOut: `{"kind":"collect","args":["query" "pods"]}`, wantErr: "a warning\n"},
		{name: "no collect handler", wantFallback: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			socket := serveWith(t, &Server{Run: run, Collect: tc.collect})
			conn, err := client.Dial(socket, time.Second)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			var out, errOut bytes.Buffer
			res, err := conn.Collect(context.Background(), protocol.Request{Args: []string{"query", "pods"}}, 10*time.Second, &out, &errOut)
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Fallback != nil; got != tc.wantFallback {
				t.Fatalf("fallback = %+v, want one: %v", res.Fallback, tc.wantFallback)
			}
			if out.String() != tc.wantOut || errOut.String() != tc.wantErr {
				t.Errorf("stdout %q, stderr %q; want %q, %q", out.String(), errOut.String(), tc.wantOut, tc.wantErr)
			}
		})
	}
}

// serveWith starts srv on a socket in a temporary directory and returns
// the socket; the server stops when the test ends.
func serveWith(t *testing.T, srv *Server) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "warmcache-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	socket := filepath.Join(dir, "s.sock")
	if srv.Listener, err = Listen(socket); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		if err := srv.Serve(ctx); err != nil {
			t.Errorf("Serve = %v", err)
		}
		close(done)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return socket
}
