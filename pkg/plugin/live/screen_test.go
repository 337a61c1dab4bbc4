package live

import (
	"fmt"
	"testing"
	"time"
)

func TestLastLineKeepsTheLastWarning(t *testing.T) {
	var l lastLine
	fmt.Fprintf(&l, "warning: watch of pods failed (retrying): %s\n", "connection refused")
	fmt.Fprintln(&l, "watch of pods resumed; changes made meanwhile follow")
	fmt.Fprint(&l, "\n")
	if got, want := l.String(), "watch of pods resumed; changes made meanwhile follow"; got != want {
		t.Errorf("lastLine = %q, want %q", got, want)
	}
	fmt.Fprintln(&l, "a\x1b[2Jb")
	if got, want := l.String(), `a\u001b[2Jb`; got != want {
		t.Errorf("lastLine = %q, want the control characters escaped: %q", got, want)
	}
}

func TestFooterLine(t *testing.T) {
	loc := time.FixedZone("test", 0)
	since := time.Date(2026, 1, 1, 10, 0, 0, 0, loc)
	last := since.Add(90 * time.Second)
	tests := []struct {
		name                     string
		added, modified, deleted int
		want                     string
	}{
		{"before any change", 0, 0, 0, "pods: 3 · no change since 10:00:00 · Ctrl-C to stop"},
		{"after changes", 3, 5, 1, "pods: 3 · 9 changes (3 added, 5 modified, 1 deleted) · last change 10:01:30 · Ctrl-C to stop"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := footerLine([]string{"pods: 3"}, tt.added, tt.modified, tt.deleted, last, since, loc); got != tt.want {
				t.Errorf("footerLine = %q, want %q", got, tt.want)
			}
		})
	}
}
