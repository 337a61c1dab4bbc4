//go:build unix

package server

import (
	"fmt"
	"os"
	"syscall"
)

// checkOwner fails unless fi, a directory, is owned by the user.
func checkOwner(fi os.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if int(st.Uid) != os.Getuid() {
		return fmt.Errorf("owned by uid %d, not by you (uid %d)", st.Uid, os.Getuid())
	}
	return nil
}
