package live

import (
	"slices"
	"testing"
)

func TestFitFrame(t *testing.T) {
	table := []string{"NAME   STATUS", "a      Running", "b      Running", "c      Pending"}
	tests := []struct {
		name   string
		height int
		want   []string
	}{
		{"fits with room to spare", 24, append(slices.Clone(table), "", "FOOTER")},
		{"fits exactly: height-1 lines", 7, append(slices.Clone(table), "", "FOOTER")},
		{"one line short: the last two rows hidden", 6, []string{"NAME   STATUS", "a      Running", "… 2 more lines not shown: the terminal is 6 lines high", "", "FOOTER"}},
		{"room for the hidden line only", 5, []string{"NAME   STATUS", "… 3 more lines not shown: the terminal is 5 lines high", "", "FOOTER"}},
		{"too low even for that: the footer is kept", 3, []string{"", "FOOTER"}},
		{"one line: the footer alone", 1, []string{"FOOTER"}},
		{"size unknown: not cut", 0, append(slices.Clone(table), "", "FOOTER")},
	}
	// A warning takes a line of the footer.
	got := fitFrame(table, []string{"warning: watch of pods failed", "FOOTER"}, 7)
	want := []string{"NAME   STATUS", "a      Running", "… 2 more lines not shown: the terminal is 7 lines high", "", "warning: watch of pods failed", "FOOTER"}
	if !slices.Equal(got, want) {
		t.Errorf("fitFrame with a warning =\n%q\nwant\n%q", got, want)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := fitFrame(table, []string{"FOOTER"}, tt.height)
			if !slices.Equal(got, tt.want) {
				t.Errorf("fitFrame(%d lines, height %d) =\n%q\nwant\n%q", len(table), tt.height, got, tt.want)
			}
			if tt.height > 0 && len(got) > max(tt.height-1, 1) {
				t.Errorf("fitFrame(height %d) has %d lines, more than the height less one", tt.height, len(got))
			}
		})
	}
}
