package peercred

import (
	"fmt"
	"net"

	"golang.org/x/sys/unix"
)

// UID returns the uid of the process at the other end of conn
// (LOCAL_PEERCRED).
func UID(conn *net.UnixConn) (int, error) {
	raw, err := conn.SyscallConn()
	if err != nil {
		return 0, err
	}
	var cred *unix.Xucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	}); err != nil {
		return 0, err
	}
	if credErr != nil {
		return 0, fmt.Errorf("reading the peer's credentials: %w", credErr)
	}
	return int(cred.Uid), nil
}
