//go:build linux || darwin

package peercred

import (
	"net"
	"os"
	"path/filepath"
	"testing"
)

// TestUIDBothEnds connects to a unix listener: each end reads the other's
// uid, which is this process's own.
func TestUIDBothEnds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.sock")
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	accepted := make(chan *net.UnixConn, 1)
	go func() {
		c, err := l.AcceptUnix()
		if err != nil {
			close(accepted)
			return
		}
		accepted <- c
	}()
	client, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	server, ok := <-accepted
	if !ok {
		t.Fatal("accept failed")
	}
	defer server.Close()
	for name, conn := range map[string]*net.UnixConn{"client": client, "server": server} {
		uid, err := UID(conn)
		if err != nil {
			t.Fatalf("UID(%s end): %v", name, err)
		}
		if uid != os.Getuid() {
			t.Errorf("UID(%s end) = %d, want %d", name, uid, os.Getuid())
		}
	}
}
