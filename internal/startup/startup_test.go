package startup

import (
	"os"
	"runtime/debug"
	"strconv"
	"testing"
)

// TestDone: the collector is off after initialisation and Done restores
// the target it had before (GOGC's, 100 without it).
func TestDone(t *testing.T) {
	want := 100
	if v, err := strconv.Atoi(os.Getenv("GOGC")); err == nil {
		want = v
	}
	if got := debug.SetGCPercent(-1); got != -1 {
		t.Errorf("collector target after initialisation = %d, want -1 (off)", got)
	}
	Done()
	if got := debug.SetGCPercent(want); got != want {
		t.Errorf("collector target after Done = %d, want %d", got, want)
	}
}
