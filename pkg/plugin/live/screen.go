package live

import (
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

// Screen draws an answer in place on a terminal: each frame is the
// answer's lines, cut to the screen's height with a line saying how many
// are hidden, and a footer with the counts of the answer's objects and of
// the changes seen and the time of the last change; it is written in one
// write over the last frame (terminal.InPlace: cursor up, lines
// overwritten and erased to their end; not the alternate screen, so the
// last frame stays when the command ends). Its methods are safe for
// concurrent use, Draw by one goroutine at a time.
type Screen struct {
	out io.Writer
	// size returns the screen's width and height; an error leaves lines
	// uncut.
	size    func() (width, height int, err error)
	inPlace terminal.InPlace
	since   time.Time
	notes   lastLine

	mu                       sync.Mutex
	added, modified, deleted int
	last                     time.Time
}

// NewScreen returns the screen drawn on out, a terminal.
func NewScreen(out io.Writer) *Screen {
	s := &Screen{out: out, since: time.Now(), size: func() (int, int, error) { return 0, 0, fmt.Errorf("not a terminal") }}
	if f, ok := out.(*os.File); ok {
		s.size = func() (int, int, error) { return term.GetSize(int(f.Fd())) }
	}
	return s
}

// Notes is where the watches' warnings go: written over the frame, they
// would move it, so the frame shows the last line written instead.
func (s *Screen) Notes() io.Writer { return &s.notes }

// Count counts a change of the answer, of type typ, for the footer.
func (s *Screen) Count(typ engine.EventType) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch typ {
	case engine.Added:
		s.added++
	case engine.Deleted:
		s.deleted++
	default:
		s.modified++
	}
	s.last = time.Now()
}

// Draw writes lines as a frame over the last one; objects are the counts
// of the answer's objects ("pods: 3") the footer starts with.
func (s *Screen) Draw(lines, objects []string) error {
	width, height, err := s.size()
	if err != nil {
		width, height = 0, 0
	}
	s.mu.Lock()
	footer := []string{footerLine(objects, s.added, s.modified, s.deleted, s.last, s.since, time.Local)}
	s.mu.Unlock()
	if note := s.notes.String(); note != "" {
		footer = append([]string{note}, footer...)
	}
	_, err = s.out.Write(s.inPlace.Frame(fitFrame(lines, footer, height), width))
	return err
}

// end leaves the last frame on the screen, the cursor below it.
func (s *Screen) end() { _, _ = s.out.Write(s.inPlace.End()) }

// footerLine is the footer line of a frame: how many objects of each
// type the answer holds, the changes seen, and when the last one came
// (since when nothing did, before the first).
func footerLine(objects []string, added, modified, deleted int, last, since time.Time, loc *time.Location) string {
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

// lastLine keeps the last line written to it. Safe for concurrent use.
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
