//go:build !windows

package cmdutil

import (
	"os"
	"os/signal"
	"syscall"
)

// NotifyResize relays the terminal's window-size changes (SIGWINCH) to c
// until stopResize(c).
func NotifyResize(c chan<- os.Signal) { signal.Notify(c, syscall.SIGWINCH) }

// StopResize stops relaying to c.
func StopResize(c chan<- os.Signal) { signal.Stop(c) }
