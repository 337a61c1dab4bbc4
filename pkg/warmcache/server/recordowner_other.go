//go:build !unix

package server

import "os"

// checkOwner accepts every directory where owners are not unix uids.
func checkOwner(os.FileInfo) error { return nil }
