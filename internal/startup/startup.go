// Package startup holds the garbage collector off while the binary's
// packages initialise. Their package-level tables (API schemes, CEL
// declarations, regular expressions) are allocated once and kept for the
// life of the process, so a collection during initialisation scans them
// and frees next to nothing.
//
// Only package main imports it, and main calls Done before it does
// anything else. Its one import is runtime/debug, so it is initialised as
// soon as runtime/debug is (the Go specification's order of package
// initialisation: by import path, each package after its imports): after
// the standard library and some small packages, before client-go's API
// scheme and the other packages that import many.
package startup

import "runtime/debug"

// gcPercent is the collector's target before initialisation (GOGC's, 100
// by default); the collector is off until Done.
var gcPercent = debug.SetGCPercent(-1)

// Done restores the collector's target that initialisation replaced.
// Main calls it once, first.
func Done() {
	debug.SetGCPercent(gcPercent)
}
