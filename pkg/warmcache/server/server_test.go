package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/client"
	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/protocol"
)

// serve starts a Server with run on a socket in a temporary directory and
// returns the socket; the server stops when the test ends.
func serve(t *testing.T, run Handler, idle time.Duration) (string, <-chan struct{}) {
	t.Helper()
	dir, err := os.MkdirTemp("", "warmcache-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	socket := filepath.Join(dir, "s.sock")
	l, err := Listen(socket)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	srv := &Server{Listener: l, Collect: run, IdleTimeout: idle}
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
	return socket, done
}

func TestServerRunStreamsInOrder(t *testing.T) {
	socket, _ := serve(t, func(ctx context.Context, req protocol.Request, stdout, stderr io.Writer) Outcome {
		fmt.Fprintf(stdout, "types %v\n", req.Query.Types)
		fmt.Fprintln(stderr, "a warning")
		fmt.Fprintln(stdout, "more")
		return Outcome{Exit: protocol.Exit{Code: 1, Error: "it failed"}}
	}, 0)
	info, err := os.Stat(socket)
	if err != nil {
		t.Fatal(err)
	}
	if perm := info.Mode().Perm(); perm != 0o600 {
		t.Errorf("socket mode = %04o, want 0600", perm)
	}
	conn, err := client.Dial(socket, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if conn.Hello.Version != protocol.Version || conn.Hello.Pid != os.Getpid() {
		t.Errorf("hello = %+v", conn.Hello)
	}
	var both bytes.Buffer
	res, err := conn.Collect(context.Background(), protocol.Request{Query: &protocol.Query{Types: "pods"}}, 10*time.Second, &both, &both)
	if err != nil {
		t.Fatal(err)
	}
	if want := "types pods\na warning\nmore\n"; both.String() != want {
		t.Errorf("output = %q, want %q", both.String(), want)
	}
	if res.Exit == nil || res.Exit.Code != 1 || res.Exit.Error != "it failed" {
		t.Errorf("result = %+v, want exit 1 \"it failed\"", res)
	}
}

func TestServerFallback(t *testing.T) {
	socket, _ := serve(t, func(context.Context, protocol.Request, io.Writer, io.Writer) Outcome {
		return Outcome{Fallback: &protocol.Fallback{Reason: "stale", Warning: "warning: stale"}}
	}, 0)
	conn, err := client.Dial(socket, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	res, err := conn.Collect(context.Background(), protocol.Request{}, 10*time.Second, io.Discard, io.Discard)
	if err != nil || res.Fallback == nil || res.Fallback.Warning != "warning: stale" {
		t.Errorf("Run = %+v, %v; want the fallback", res, err)
	}
}

func TestServerCancelsWhenClientLeaves(t *testing.T) {
	ended := make(chan error, 1)
	socket, _ := serve(t, func(ctx context.Context, _ protocol.Request, stdout, _ io.Writer) Outcome {
		fmt.Fprintln(stdout, "watching")
		<-ctx.Done()
		ended <- ctx.Err()
		return Outcome{}
	}, 0)
	conn, err := client.Dial(socket, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	out := &notifyWriter{wrote: make(chan struct{}, 1)}
	go func() {
		<-out.wrote
		cancel()
	}()
	if _, err := conn.Collect(ctx, protocol.Request{}, 10*time.Second, out, io.Discard); !errors.Is(err, context.Canceled) {
		t.Errorf("Run after cancel = %v, want context.Canceled", err)
	}
	select {
	case err := <-ended:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("handler's context ended with %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the handler's context did not end when the client left")
	}
}

type notifyWriter struct{ wrote chan struct{} }

func (w *notifyWriter) Write(p []byte) (int, error) {
	select {
	case w.wrote <- struct{}{}:
	default:
	}
	return len(p), nil
}

func TestServerIdleExit(t *testing.T) {
	socket, done := serve(t, nil, 300*time.Millisecond)
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the server did not exit after its idle timeout")
	}
	if _, err := os.Stat(socket); !os.IsNotExist(err) {
		t.Errorf("socket still there after the idle exit: %v", err)
	}
}

func TestDialVersionMismatchAndSilence(t *testing.T) {
	dir, err := os.MkdirTemp("", "warmcache-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	tests := []struct {
		name  string
		greet func(net.Conn, <-chan struct{})
		check func(error) bool
	}{
		{"other version", func(c net.Conn, _ <-chan struct{}) {
			_ = protocol.WriteJSON(c, protocol.FrameHello, protocol.Hello{Version: protocol.Version + 1})
		}, func(err error) bool { var v *client.VersionError; return errors.As(err, &v) }},
		{"silent", func(_ net.Conn, release <-chan struct{}) { <-release },
			func(err error) bool { var u *client.UnavailableError; return errors.As(err, &u) }},
		{"hangs up", func(net.Conn, <-chan struct{}) {},
			func(err error) bool { var u *client.UnavailableError; return errors.As(err, &u) }},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			socket := filepath.Join(dir, fmt.Sprintf("%d.sock", i))
			l, err := net.Listen("unix", socket)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			release, served := make(chan struct{}), make(chan struct{})
			defer func() { <-served }()
			defer close(release)
			go func() {
				defer close(served)
				c, err := l.Accept()
				if err != nil {
					return
				}
				tt.greet(c, release)
				c.Close()
			}()
			began := time.Now()
			_, err = client.Dial(socket, 300*time.Millisecond)
			if !tt.check(err) {
				t.Errorf("Dial = %v", err)
			}
			if d := time.Since(began); d > time.Second {
				t.Errorf("Dial took %s, want it bounded by its timeout", d)
			}
		})
	}
	if _, err := client.Dial(filepath.Join(dir, "none.sock"), time.Second); !errors.Is(err, client.ErrNoCache) {
		t.Errorf("Dial(no socket) = %v, want ErrNoCache", err)
	}
}

// fakeServer listens on a socket in a temporary directory, greets one
// client with a Hello, reads its request and then calls after.
func fakeServer(t *testing.T, after func(net.Conn)) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "warmcache-")
	if err != nil {
		t.Fatal(err)
	}
	socket := filepath.Join(dir, "s.sock")
	l, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan struct{})
	go func() {
		defer close(served)
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		_ = protocol.WriteJSON(c, protocol.FrameHello, protocol.Hello{Version: protocol.Version})
		var req protocol.Request
		if protocol.ReadJSON(c, protocol.FrameRequest, &req) == nil {
			after(c)
		}
	}()
	t.Cleanup(func() {
		l.Close()
		<-served
		os.RemoveAll(dir)
	})
	return socket
}

