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

// TestServerKinds checks that a Collect and a Stream request each go to
// their own handler, with their kind, and that a server without one
// declines it with a Fallback.
func TestServerKinds(t *testing.T) {
	handler := func(ctx context.Context, req protocol.Request, stdout, stderr io.Writer) Outcome {
		fmt.Fprintf(stdout, `{"kind":%q}`, req.Kind)
		fmt.Fprintln(stderr, "a warning")
		return Outcome{}
	}
	send := map[protocol.RequestKind]func(*client.Conn, *bytes.Buffer, *bytes.Buffer) (client.Result, error){
		protocol.Collect: func(conn *client.Conn, out, errOut *bytes.Buffer) (client.Result, error) {
			return conn.Collect(context.Background(), protocol.Request{Query: &protocol.Query{Types: "pods"}}, 10*time.Second, out, errOut)
		},
		protocol.Stream: func(conn *client.Conn, out, errOut *bytes.Buffer) (client.Result, error) {
			return conn.Stream(context.Background(), protocol.Request{Stream: &protocol.StreamRequest{Version: "v1", Resource: "pods"}}, 10*time.Second, out, errOut)
		},
	}
	for _, tc := range []struct {
		name         string
		srv          *Server
		kind         protocol.RequestKind
		wantOut      string
		wantErr      string
		wantFallback bool
	}{
		{name: "collect handler", srv: &Server{Collect: handler}, kind: protocol.Collect, wantOut: `{"kind":"collect"}`, wantErr: "a warning\n"},
		{name: "no collect handler", srv: &Server{Stream: handler}, kind: protocol.Collect, wantFallback: true},
		{name: "stream handler", srv: &Server{Stream: handler}, kind: protocol.Stream, wantOut: `{"kind":"stream"}`, wantErr: "a warning\n"},
		{name: "no stream handler", srv: &Server{Collect: handler}, kind: protocol.Stream, wantFallback: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			socket := serveWith(t, tc.srv)
			conn, err := client.Dial(socket, time.Second)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			var out, errOut bytes.Buffer
			res, err := send[tc.kind](conn, &out, &errOut)
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
