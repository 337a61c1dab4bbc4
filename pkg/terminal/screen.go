package terminal

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Screen is a model of a terminal's screen that understands what InPlace
// and the printers write: text, carriage return, line feed (as a terminal
// behind a tty that maps it to CR LF), and the CSI sequences for cursor up
// (A), cursor home (H), erase in line (K) and erase in display (J); others
// are ignored. Lines scroll off the top into Scrolled. Tests read what a
// user would see after a program redrew its output in place.
type Screen struct {
	rows, cols int
	cells      [][]rune
	row, col   int
	// wrap is set when the last column was written: the next character
	// goes to the next line, as on a terminal with autowrap.
	wrap bool
	// Scrolled counts lines that scrolled off the top.
	Scrolled int
	// pending holds an escape sequence cut by the end of a Write.
	pending []byte
}

// NewScreen returns an empty screen rows lines high and cols wide, the
// cursor in the top left corner.
func NewScreen(rows, cols int) *Screen {
	s := &Screen{rows: rows, cols: cols, cells: make([][]rune, rows)}
	for i := range s.cells {
		s.cells[i] = s.blank()
	}
	return s
}

func (s *Screen) blank() []rune {
	line := make([]rune, s.cols)
	for i := range line {
		line[i] = ' '
	}
	return line
}

// Write interprets b. It never fails.
func (s *Screen) Write(b []byte) (int, error) {
	n := len(b)
	if len(s.pending) > 0 {
		b = append(s.pending, b...)
		s.pending = nil
	}
	for len(b) > 0 {
		switch c := b[0]; {
		case c == '\x1b':
			used, ok := s.escape(b)
			if !ok {
				s.pending = append([]byte(nil), b...)
				return n, nil
			}
			b = b[used:]
		case c == '\r':
			s.col, s.wrap = 0, false
			b = b[1:]
		case c == '\n':
			s.col, s.wrap = 0, false
			s.lineFeed()
			b = b[1:]
		case c < 0x20:
			b = b[1:]
		default:
			r, size := utf8.DecodeRune(b)
			if r == utf8.RuneError && size == 1 && !utf8.FullRune(b) {
				s.pending = append([]byte(nil), b...)
				return n, nil
			}
			s.put(r)
			b = b[size:]
		}
	}
	return n, nil
}

func (s *Screen) lineFeed() {
	if s.row < s.rows-1 {
		s.row++
		return
	}
	copy(s.cells, s.cells[1:])
	s.cells[s.rows-1] = s.blank()
	s.Scrolled++
}

func (s *Screen) put(r rune) {
	if s.wrap {
		s.col, s.wrap = 0, false
		s.lineFeed()
	}
	s.cells[s.row][s.col] = r
	if s.col == s.cols-1 {
		s.wrap = true
	} else {
		s.col++
	}
}

// escape interprets the escape sequence at the start of b and returns its
// length; ok is false when b ends before the sequence does.
func (s *Screen) escape(b []byte) (int, bool) {
	if len(b) < 2 {
		return 0, false
	}
	if b[1] != '[' {
		return 2, true
	}
	i := 2
	for i < len(b) && (b[i] >= '0' && b[i] <= '9' || b[i] == ';' || b[i] == '?') {
		i++
	}
	if i == len(b) {
		return 0, false
	}
	param := string(b[2:i])
	n, err := strconv.Atoi(param)
	if err != nil {
		n = 0
	}
	switch b[i] {
	case 'A':
		s.row = max(s.row-max(n, 1), 0)
		s.wrap = false
	case 'H':
		s.row, s.col, s.wrap = 0, 0, false
	case 'K':
		for c := s.col; c < s.cols; c++ {
			s.cells[s.row][c] = ' '
		}
	case 'J':
		for c := s.col; c < s.cols; c++ {
			s.cells[s.row][c] = ' '
		}
		for r := s.row + 1; r < s.rows; r++ {
			s.cells[r] = s.blank()
		}
	}
	return i + 1, true
}

// Lines returns the screen's lines, trailing spaces cut, without the blank
// lines at the bottom.
func (s *Screen) Lines() []string {
	lines := make([]string, s.rows)
	last := -1
	for i, row := range s.cells {
		lines[i] = strings.TrimRight(string(row), " ")
		if lines[i] != "" {
			last = i
		}
	}
	return lines[:last+1]
}

// Cursor returns the cursor's line and column, from 0.
func (s *Screen) Cursor() (row, col int) { return s.row, s.col }
