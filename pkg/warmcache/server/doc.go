// Package server is the warm cache process: a Pool of long-lived
// informer engines (pkg/cache, used as any command uses it) that commands
// lease, and a Server that accepts connections on the owner's unix socket,
// refuses every peer whose uid is not its own, and runs each request through
// a Handler that streams the command's output back in frames
// (pkg/warmcache/protocol). It knows nothing of cobra: pkg/plugin supplies the
// Handler, which runs the same query and watch code as a direct command.
package server
