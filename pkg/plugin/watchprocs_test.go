package plugin

import (
	"os"
	"runtime"
	"testing"
)

// TestProcsLimitKeep: a watch narrows GOMAXPROCS to 1 once it keeps up,
// unless it runs in a process serving other commands (keep), which its
// config says explicitly (no GOMAXPROCS variable set behind its back).
func TestProcsLimitKeep(t *testing.T) {
	if v, ok := os.LookupEnv("GOMAXPROCS"); ok {
		os.Unsetenv("GOMAXPROCS")
		t.Cleanup(func() { os.Setenv("GOMAXPROCS", v) })
	}
	prev := runtime.GOMAXPROCS(2)
	defer runtime.GOMAXPROCS(prev)

	shared := procsLimit{keep: true}
	shared.oneProc()
	if got := runtime.GOMAXPROCS(0); got != 2 {
		t.Errorf("after oneProc with keep: GOMAXPROCS = %d, want 2", got)
	}
	shared.restore()

	own := procsLimit{}
	own.oneProc()
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Errorf("after oneProc: GOMAXPROCS = %d, want 1", got)
	}
	own.restore()
	if got := runtime.GOMAXPROCS(0); got != 2 {
		t.Errorf("after restore: GOMAXPROCS = %d, want 2", got)
	}
}
