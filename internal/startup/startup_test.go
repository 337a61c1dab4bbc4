package startup

import (
	"os"
	"runtime/debug"
	"strconv"
	"testing"
)

// TestDone: the collector is off after initialisation and Done restores
// the target it had before (GOGC's, 100 without it). With GOGC=off it
// cannot tell them apart.
func TestDone(t *testing.T) {
	want := 100
	if v, err := strconv.Atoi(os.Getenv("GOGC")); err == nil {
		want = v
	} else if os.Getenv("GOGC") == "off" {
		want = -1
	}
	if got := debug.SetGCPercent(-1); got != -1 {
		t.Errorf("collector target after initialisation = %d, want -1 (off)", got)
	}
	Done()
	if got := debug.SetGCPercent(want); got != want {
		t.Errorf("collector target after Done = %d, want %d", got, want)
	}
}
