package plugin

import (
	"os"
	"runtime"
	"testing"

	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/watch"
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

	shared := watch.ProcsLimit{Keep: true}
	shared.OneProc()
	if got := runtime.GOMAXPROCS(0); got != 2 {
		t.Errorf("after oneProc with keep: GOMAXPROCS = %d, want 2", got)
	}
	shared.Restore()

	own := watch.ProcsLimit{}
	own.OneProc()
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Errorf("after oneProc: GOMAXPROCS = %d, want 1", got)
	}
	own.Restore()
	if got := runtime.GOMAXPROCS(0); got != 2 {
		t.Errorf("after restore: GOMAXPROCS = %d, want 2", got)
	}
}
