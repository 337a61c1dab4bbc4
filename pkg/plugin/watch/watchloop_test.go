package watch

import (
	"os"
	"runtime"
	"testing"
)

// TestProcsLimit: a watch narrows GOMAXPROCS to 1 once it keeps up, and
// restore gives the CPUs back.
func TestProcsLimit(t *testing.T) {
	if v, ok := os.LookupEnv("GOMAXPROCS"); ok {
		os.Unsetenv("GOMAXPROCS")
		t.Cleanup(func() { os.Setenv("GOMAXPROCS", v) })
	}
	prev := runtime.GOMAXPROCS(2)
	defer runtime.GOMAXPROCS(prev)

	var own procsLimit
	own.oneProc()
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Errorf("after oneProc: GOMAXPROCS = %d, want 1", got)
	}
	own.restore()
	if got := runtime.GOMAXPROCS(0); got != 2 {
		t.Errorf("after restore: GOMAXPROCS = %d, want 2", got)
	}
}
