package server

import "runtime/debug"

// settle collects the garbage a new engine's initial list left (the pages
// of the list as it was decoded, the objects a transform replaced) and
// returns the freed memory to the operating system. The pool calls it once
// an engine has synced and before the command that asked for the type gets
// its lease, so that the collection does not run beside the answers of the
// commands that come next, and the process's RSS is what the cache holds.
func settle() {
	debug.FreeOSMemory()
}
