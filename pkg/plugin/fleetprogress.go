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

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/terminal"
)

// This file shows a fleet command's progress on a terminal: while the
// contexts are read, stderr shows a line per context with its state
// (resolving, listing N, synced, failed; a watch's watching and ended),
// redrawn in place; the lines are erased before the answer is printed, or,
// for a watch, once every context is watching or has ended. Lines a watch
// prints meanwhile go above them (above). Off a terminal nothing is shown.

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
	// settles ends the progress by itself once every context is in a
	// final state (settledStates): a watch's.
	settles bool
}

// settledStates are the states after which a context's line of a watch's
// progress no longer changes.
var settledStates = map[string]bool{"watching": true, "ended": true, "failed": true}

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
	if p.settles && settledStates[p.states[name]] && state != "failed" && state != "ended" {
		// A watching context's later engines (relations) do not take
		// it back to listing.
		return
	}
	p.states[name] = state
	if p.settles && p.settled() {
		p.endLocked()
		return
	}
	p.draw()
}

// settled reports whether every context is in a final state; p.mu is held.
func (p *fleetProgress) settled() bool {
	for _, name := range p.names {
		if !settledStates[p.states[name]] {
			return false
		}
	}
	return true
}

// untilWatching makes p the progress of a watch: a synced context is
// watching, one whose watch returned has ended (or failed), and the
// progress ends once every context is watching or has ended.
func (p *fleetProgress) untilWatching() *fleetProgress {
	if p != nil {
		p.settles = true
	}
	return p
}

// above runs write, which writes whole lines to the terminal the progress
// is drawn on, with the progress erased before and drawn again after, so
// that the lines stay above it.
func (p *fleetProgress) above(write func()) {
	if p == nil {
		write()
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.shown || p.ended {
		write()
		return
	}
	// The empty frame leaves the cursor at the start of the erased first
	// line: the lines go there, and the next frame starts below them.
	p.out.Write(p.inPlace.Frame(nil, 0))
	write()
	p.draw()
}

// engineProgress returns the engine progress callback of context name.
func (p *fleetProgress) engineProgress(name string) func(engine.Progress) {
	return func(e engine.Progress) {
		if allSynced(e) {
			p.set(name, p.syncedState())
			return
		}
		var received int64
		for _, t := range e.Types {
			received += t.Received
		}
		p.set(name, fmt.Sprintf("listing %d", received))
	}
}

// syncedState is the state of a synced context: a watch is then watching.
func (p *fleetProgress) syncedState() string {
	if p != nil && p.settles {
		return "watching"
	}
	return "synced"
}

// done records how context name's work ended.
func (p *fleetProgress) done(name string, err error) {
	switch {
	case p == nil:
	case err != nil:
		p.set(name, "failed")
	case p.settles:
		p.set(name, "ended")
	default:
		p.set(name, "synced")
	}
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
	p.endLocked()
}

// endLocked is end with p.mu held.
func (p *fleetProgress) endLocked() {
	if p.ended {
		return
	}
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
func withFleetProgress(ctx context.Context, progress func(engine.Progress)) context.Context {
	return context.WithValue(ctx, fleetProgressKey{}, progress)
}

// fleetProgressFrom returns the engine progress callback ctx carries, or
// fallback.
func fleetProgressFrom(ctx context.Context, fallback func(engine.Progress)) func(engine.Progress) {
	if p, ok := ctx.Value(fleetProgressKey{}).(func(engine.Progress)); ok {
		return p
	}
	return fallback
}

// listingProgress returns a progress callback for a context whose command
// runs several engines one after another (a tree: its roots, then the types
// it follows): the state is listing N, N the objects received over every
// type so far, and never synced, which the command's own end says through
// done.
func (p *fleetProgress) listingProgress(name string) func(engine.Progress) {
	var mu sync.Mutex
	received := map[string]int64{}
	return func(e engine.Progress) {
		mu.Lock()
		var total int64
		for _, t := range e.Types {
			received[t.Name] = max(received[t.Name], t.Received)
		}
		for _, n := range received {
			total += n
		}
		mu.Unlock()
		if total > 0 {
			p.set(name, fmt.Sprintf("listing %d", total))
		}
	}
}
