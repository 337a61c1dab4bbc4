//go:build unix

package server

import "syscall"

// umaskOwnerOnly sets the umask to 0077, so the socket is created
// owner-only, and returns a func that restores the previous one.
func umaskOwnerOnly() func() {
	old := syscall.Umask(0o077)
	return func() { syscall.Umask(old) }
}
