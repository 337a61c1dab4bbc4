package progress

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
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/targets"
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

// Targets is the progress of a command of several targets, a line per
// target; a nil *Targets shows nothing. Its methods may be called from
// any goroutine.
type Targets struct {
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

// Of returns the progress of the targets of s on errOut: a line per target
// of several, on a terminal; nil for one target, whose engine shows its
// own (NewProgress), and off a terminal.
func Of(errOut io.Writer, s targets.Set) *Targets {
	if !s.Several || len(s.Targets) == 0 || !printers.IsTerminal(errOut) {
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
	p := newTargetsOn(errOut, width, s.Names())
	go p.tick()
	return p
}

// fleetProgressTick is how often the progress is redrawn while no
// context reports (a context still resolving).
const fleetProgressTick = 250 * time.Millisecond

// tick redraws the progress until end.
func (p *Targets) tick() {
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

func newTargetsOn(out io.Writer, width func() int, names []string) *Targets {
	p := &Targets{out: out, width: width, names: names, states: map[string]string{}, start: time.Now()}
	for _, name := range names {
		p.states[name] = "resolving"
	}
	return p
}

// Set records the state of context name and redraws.
func (p *Targets) Set(name, state string) {
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
func (p *Targets) settled() bool {
	for _, name := range p.names {
		if !settledStates[p.states[name]] {
			return false
		}
	}
	return true
}

// UntilWatching makes p the progress of a watch: a synced context is
// watching, one whose watch returned has ended (or failed), and the
// progress ends once every context is watching or has ended.
func (p *Targets) UntilWatching() *Targets {
	if p != nil {
		p.settles = true
	}
	return p
}

// Above runs write, which writes whole lines to the terminal the progress
// is drawn on, with the progress erased before and drawn again after, so
// that the lines stay above it.
func (p *Targets) Above(write func()) {
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

// EngineProgress returns the engine progress callback of context name.
func (p *Targets) EngineProgress(name string) func(engine.Progress) {
	return func(e engine.Progress) {
		if allSynced(e) {
			p.Set(name, p.syncedState())
			return
		}
		var received int64
		for _, t := range e.Types {
			received += t.Received
		}
		p.Set(name, fmt.Sprintf("listing %d", received))
	}
}

// Begin implements targets.Progress: the engines of context name report
// on its line (EngineProgress), through the returned context.
func (p *Targets) Begin(ctx context.Context, name string) context.Context {
	if p == nil {
		return ctx
	}
	return WithTargets(ctx, p.EngineProgress(name))
}

// syncedState is the state of a synced context: a watch is then watching.
func (p *Targets) syncedState() string {
	if p != nil && p.settles {
		return "watching"
	}
	return "synced"
}

// Done records how context name's work ended.
func (p *Targets) Done(name string, err error) {
	switch {
	case p == nil:
	case err != nil:
		p.Set(name, "failed")
	case p.settles:
		p.Set(name, "ended")
	default:
		p.Set(name, "synced")
	}
}

// draw writes the frame, once the quiet time has passed; p.mu is held.
func (p *Targets) draw() {
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

// End erases the progress; nothing is drawn after it.
func (p *Targets) End() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.endLocked()
}

// endLocked is end with p.mu held.
func (p *Targets) endLocked() {
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

// WithTargets returns ctx carrying the engine progress callback of
// one context of a fleet query.
func WithTargets(ctx context.Context, progress func(engine.Progress)) context.Context {
	return context.WithValue(ctx, fleetProgressKey{}, progress)
}

// FromContext returns the engine progress callback ctx carries, or
// fallback.
func FromContext(ctx context.Context, fallback func(engine.Progress)) func(engine.Progress) {
	if p, ok := ctx.Value(fleetProgressKey{}).(func(engine.Progress)); ok {
		return p
	}
	return fallback
}

// ListingProgress returns a progress callback for a context whose command
// runs several engines one after another (a tree: its roots, then the types
// it follows): the state is listing N, N the objects received over every
// type so far, and never synced, which the command's own end says through
// done.
func (p *Targets) ListingProgress(name string) func(engine.Progress) {
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
			p.Set(name, fmt.Sprintf("listing %d", total))
		}
	}
}
