//go:build !unix

package client

import "errors"

// Start is not supported on this platform: the warm cache needs unix
// sockets with peer credentials.
func Start(StartOptions) (int, error) {
	return 0, errors.New("the warm cache is supported on Linux and macOS only")
}
