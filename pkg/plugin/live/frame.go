package live

import "fmt"

// fitFrame returns the lines of a frame for a screen height lines high
// (0: not cut): the answer's lines, then a blank line and the footer's
// lines (a warning, the counts). The frame takes at most height-1 lines,
// so that the line after it, where the cursor goes when the command ends,
// is on the screen too. An answer that does not fit shows its first lines
// and a line saying how many are hidden; on a screen too low even for
// that, the last lines of the frame are kept, the footer last.
func fitFrame(lines, footer []string, height int) []string {
	frame := make([]string, 0, len(lines)+len(footer)+2)
	room := height - 1 - 1 - len(footer) // the blank line and the footer
	if height <= 0 || len(lines) <= room {
		frame = append(frame, lines...)
	} else {
		shown := max(room-1, 0)
		hidden := len(lines) - shown
		frame = append(frame, lines[:shown]...)
		frame = append(frame, fmt.Sprintf("… %d more lines not shown: the terminal is %d lines high", hidden, height))
	}
	frame = append(frame, "")
	frame = append(frame, footer...)
	if height > 0 && len(frame) > max(height-1, 1) {
		frame = frame[len(frame)-max(height-1, 1):]
	}
	return frame
}
