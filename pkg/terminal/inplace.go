package terminal

import (
	"strconv"
	"strings"

	"github.com/mattn/go-runewidth"
)

// Control sequences of a frame redrawn in place.
const (
	// HideCursor and ShowCursor hide the cursor while frames are drawn, and
	// show it again at the end.
	HideCursor = "\x1b[?25l"
	ShowCursor = "\x1b[?25h"
	// eraseToEOL erases from the cursor to the end of its line;
	// eraseBelow from the cursor to the end of the screen.
	eraseToEOL = "\x1b[K"
	eraseBelow = "\x1b[J"
)

// InPlace redraws a frame of lines over the last one it drew, in the normal
// screen (not the alternate one), so that the last frame stays on the screen
// and in the scrollback when the program ends.
//
// A frame is drawn from the cursor's line down and leaves the cursor at the
// end of its last line, without a newline: a frame of as many lines as the
// screen is high does not scroll it. The next frame moves the cursor up to
// the first line of the last one and overwrites each line, erasing what is
// left of it, then erases what is left below, so that nothing is blank
// between two frames (no flicker). Lines wider than the screen are cut to
// its width, since a wrapped line would take two rows and the next frame
// would start in the wrong place.
//
// InPlace only builds bytes; the caller writes each frame in one write. It
// assumes nothing else writes to the terminal between two frames, and that
// the screen was not narrowed since the last frame (lines it re-wrapped
// would move the first line up): the caller draws again after a resize.
type InPlace struct {
	// drawn is how many lines the last frame took; 0 before the first.
	drawn int
}

// Frame returns the bytes that replace the last frame with lines on a
// screen width columns wide (0: do not cut), each line cut to width.
// Lines must not hold control characters (see SanitizeText).
func (p *InPlace) Frame(lines []string, width int) []byte {
	var b strings.Builder
	b.WriteString(HideCursor)
	b.WriteByte('\r')
	if p.drawn > 1 {
		b.WriteString("\x1b[")
		b.WriteString(strconv.Itoa(p.drawn - 1))
		b.WriteByte('A')
	}
	for i, line := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		line = Cut(line, width)
		b.WriteString(line)
		if width <= 0 || runewidth.StringWidth(line) < width {
			// A line that fills the screen's width leaves the cursor
			// in the last column, where erasing would erase its last
			// character.
			b.WriteString(eraseToEOL)
		}
	}
	if len(lines) < p.drawn {
		b.WriteString(eraseBelow)
	}
	p.drawn = max(len(lines), 1)
	return []byte(b.String())
}

// End returns the bytes that leave the last frame on the screen: the
// cursor, shown again, on the line below it. After End, the next Frame
// starts a new frame below.
func (p *InPlace) End() []byte {
	drawn := p.drawn
	p.drawn = 0
	if drawn == 0 {
		return []byte(ShowCursor)
	}
	return []byte("\n" + ShowCursor)
}

// Cut returns s cut to width columns (0 or less: s whole), as a terminal
// shows them: a wide character counts two.
func Cut(s string, width int) string {
	if width <= 0 || runewidth.StringWidth(s) <= width {
		return s
	}
	w := 0
	for i, r := range s {
		rw := runewidth.RuneWidth(r)
		if w+rw > width {
			return s[:i]
		}
		w += rw
	}
	return s
}
