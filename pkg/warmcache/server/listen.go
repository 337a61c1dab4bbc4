package server

import (
	"fmt"
	"net"
	"os"

	"k8s.io/klog/v2"
)

// Listener is the cache's unix socket. Closing it removes the socket file
// only if the file at its path is still the one Listen created: a cache
// that exits late must not unlink the socket of the cache that replaced it.
type Listener struct {
	*net.UnixListener
	path string
	file os.FileInfo
}

// Listen listens on the unix socket at path with mode 0600; the directory
// must already have been checked (client.EnsureDir). A file left at
// path by a cache that is gone must have been removed first
// (client.RemoveStale).
func Listen(path string) (*Listener, error) {
	restore := umaskOwnerOnly()
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	restore()
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", path, err)
	}
	l.SetUnlinkOnClose(false)
	if err := os.Chmod(path, 0o600); err != nil {
		l.Close()
		os.Remove(path)
		return nil, fmt.Errorf("restricting %s to its owner: %w", path, err)
	}
	file, err := os.Lstat(path)
	if err != nil {
		l.Close()
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return &Listener{UnixListener: l, path: path, file: file}, nil
}

// Close stops listening and removes the socket file if it is still ours.
// The file goes first, so Close has removed it when Accept returns.
func (l *Listener) Close() error {
	if now, statErr := os.Lstat(l.path); statErr == nil && os.SameFile(now, l.file) {
		if rmErr := os.Remove(l.path); rmErr != nil && !os.IsNotExist(rmErr) {
			klog.InfoS("removing the socket", "path", l.path, "err", rmErr)
		}
	}
	return l.UnixListener.Close()
}
