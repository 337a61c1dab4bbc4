package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/protocol"
)

// fakeCache listens on a socket in a fresh directory and serves each
// connection with serve; it returns the socket's path.
func fakeCache(t *testing.T, serve func(net.Conn)) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "c.sock")
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			serve(conn)
			conn.Close()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		<-done
	})
	return path
}

// TestDialChecksPeerUID dials a cache of this process's uid and one that
// must be of another uid: the second is refused with a *PeerError before a
// byte is read or sent; the cache sees the connection end without a
// request.
func TestDialChecksPeerUID(t *testing.T) {
	got := make(chan string, 2)
	socket := fakeCache(t, func(conn net.Conn) {
		_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
		if err := protocol.WriteJSON(conn, protocol.FrameHello, protocol.Hello{Version: protocol.Version}); err != nil {
			got <- "hello: " + err.Error()
			return
		}
		var req protocol.Request
		if err := protocol.ReadJSON(conn, protocol.FrameRequest, &req); err != nil {
			got <- "no request"
			return
		}
		got <- "request " + string(req.Kind)
	})

	other := os.Getuid() + 1
	conn, err := dial(socket, 5*time.Second, other)
	var peer *PeerError
	if !errors.As(err, &peer) {
		if conn != nil {
			conn.Close()
		}
		t.Fatalf("dial as if uid %d = %v, want a *PeerError", other, err)
	}
	if peer.UID != os.Getuid() || peer.Want != other {
		t.Errorf("PeerError = %+v, want UID %d, Want %d", peer, os.Getuid(), other)
	}
	if s := <-got; strings.HasPrefix(s, "request") {
		t.Errorf("the refused cache got %q, want no request", s)
	}

	conn, err = Dial(socket, 5*time.Second)
	if err != nil {
		t.Fatalf("Dial(own uid) = %v", err)
	}
	// The fake answers no status: only the request's arrival counts.
	_, _ = conn.Status(5 * time.Second)
	conn.Close()
	if s := <-got; s != "request status" {
		t.Errorf("the cache of this uid got %q, want the status request", s)
	}
}

// blockedWriter is a terminal nobody reads: Write waits until release is
// closed.
type blockedWriter struct {
	release chan struct{}
	buf     strings.Builder
}

func (w *blockedWriter) Write(p []byte) (int, error) {
	<-w.release
	return w.buf.Write(p)
}

// TestRunReadsWhileStdoutBlocks: while stdout takes nothing (a pager left
// unread), Run still reads every frame the cache writes, each within the
// cache's write deadline; the answer is whole once stdout takes it.
func TestRunReadsWhileStdoutBlocks(t *testing.T) {
	client, server := net.Pipe()
	c := &Conn{conn: client, Socket: "pipe"}
	const frames = 20
	chunk := strings.Repeat("x", 1000) + "\n"
	stdout := &blockedWriter{release: make(chan struct{})}
	serverErr := make(chan error, 1)
	go func() {
		defer close(stdout.release) // the user reads at last
		var req protocol.Request
		if err := protocol.ReadJSON(server, protocol.FrameRequest, &req); err != nil {
			serverErr <- err
			return
		}
		for range frames {
			_ = server.SetWriteDeadline(time.Now().Add(2 * time.Second))
			if err := protocol.WriteFrame(server, protocol.FrameStdout, []byte(chunk)); err != nil {
				serverErr <- fmt.Errorf("writing output while the client's stdout is blocked: %w", err)
				return
			}
		}
		serverErr <- protocol.WriteJSON(server, protocol.FrameExit, protocol.Exit{})
	}()
	res, err := c.Collect(context.Background(), protocol.Request{Query: &protocol.Query{Types: "pods"}}, 10*time.Second, stdout, io.Discard)
	if sErr := <-serverErr; sErr != nil {
		t.Fatalf("the cache: %v", sErr)
	}
	if err != nil || res.Exit == nil || res.Exit.Code != 0 {
		t.Fatalf("Run = %+v, %v; want exit 0", res, err)
	}
	if got, want := stdout.buf.String(), strings.Repeat(chunk, frames); got != want {
		t.Errorf("stdout got %d bytes, want %d", len(got), len(want))
	}
	server.Close()
}

// TestRunLostAfterOutput: a connection that breaks after output gives
// ErrLostAfterOutput, with the output that came written; before output it
// is an *UnavailableError (the caller may answer the command itself).
func TestRunLostAfterOutput(t *testing.T) {
	for _, tt := range []struct {
		name   string
		output string
	}{{"after output", "partial\n"}, {"before output", ""}} {
		t.Run(tt.name, func(t *testing.T) {
			client, server := net.Pipe()
			c := &Conn{conn: client, Socket: "pipe"}
			go func() {
				var req protocol.Request
				_ = protocol.ReadJSON(server, protocol.FrameRequest, &req)
				_ = protocol.WriteFrame(server, protocol.FrameHeartbeat, nil)
				if tt.output != "" {
					_ = protocol.WriteFrame(server, protocol.FrameStdout, []byte(tt.output))
				}
				server.Close()
			}()
			var stdout strings.Builder
			_, err := c.Collect(context.Background(), protocol.Request{}, 10*time.Second, &stdout, io.Discard)
			var unavailable *UnavailableError
			if tt.output != "" && !errors.Is(err, ErrLostAfterOutput) {
				t.Errorf("Run error = %v, want ErrLostAfterOutput", err)
			}
			if tt.output == "" && !errors.As(err, &unavailable) {
				t.Errorf("Run error = %v, want an *UnavailableError", err)
			}
			if stdout.String() != tt.output {
				t.Errorf("stdout = %q, want %q", stdout.String(), tt.output)
			}
		})
	}
}
