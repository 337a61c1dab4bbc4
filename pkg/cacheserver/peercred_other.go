//go:build !linux && !darwin

package cacheserver

import (
	"errors"
	"net"
)

// peerUID cannot read peer credentials on this platform, so every peer is
// refused.
func peerUID(*net.UnixConn) (int, error) {
	return 0, errors.New("peer credentials are not supported on this platform")
}
