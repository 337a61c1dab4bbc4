package startgc

import (
	"runtime/debug"
	"testing"
)

// firstRun is true until the test has called Done (go test -count=N runs
// it N times in one process).
var firstRun = true

// The test binary initialises this package as the command does and calls
// no Done before the test first runs.
func TestOffUntilDone(t *testing.T) {
	if firstRun {
		if got := debug.SetGCPercent(-1); got != -1 {
			t.Fatalf("GC percent before Done = %d, want -1 (off)", got)
		}
		firstRun = false
	}
	if percent == -1 {
		t.Fatal("the setting to restore is -1: was GOGC=off set for the test?")
	}
	Done()
	Done()
	if got := debug.SetGCPercent(percent); got != percent {
		t.Fatalf("GC percent after Done = %d, want %d", got, percent)
	}
}
