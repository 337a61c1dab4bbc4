package warmcache

import (
	"strings"
	"testing"
	"time"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// TestStaleWhenAPIServerStopped stops the apiserver under a warm cache: once
// the cache's watch fails, status says since when, a query still answers
// from the cache but says on stderr that the answer may be stale, and with
// --max-staleness the cache declines and the command asks the (stopped)
// apiserver itself. When the apiserver is back, the watch heals and the
// warning goes.
//
// It stops the primary apiserver, so it must not run in parallel with other
// tests.
func TestStaleWhenAPIServerStopped(t *testing.T) {
	framework.SkipIfShort(t)
	e := newEnv(t)
	c := framework.Current(t)
	ns := uniqueNamespace("warm-stale")
	configMaps(t, ns, 2)
	e.start("")
	q := []string{"query", "configmaps", "-n", ns, "-o", "name"}
	const answer = "configmap/cm-0\nconfigmap/cm-1\n"
	if res := e.mustRun("", q...); res.Stdout != answer || res.Stderr != "" {
		t.Fatalf("warm query: %s", res)
	}

	if err := c.StopAPIServer(); err != nil {
		t.Fatal(err)
	}
	down := true
	t.Cleanup(func() {
		if down {
			if err := c.StartAPIServer(); err != nil {
				t.Errorf("restarting the apiserver: %v", err)
			}
		}
	})
	var since time.Time
	waitFor(t, 60*time.Second, "cache status to show the failing watch", func() bool {
		for _, tc := range e.onlyCache().Status.Caches {
			if tc.FailingSince != nil {
				since = *tc.FailingSince
				return true
			}
		}
		return false
	})
	res := e.run("", q...)
	if res.ExitCode != 0 || res.Stdout != answer {
		t.Errorf("query from a stale cache: %s\nwant the cached answer", res)
	}
	wantSince := since.UTC().Format(time.RFC3339)
	if lines := strings.Split(strings.TrimRight(res.Stderr, "\n"), "\n"); len(lines) != 1 ||
		!strings.Contains(lines[0], "warning: the warm cache's watch of configmaps has been failing since "+wantSince) ||
		!strings.Contains(lines[0], "may be stale") {
		t.Errorf("stderr of a query from a stale cache = %q, want one warning saying since %s", res.Stderr, wantSince)
	}

	time.Sleep(1100 * time.Millisecond)
	res = e.run("", append(q, "--max-staleness", "1s", "--sync-timeout", "10s")...)
	if res.ExitCode != 1 || res.Stdout != "" || !strings.Contains(res.Stderr, "longer than --max-staleness 1s; asking the API server directly") {
		t.Errorf("query with --max-staleness 1s from a stale cache, apiserver down: %s\nwant the cache to decline and the direct query to fail", res)
	}
	if res.Duration > 30*time.Second {
		t.Errorf("the declined query took %s", res.Duration)
	}

	if err := c.StartAPIServer(); err != nil {
		t.Fatal(err)
	}
	down = false
	waitFor(t, 90*time.Second, "the cache's watch to resume", func() bool {
		for _, tc := range e.onlyCache().Status.Caches {
			if tc.FailingSince != nil {
				return false
			}
		}
		return true
	})
	if res := e.mustRun("", q...); res.Stdout != answer || res.Stderr != "" {
		t.Errorf("query after the watch resumed: %s\nwant the answer without a warning", res)
	}
}
