package cacheclient

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-informer/kubectl-informer/pkg/cacheproto"
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
		if err := cacheproto.WriteJSON(conn, cacheproto.FrameHello, cacheproto.Hello{Version: cacheproto.Version}); err != nil {
			got <- "hello: " + err.Error()
			return
		}
		var req cacheproto.Request
		if err := cacheproto.ReadJSON(conn, cacheproto.FrameRequest, &req); err != nil {
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
