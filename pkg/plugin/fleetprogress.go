package plugin

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/term"
	"k8s.io/cli-runtime/pkg/printers"

	"github.com/kubectl-informer/kubectl-informer/pkg/cache"
	"github.com/kubectl-informer/kubectl-informer/pkg/terminal"
)

// This file shows a fleet query's progress on a terminal: while the
// contexts are read, stderr shows a line per context with its state
// (resolving, listing N, synced, failed), redrawn in place; the lines are
// erased before the answer is printed. Off a terminal nothing is shown.

// fleetProgressQuiet is how long a fleet query runs before its progress is
// shown: a quick answer shows none.
const fleetProgressQuiet = 300 * time.Millisecond

// fleetProgress is the per-context progress of a fleet query; a nil
// *fleetProgress shows nothing. Its methods may be called from any
// goroutine.
type fleetProgress struct {
	mu      sync.Mutex
	out     io.Writer
	width   func() int
	names   []string
	states  map[string]string
	start   time.Time
	inPlace terminal.InPlace
	ended   bool
	shown   bool // a frame is on the screen
}

// newFleetProgress returns the progress of names on errOut, nil when
// errOut is not a terminal.
func newFleetProgress(errOut io.Writer, names []string) *fleetProgress {
	if len(names) == 0 || !printers.IsTerminal(errOut) {
		return nil
	}
	width := func() int { return 0 }
	if f, ok := errOut.(*os.File); ok {
		width = func() int {
			w, _, err := term.GetSize(int(f.Fd()))
			if err != nil {
				return 0
			}
			return w
		}
	}
	p := newFleetProgressOn(errOut, width, names)
	go p.tick()
	return p
}

// fleetProgressTick is how often the progress is redrawn while no
// context reports (a context still resolving).
const fleetProgressTick = 250 * time.Millisecond

// tick redraws the progress until end.
func (p *fleetProgress) tick() {
	t := time.NewTicker(fleetProgressTick)
	defer t.Stop()
	for range t.C {
		p.mu.Lock()
		ended := p.ended
		if !ended {
			p.draw()
		}
		p.mu.Unlock()
		if ended {
			return
		}
	}
}

func newFleetProgressOn(out io.Writer, width func() int, names []string) *fleetProgress {
	p := &fleetProgress{out: out, width: width, names: names, states: map[string]string{}, start: time.Now()}
	for _, name := range names {
		p.states[name] = "resolving"
	}
	return p
}

// set records the state of context name and redraws.
func (p *fleetProgress) set(name, state string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.states[name] = state
	p.draw()
}

// engineProgress returns the engine progress callback of context name.
func (p *fleetProgress) engineProgress(name string) func(cache.Progress) {
	return func(e cache.Progress) {
		if allSynced(e) {
			p.set(name, "synced")
			return
		}
		var received int64
		for _, t := range e.Types {
			received += t.Received
		}
		p.set(name, fmt.Sprintf("listing %d", received))
	}
}

// done records how context name's work ended.
func (p *fleetProgress) done(name string, err error) {
	if err != nil {
		p.set(name, "failed")
		return
	}
	p.set(name, "synced")
}

// draw writes the frame, once the quiet time has passed; p.mu is held.
func (p *fleetProgress) draw() {
	if p.ended || time.Since(p.start) < fleetProgressQuiet {
		return
	}
	lines := make([]string, 0, len(p.names))
	for _, name := range p.names {
		lines = append(lines, terminal.SanitizeText(name)+": "+p.states[name])
	}
	p.shown = true
	p.out.Write(p.inPlace.Frame(lines, p.width()))
}

// end erases the progress; nothing is drawn after it.
func (p *fleetProgress) end() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ended = true
	if p.shown {
		// An empty frame erases the last one and leaves the cursor at
		// the start of its first line.
		p.out.Write(append(p.inPlace.Frame(nil, 0), terminal.ShowCursor...))
	}
}

// fleetProgressKey is the context key of a context's engine progress
// callback in a fleet query.
type fleetProgressKey struct{}

// withFleetProgress returns ctx carrying the engine progress callback of
// one context of a fleet query.
func withFleetProgress(ctx context.Context, progress func(cache.Progress)) context.Context {
	return context.WithValue(ctx, fleetProgressKey{}, progress)
}

// fleetProgressFrom returns the engine progress callback ctx carries, or
// fallback.
func fleetProgressFrom(ctx context.Context, fallback func(cache.Progress)) func(cache.Progress) {
	if p, ok := ctx.Value(fleetProgressKey{}).(func(cache.Progress)); ok {
		return p
	}
	return fallback
}
