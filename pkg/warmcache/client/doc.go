// Package client finds and talks to the warm cache process of one
// identity: it derives the identity's key from a resolved rest.Config, the
// socket path from the key, checks that the socket's directory belongs to
// the user alone, dials with bounded waits, and forwards a command's output
// from the cache. It also starts a cache process detached from the terminal.
package client
