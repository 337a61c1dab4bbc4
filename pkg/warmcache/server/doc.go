// Package server is the warm cache process: a Pool of long-lived
// informer engines (pkg/engine, used as any command uses it) that commands
// lease, and a Server that accepts connections on the owner's unix socket,
// refuses every peer whose uid is not its own, and runs each request through
// a Handler that streams the command's output back in frames
// (pkg/warmcache/protocol). It knows nothing of cobra: pkg/plugin supplies the
// Handler, which runs the same query and watch code as a direct command.
//
// A Recorder, when the cache is started with --record, keeps a rolling
// recording of what the Pool holds in a directory of segment files (see
// Recorder for when segments start and are deleted, and Pool.recordPlan for
// what is recorded: each type once, from its widest entry, objects as that
// entry keeps them, managedFields included only when it keeps them).
package server
