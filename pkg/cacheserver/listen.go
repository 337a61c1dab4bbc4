package cacheserver

import (
	"fmt"
	"net"
	"os"
)

// Listen listens on the unix socket at path with mode 0600; the directory
// must already have been checked (cacheclient.EnsureDir). A file left at
// path by a cache that is gone must have been removed first.
func Listen(path string) (*net.UnixListener, error) {
	restore := umaskOwnerOnly()
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	restore()
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		l.Close()
		return nil, fmt.Errorf("restricting %s to its owner: %w", path, err)
	}
	return l, nil
}
