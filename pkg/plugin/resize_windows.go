//go:build windows

package plugin

import "os"

// notifyResize relays nothing on Windows, which has no SIGWINCH: a live
// table reads the console's size again on each redraw instead.
func notifyResize(chan<- os.Signal) {}

// stopResize has nothing to stop on Windows.
func stopResize(chan<- os.Signal) {}
