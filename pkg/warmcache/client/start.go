package client

import "time"

// ReadyFD is the file descriptor on which a cache process started by Start
// says it is ready ("ready\n") or why it is not (one line); Start hands it
// the write end of a pipe there.
const ReadyFD = 3

// StartOptions say how to start a cache process.
type StartOptions struct {
	// Executable and Args are the program and its arguments (the hidden
	// "cache serve" command).
	Executable string
	Args       []string
	// Stdin is what the process reads on its standard input: the
	// kubeconfig flags, so that no credential shows in its argv.
	Stdin []byte
	// LogPath gets the process's stdout and stderr, owner-only.
	LogPath string
	// Ready bounds the wait for the process to listen.
	Ready time.Duration
}
