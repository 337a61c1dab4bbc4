//go:build windows

package cmdutil

import "os"

// notifyResize relays nothing on Windows, which has no SIGWINCH: a live
// table reads the console's size again on each redraw instead.
func NotifyResize(chan<- os.Signal) {}

// stopResize has nothing to stop on Windows.
func StopResize(chan<- os.Signal) {}
