package terminal

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

func TestInPlaceRedraws(t *testing.T) {
	tests := []struct {
		name string
		// before is printed first, as a program's earlier output.
		before string
		frames [][]string
		rows   int
		cols   int
		// want is the screen at the end, after End.
		want     []string
		scrolled int
	}{
		{
			name:   "a shorter frame erases the rest of the longer one",
			before: "synced pods: 3\n",
			frames: [][]string{{"NAME   STATUS", "a      Running", "b      Running", "c      Pending"}, {"NAME   STATUS", "a      Running"}},
			rows:   10, cols: 40,
			want: []string{"synced pods: 3", "NAME   STATUS", "a      Running"},
		},
		{
			name:   "a longer frame grows below, shorter lines erase their ends",
			frames: [][]string{{"NAME", "web-1   Running"}, {"NAME", "web", "web-2   Running"}},
			rows:   10, cols: 40,
			want: []string{"NAME", "web", "web-2   Running"},
		},
		{
			name:   "lines wider than the screen are cut, not wrapped",
			frames: [][]string{{"0123456789abcdef", "x"}, {"0123456789ABCDEF", "y"}},
			rows:   5, cols: 10,
			want: []string{"0123456789", "y"},
		},
		{
			name:   "a frame as high as the screen does not scroll it",
			frames: [][]string{{"1", "2", "3", "4"}, {"a", "b", "c", "d"}, {"A", "B", "C", "D"}},
			rows:   4, cols: 10,
			// End moves to a new line below: one scroll, after the last frame.
			want:     []string{"B", "C", "D"},
			scrolled: 1,
		},
		{
			name:   "frames at the bottom of a full screen scroll it once, for the first",
			before: "1\n2\n3\n4\n5\n",
			frames: [][]string{{"a", "b"}, {"c", "d"}, {"e", "f"}},
			rows:   5, cols: 10,
			want:     []string{"4", "5", "e", "f"},
			scrolled: 3, // one for the last line before, one for the first frame's second line, one for End
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			screen := NewScreen(tt.rows, tt.cols)
			screen.Write([]byte(tt.before))
			var p InPlace
			for _, f := range tt.frames {
				screen.Write(p.Frame(f, tt.cols))
			}
			screen.Write(p.End())
			if got := screen.Lines(); !slices.Equal(got, tt.want) {
				t.Errorf("screen = %q, want %q", got, tt.want)
			}
			if screen.Scrolled != tt.scrolled {
				t.Errorf("scrolled %d lines, want %d", screen.Scrolled, tt.scrolled)
			}
		})
	}
}

func TestInPlaceFrameIsOneSequence(t *testing.T) {
	var p InPlace
	first := p.Frame([]string{"a", "b", "c"}, 80)
	if bytes.Contains(first, []byte("\x1b[2J")) || bytes.Contains(first, []byte("\x1b[?1049h")) {
		t.Errorf("first frame %q clears the screen or switches to the alternate screen", first)
	}
	second := string(p.Frame([]string{"a"}, 80))
	if !strings.HasPrefix(second, HideCursor+"\r\x1b[2A") {
		t.Errorf("second frame %q does not start by moving up to the first line of the last frame", second)
	}
	if !strings.HasSuffix(second, "\x1b[J") {
		t.Errorf("second frame %q does not erase the rest of the longer frame", second)
	}
	if end := string(p.End()); end != "\n"+ShowCursor {
		t.Errorf("End() = %q, want a new line and the cursor shown", end)
	}
}

func TestCut(t *testing.T) {
	tests := []struct {
		s     string
		width int
		want  string
	}{
		{"hello", 10, "hello"},
		{"hello", 5, "hello"},
		{"hello", 3, "hel"},
		{"hello", 0, "hello"},
		{"日本語", 4, "日本"},
		{"日本語", 5, "日本"},
		{"…", 1, "…"},
	}
	for _, tt := range tests {
		if got := Cut(tt.s, tt.width); got != tt.want {
			t.Errorf("Cut(%q, %d) = %q, want %q", tt.s, tt.width, got, tt.want)
		}
	}
}
