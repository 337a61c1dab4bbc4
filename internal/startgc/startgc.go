// Package startgc keeps the garbage collector off while the program's
// packages initialise. Their init functions (API scheme registration,
// regular expressions, CEL and OpenAPI tables) allocate ~20 MB that stays
// live, so collections then only cost time: a warm query through the cache
// is mostly process start.
//
// Import it for its side effect from package main only, and call Done as
// main begins: its path sorts before the k8s.io packages, so Go initialises
// it first (packages are initialised in import-path order as their
// dependencies allow).
package startgc

import "runtime/debug"

var percent = debug.SetGCPercent(-1)

// Done restores the collector's setting from before init (GOGC or its
// default). Calling it more than once does no harm.
func Done() { debug.SetGCPercent(percent) }
