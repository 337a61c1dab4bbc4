package startup

import (
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"testing"
	"time"
)

// gcTarget returns the collector's target without changing it.
func gcTarget() int {
	current := debug.SetGCPercent(-1)
	debug.SetGCPercent(current)
	return current
}

// TestDone: the collector is off after initialisation; after Done its
// target is firstCollectionFactor times GOGC's (100 without it) until it
// has collected, and GOGC's after; a target set meanwhile by someone else
// is left alone until they set the held one back. With GOGC=off it stays
// off.
func TestDone(t *testing.T) {
	want := 100
	if v, err := strconv.Atoi(os.Getenv("GOGC")); err == nil {
		want = v
	} else if os.Getenv("GOGC") == "off" {
		want = -1
	}
	if got := gcTarget(); got != -1 {
		t.Errorf("collector target after initialisation = %d, want -1 (off)", got)
	}
	Done()
	if want <= 0 {
		if got := gcTarget(); got != want {
			t.Errorf("collector target after Done = %d, want %d", got, want)
		}
		return
	}
	hold := want * firstCollectionFactor
	if got := gcTarget(); got != hold {
		t.Errorf("collector target after Done = %d, want %d until the first collection", got, hold)
	}
	// A reader tightens the collector, which collects meanwhile: its
	// target stands.
	debug.SetGCPercent(50)
	runtime.GC()
	time.Sleep(50 * time.Millisecond)
	if got := gcTarget(); got != 50 {
		t.Errorf("collector target set while held = %d after a collection, want it left at 50", got)
	}
	// The reader sets the held target back: the next collection ends it.
	debug.SetGCPercent(hold)
	runtime.GC()
	for deadline := time.Now().Add(5 * time.Second); gcTarget() != want; {
		if time.Now().After(deadline) {
			t.Fatalf("collector target five seconds after a collection = %d, want %d", gcTarget(), want)
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
}
