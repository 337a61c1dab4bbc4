package server

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/client"
)

// TestSocketReplacement plays a cache that is replaced while it still runs:
// a stale socket is removed, a live one is not, and the old cache closing
// late leaves the new cache's socket in place.
func TestSocketReplacement(t *testing.T) {
	dir := t.TempDir()
	socket := filepath.Join(dir, "s.sock")
	if free, err := client.RemoveStale(socket); !free || err != nil {
		t.Fatalf("RemoveStale(no file) = %v, %v; want free", free, err)
	}
	old, err := Listen(socket)
	if err != nil {
		t.Fatal(err)
	}
	if free, err := client.RemoveStale(socket); free || err != nil {
		t.Fatalf("RemoveStale(live socket) = %v, %v; want not free", free, err)
	}
	if _, err := os.Lstat(socket); err != nil {
		t.Fatalf("a live socket was removed: %v", err)
	}

	// The file is gone (someone removed it), a new cache listens there,
	// then the old one exits: the new socket must stay.
	if err := os.Remove(socket); err != nil {
		t.Fatal(err)
	}
	replacement, err := Listen(socket)
	if err != nil {
		t.Fatal(err)
	}
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(socket); err != nil {
		t.Fatalf("the old cache's Close removed the new cache's socket: %v", err)
	}
	if err := replacement.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(socket); !os.IsNotExist(err) {
		t.Fatalf("Close left its own socket: %v", err)
	}

	// A socket whose process is gone: refused, so removed.
	stale, err := Listen(socket)
	if err != nil {
		t.Fatal(err)
	}
	_ = stale.UnixListener.Close() // exits without removing its file
	if _, err := os.Lstat(socket); err != nil {
		t.Fatalf("setup: %v", err)
	}
	if free, err := client.RemoveStale(socket); !free || err != nil {
		t.Fatalf("RemoveStale(stale socket) = %v, %v; want free", free, err)
	}
	if _, err := os.Lstat(socket); !os.IsNotExist(err) {
		t.Fatalf("the stale socket is still there: %v", err)
	}
}
