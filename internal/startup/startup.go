// Package startup holds the garbage collector off while the binary's
// packages initialise, and back a little after that. Their package-level
// tables (API schemes, CEL declarations, regular expressions) are
// allocated once and kept for the life of the process, so a collection
// during initialisation scans them and frees next to nothing; and most
// commands end before they allocate much more, so a collection right after
// initialisation (the heap is then above the collector's first target)
// would scan the same tables again for nothing.
//
// Only package main imports it, and main calls Done before it does
// anything else. Its imports are runtime packages only, so it is
// initialised soon after them (the Go specification's order of package
// initialisation: by import path, each package after its imports): after
// the standard library and some small packages, before client-go's API
// scheme and the other packages that import many.
package startup

import (
	"runtime"
	"runtime/debug"
)

// gcPercent is the collector's target before initialisation (GOGC's, 100
// by default); the collector is off until Done.
var gcPercent = debug.SetGCPercent(-1)

// firstCollectionFactor multiplies the collector's target until its first
// collection. The runtime's first target is 4 MiB of heap scaled by
// GOGC/100, so with GOGC=100 the first collection comes at about 16 MiB of
// heap instead of 4 MiB, which initialisation alone passes.
const firstCollectionFactor = 4

// Done ends initialisation's hold on the collector: its target is
// firstCollectionFactor times GOGC's until its first collection, GOGC's
// from then on. With GOGC=off it stays off. Main calls it once, first.
func Done() {
	if gcPercent <= 0 {
		debug.SetGCPercent(gcPercent)
		return
	}
	hold := gcPercent * firstCollectionFactor
	debug.SetGCPercent(hold)
	restoreAfterCollection(hold)
}

// restoreAfterCollection sets the collector's target back to gcPercent
// after the next collection, if it is still hold then. If something else
// has set a target meanwhile (a command that tightens the collector while
// it reads, and sets hold back when it is done), it waits for the
// collection after that, and so on.
func restoreAfterCollection(hold int) {
	// A small object without pointers could share a block with others,
	// and its cleanup might never run; sentinel has a pointer.
	runtime.AddCleanup(&sentinel{}, func(hold int) {
		if current := debug.SetGCPercent(gcPercent); current != hold {
			debug.SetGCPercent(current)
			restoreAfterCollection(hold)
		}
	}, hold)
}

// sentinel is an object of its own, reachable from nowhere, for
// restoreAfterCollection's cleanup.
type sentinel struct{ _ *sentinel }
