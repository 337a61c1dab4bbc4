package framework

import (
	"os"
	"path/filepath"
	"testing"
)

// CacheRuntimeDir returns a new directory of mode 0700 for a test's warm
// caches ($XDG_RUNTIME_DIR: their sockets and logs), so that the caches
// started in it are the test's only ones. When the test ends, stop is
// called to stop every cache left (a failing result fails the test), the
// caches' logs are logged if the test failed, and the directory is
// removed. prefix begins the directory's name.
func CacheRuntimeDir(t *testing.T, prefix string, stop func() Result) string {
	t.Helper()
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if r := stop(); r.ExitCode != 0 {
			t.Errorf("cache stop --all at the end: %s", r)
		}
		if t.Failed() {
			logs, _ := filepath.Glob(filepath.Join(dir, "kubectl-informer", "*.log"))
			for _, l := range logs {
				b, _ := os.ReadFile(l)
				t.Logf("cache log %s:\n%s", l, b)
			}
		}
		os.RemoveAll(dir)
	})
	return dir
}
