package client

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"syscall"
	"time"

	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/protocol"
)

// RemoveStale removes the socket at path when no process listens on it
// any more (connecting is refused): a cache that is gone left it behind.
// It reports whether the path is now free. A socket some process still
// accepts on — a cache that is slow to greet, or of another version — is
// never removed: that process would keep running without a socket, and
// when it exits it would not find its own.
func RemoveStale(path string) (free bool, err error) {
	conn, err := net.DialTimeout("unix", path, time.Second)
	switch {
	case err == nil:
		conn.Close()
		return false, nil
	case errors.Is(err, fs.ErrNotExist):
		return true, nil
	case errors.Is(err, syscall.ECONNREFUSED):
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return false, fmt.Errorf("removing %s, a socket no cache listens on: %w", path, err)
		}
		return true, nil
	default:
		return false, nil
	}
}

// StopAnyVersion asks the cache at socket to exit whatever its protocol
// version: the Hello and the Stop request and its Exit frame are the same
// in every version. Like Dial, it sends nothing to a process of another OS
// user (a *PeerError).
func StopAnyVersion(socket string, timeout time.Duration) error {
	conn, err := net.DialTimeout("unix", socket, timeout)
	if err != nil {
		return err
	}
	defer conn.Close()
	if err := checkPeer(conn, socket, os.Getuid()); err != nil {
		return err
	}
	if err := conn.SetDeadline(time.Now().Add(timeout)); err != nil {
		return err
	}
	if typ, _, err := protocol.ReadFrame(conn); err != nil || typ != protocol.FrameHello {
		return fmt.Errorf("no hello from the cache at %s: frame %q, %v", socket, typ, err)
	}
	if err := protocol.WriteJSON(conn, protocol.FrameRequest, protocol.Request{Kind: protocol.Stop}); err != nil {
		return err
	}
	var exit protocol.Exit
	return protocol.ReadJSON(conn, protocol.FrameExit, &exit)
}
