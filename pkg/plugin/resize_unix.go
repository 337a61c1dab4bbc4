//go:build !windows

package plugin

import (
	"os"
	"os/signal"
	"syscall"
)

// notifyResize relays the terminal's window-size changes (SIGWINCH) to c
// until stopResize(c).
func notifyResize(c chan<- os.Signal) { signal.Notify(c, syscall.SIGWINCH) }

// stopResize stops relaying to c.
func stopResize(c chan<- os.Signal) { signal.Stop(c) }
