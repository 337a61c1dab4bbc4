package query

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/terminal"
)

// This file holds query -w on a terminal: the query's table (objects,
// custom columns, or a grouped table), exactly as query prints it, redrawn
// in place as the informers' events change it.
//
// Each frame is the whole answer computed again from the caches (the same
// lookup, filter, sort and printer as a one-shot query), cut to the
// screen's height with a line saying how many lines are hidden, and a
// footer with the counts and the time of the last change; it is written in
// one write over the last frame (terminal.InPlace: cursor up, lines
// overwritten and erased to their end; not the alternate screen, so the
// last frame stays when the command ends). Frames are drawn when something
// changed, at most every livePacer.gap (at least minRedrawGap, more for
// tables that take long to compute), when the terminal is resized
// (SIGWINCH, the size read again), and every idle interval otherwise, so
// that ages move on.

// Redraw intervals of a live table.
const (
	// minRedrawGap is the shortest time between two frames: a burst of
	// changes is one frame.
	minRedrawGap = 250 * time.Millisecond
	// minIdleRedraw is how often a table that did not change is drawn
	// again, so that its ages move on.
	minIdleRedraw = time.Second
	// renderShare bounds the time spent computing frames: the gap between
	// two frames is at least renderShare times the last one's cost.
	renderShare = 4
)

// livePacer decides when the live table is drawn: as soon as it changed,
// but not sooner than gap after the last frame (changes meanwhile make one
// frame), and every idle interval when nothing changed. It reads no clock:
// the caller passes the time.
type livePacer struct {
	last  time.Time // when the last frame was drawn; zero before the first
	dirty bool      // something changed since the last frame
	gap   time.Duration
	idle  time.Duration
	// minGap and minIdle are the least gap and idle interval.
	minGap, minIdle time.Duration
}

// newLivePacer returns a pacer whose frames are at least minGap apart, and
// at most minIdle when nothing changed (more for costly frames).
func newLivePacer(minGap, minIdle time.Duration) *livePacer {
	return &livePacer{gap: minGap, idle: minIdle, minGap: minGap, minIdle: minIdle}
}

// next reports whether a frame is due at now, and if not, how long until
// one is.
func (p *livePacer) next(now time.Time) (draw bool, wait time.Duration) {
	if p.last.IsZero() {
		return true, 0
	}
	after := p.idle
	if p.dirty {
		after = p.gap
	}
	if elapsed := now.Sub(p.last); elapsed < after {
		return false, after - elapsed
	}
	return true, 0
}

// drawn records a frame drawn at now that took cost to compute: the next
// ones wait renderShare times that, at least.
func (p *livePacer) drawn(now time.Time, cost time.Duration) {
	p.last, p.dirty = now, false
	p.gap = max(p.minGap, renderShare*cost)
	p.idle = max(p.minIdle, 2*renderShare*cost)
}

// changeCounts counts the changes a live table has seen, for its footer.
// The event goroutine adds; the drawing one reads.
type changeCounts struct {
	mu                       sync.Mutex
	added, modified, deleted int
	last                     time.Time
}

func (c *changeCounts) add(typ engine.EventType, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch typ {
	case engine.Added:
		c.added++
	case engine.Deleted:
		c.deleted++
	default:
		c.modified++
	}
	c.last = at
}

func (c *changeCounts) snapshot() (added, modified, deleted int, last time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.added, c.modified, c.deleted, c.last
}

// liveFooter is the footer line of a live table: how many objects of each
// type the answer holds, the changes seen, and when the last one came
// (since when nothing did, before the first).
func liveFooter(objects []string, added, modified, deleted int, last, since time.Time, loc *time.Location) string {
	var b strings.Builder
	b.WriteString(strings.Join(objects, ", "))
	n := added + modified + deleted
	if n == 0 {
		fmt.Fprintf(&b, " · no change since %s", since.In(loc).Format("15:04:05"))
	} else {
		fmt.Fprintf(&b, " · %d changes (%d added, %d modified, %d deleted) · last change %s", n, added, modified, deleted, last.In(loc).Format("15:04:05"))
	}
	b.WriteString(" · Ctrl-C to stop")
	return b.String()
}

