// Package progress draws what a command waits for on stderr: the engine's
// sync of one target (NewProgress), and a line per target of several
// (Targets), redrawn in place on a terminal.
package progress

import (
	"fmt"
	"io"
	"strings"
	"time"

	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/klog/v2"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/terminal"
)

// NewProgress returns the engine's progress callback: a self-rewriting status
// line on stderr when stderr is a terminal; otherwise klog lines at -v=1 or
// more, once a second; otherwise nothing.
func NewProgress(errOut io.Writer) func(engine.Progress) {
	if printers.IsTerminal(errOut) {
		shown := false
		return func(p engine.Progress) {
			// Stay quiet for quick syncs; a line that flashes by is noise.
			if p.Elapsed < 300*time.Millisecond && !shown {
				return
			}
			if p.Done || allSynced(p) {
				if shown {
					fmt.Fprint(errOut, terminal.ClearLine)
				}
				return
			}
			shown = true
			fmt.Fprintf(errOut, terminal.ClearLine+"syncing %s (%s)", describeProgress(p), p.Elapsed.Round(100*time.Millisecond))
		}
	}
	var last time.Duration
	return func(p engine.Progress) {
		if !klog.V(1).Enabled() {
			return
		}
		if p.Elapsed-last < time.Second && !allSynced(p) {
			return
		}
		last = p.Elapsed
		klog.V(1).Infof("syncing %s (%s)", describeProgress(p), p.Elapsed.Round(100*time.Millisecond))
	}
}

func allSynced(p engine.Progress) bool {
	for _, t := range p.Types {
		if !t.Synced {
			return false
		}
	}
	return true
}

func describeProgress(p engine.Progress) string {
	parts := make([]string, 0, len(p.Types))
	for _, t := range p.Types {
		state := fmt.Sprintf("%d received", t.Received)
		if t.Synced {
			state = "synced"
		}
		parts = append(parts, fmt.Sprintf("%s: %s", t.Name, state))
	}
	return strings.Join(parts, ", ")
}