func TestRunFirstFrameTimeout(t *testing.T) {
	release := make(chan struct{})
	socket := fakeServer(t, func(net.Conn) { <-release })
	defer close(release)
	conn, err := client.Dial(socket, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	began := time.Now()
	_, err = conn.Collect(context.Background(), protocol.Request{}, 200*time.Millisecond, io.Discard, io.Discard)
	var u *client.UnavailableError
	if !errors.As(err, &u) {
		t.Errorf("Run against a silent cache = %v, want an UnavailableError (answer directly)", err)
	}
	if d := time.Since(began); d > 5*time.Second {
		t.Errorf("Run took %s, want it bounded by its first-frame timeout", d)
	}
}

func TestRunFallbackAfterOutput(t *testing.T) {
	socket := fakeServer(t, func(c net.Conn) {
		_ = protocol.WriteFrame(c, protocol.FrameHeartbeat, nil)
		_ = protocol.WriteFrame(c, protocol.FrameStdout, []byte("pods/a\n"))
		_ = protocol.WriteJSON(c, protocol.FrameFallback, protocol.Fallback{Reason: "late"})
	})
	conn, err := client.Dial(socket, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var out bytes.Buffer
	_, err = conn.Collect(context.Background(), protocol.Request{}, 5*time.Second, &out, io.Discard)
	if !errors.Is(err, client.ErrFallbackAfterOutput) {
		t.Errorf("Run = %v, want ErrFallbackAfterOutput", err)
	}
	if out.String() != "pods/a\n" {
		t.Errorf("stdout = %q, want the one line (heartbeats write nothing)", out.String())
	}
}

// TestServerStopClosesConnections stops a server while a client holds a
// command whose output it does not read: Serve must still return.
func TestServerStopClosesConnections(t *testing.T) {
	started := make(chan struct{})
	socket, done := serve(t, func(ctx context.Context, _ protocol.Request, stdout, _ io.Writer) Outcome {
		close(started)
		line := bytes.Repeat([]byte("x"), 1<<10)
		for ctx.Err() == nil {
			if _, err := stdout.Write(line); err != nil {
				break
			}
		}
		return Outcome{}
	}, 0)
	reader, err := client.Dial(socket, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	blocked := &blockingWriter{release: make(chan struct{})}
	defer close(blocked.release)
	go func() {
		_, _ = reader.Collect(context.Background(), protocol.Request{}, 10*time.Second, blocked, io.Discard)
	}()
	<-started
	stopper, err := client.Dial(socket, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer stopper.Close()
	if err := stopper.Stop(time.Second); err != nil {
		t.Fatalf("Stop = %v", err)
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after Stop while a client was not reading")
	}
}

// blockingWriter blocks every write until release is closed.
type blockingWriter struct{ release chan struct{} }

func (w *blockingWriter) Write(p []byte) (int, error) {
	<-w.release
	return len(p), nil
}
