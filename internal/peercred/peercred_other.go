//go:build !linux && !darwin

package peercred

import (
	"errors"
	"net"
)

// UID cannot read peer credentials on this platform, so every peer is
// refused.
func UID(*net.UnixConn) (int, error) {
	return 0, errors.New("peer credentials are not supported on this platform")
}