// fitFrame returns the lines of a frame for a screen height lines high
// (0: not cut): the table's lines, then a blank line and the footer's lines
// (a warning, the counts). The frame takes at most height-1 lines, so that
// the line after it, where the cursor goes when the command ends, is on the
// screen too. A table that does not fit shows its first lines and a line
// saying how many are hidden; on a screen too low even for that, the last
// lines of the frame are kept, the footer last.
func fitFrame(table, footer []string, height int) []string {
	frame := make([]string, 0, len(table)+len(footer)+2)
	room := height - 1 - 1 - len(footer) // the blank line and the footer
	if height <= 0 || len(table) <= room {
		frame = append(frame, table...)
	} else {
		shown := max(room-1, 0)
		hidden := len(table) - shown
		frame = append(frame, table[:shown]...)
		frame = append(frame, fmt.Sprintf("… %d more lines not shown: the terminal is %d lines high", hidden, height))
	}
	frame = append(frame, "")
	frame = append(frame, footer...)
	if height > 0 && len(frame) > max(height-1, 1) {
		frame = frame[len(frame)-max(height-1, 1):]
	}
	return frame
}

// lastLine keeps the last line written to it: the warnings a live table
// shows in its frame instead of writing them over it. Safe for concurrent
// use.
type lastLine struct {
	mu   sync.Mutex
	line string
}

func (l *lastLine) Write(b []byte) (int, error) {
	text := strings.TrimRight(string(b), "\n")
	if i := strings.LastIndexByte(text, '\n'); i >= 0 {
		text = text[i+1:]
	}
	if text != "" {
		l.mu.Lock()
		l.line = terminal.SanitizeText(text)
		l.mu.Unlock()
	}
	return len(b), nil
}

func (l *lastLine) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.line
}

// liveTable draws a query's answer in place on out; notes are the
// watches' warnings it shows.
type liveTable struct {
	out io.Writer
	// size returns the screen's width and height; an error leaves lines
	// uncut.
	size    func() (width, height int, err error)
	inPlace terminal.InPlace
	counts  changeCounts
	since   time.Time
	notes   lastLine
}

// newLiveTable returns the live table drawn on out, a terminal.
func newLiveTable(out io.Writer) *liveTable {
	l := &liveTable{out: out, since: time.Now(), size: func() (int, int, error) { return 0, 0, fmt.Errorf("not a terminal") }}
	if f, ok := out.(*os.File); ok {
		l.size = func() (int, int, error) { return term.GetSize(int(f.Fd())) }
	}
	return l
}

// draw writes answers as a frame over the last one.
func (l *liveTable) draw(ctx context.Context, answers []*targetAnswer, several bool, contextAt int) error {
	table, objects, err := render(ctx, answers, several, contextAt)
	if err != nil {
		return err
	}
	width, height, err := l.size()
	if err != nil {
		width, height = 0, 0
	}
	added, modified, deleted, last := l.counts.snapshot()
	footer := []string{liveFooter(objects, added, modified, deleted, last, l.since, time.Local)}
	if note := l.notes.String(); note != "" {
		footer = append([]string{note}, footer...)
	}
	_, err = l.out.Write(l.inPlace.Frame(fitFrame(table, footer, height), width))
	return err
}

// render returns the lines query prints for answers ("No resources found"
// included), and the count of their objects per type.
func render(ctx context.Context, answers []*targetAnswer, several bool, contextAt int) ([]string, []string, error) {
	var types []string
	counts := map[string]int{}
	for _, a := range answers {
		for _, g := range a.groups {
			if _, ok := counts[g.t.Name()]; !ok {
				types = append(types, g.t.Name())
			}
			counts[g.t.Name()] += len(g.objs)
		}
	}
	objects := make([]string, len(types))
	for i, name := range types {
		objects[i] = fmt.Sprintf("%s: %d", name, counts[name])
	}
	var buf bytes.Buffer
	p := answerPrinter{answers: answers, several: several, contextAt: contextAt, out: &buf, errOut: &buf}
	if err := p.print(); err != nil {
		return nil, nil, err
	}
	text := strings.TrimSuffix(buf.String(), "\n")
	if text == "" {
		return nil, objects, nil
	}
	return strings.Split(text, "\n"), objects, nil
}
