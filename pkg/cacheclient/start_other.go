//go:build !unix

package cacheclient

import (
	"errors"
	"time"
)

// ReadyFD is where a cache process says it is ready (unix only).
const ReadyFD = 3

// StartOptions say how to start a cache process.
type StartOptions struct {
	Executable string
	Args       []string
	Stdin      []byte
	LogPath    string
	Ready      time.Duration
}

// Start is not supported on this platform: the warm cache needs unix
// sockets with peer credentials.
func Start(StartOptions) (int, error) {
	return 0, errors.New("the warm cache is supported on Linux and macOS only")
}
