package restart

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	utilrand "k8s.io/apimachinery/pkg/util/rand"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// TestWarmCacheWatchesThroughRestarts runs two identical watches through
// one warm cache (cache start) during the rollout with outages: the cache's
// informers resume, and each watch prints what a direct watch must
// (rollout.check).
func TestWarmCacheWatchesThroughRestarts(t *testing.T) {
	r := newRollout(t, "restart-warm-"+utilrand.String(5))
	env := warmEnv(t)
	res := framework.Run(t, framework.Cmd{Args: []string{"informer", "cache", "start"}, Env: env})
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "started a cache for ") {
		t.Fatalf("cache start: %s", res)
	}
	t.Cleanup(func() {
		if res := framework.Run(t, framework.Cmd{Args: []string{"informer", "cache", "stop", "--all"}, Env: env}); res.ExitCode != 0 {
			t.Errorf("cache stop --all: %s", res)
		}
	})
	for range 2 {
		p := framework.Start(t, framework.Cmd{Args: append([]string{"informer", "watch"}, watchArgs(r.ns)...), Env: env, Timeout: 10 * time.Minute})
		waitWatching(t, p)
		r.watches = append(r.watches, p)
	}
	if users := watchUsers(t, env); len(users) != 3 || users["pods"] != 2 || users["deployments.apps"] != 2 || users["replicasets.apps"] != 2 {
		t.Fatalf("the cache's watch informers have users %v, want 2 for each of pods, deployments.apps and replicasets.apps: the watches do not both run through the cache", users)
	}
	r.run()
	for i, p := range r.watches {
		stop(t, p)
		events := printedEvents(t, p, "")
		r.check("watch "+string(rune('1'+i)), events)
		t.Logf("watch %d printed %d events for %d objects", i+1, len(events), len(printedFinal(events)))
	}
}

// warmEnv returns the environment of a test's warm-cache commands: a socket
// directory ($XDG_RUNTIME_DIR, mode 0700) and a discovery cache of its own.
func warmEnv(t *testing.T) []string {
	t.Helper()
	dir, err := os.MkdirTemp("", "restart-xdg-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return []string{"XDG_RUNTIME_DIR=" + dir, "KUBECACHEDIR=" + filepath.Join(dir, "kubecache")}
}

// waitWatching waits until the watch p has synced.
func waitWatching(t *testing.T, p *framework.Process) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(p.Stderr(), "; watching for changes") {
		select {
		case <-p.Done():
			t.Fatalf("the watch exited before it was watching: %s", p.Wait())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("the watch did not sync within a minute; stderr:\n%s", p.Stderr())
		}
	}
}

// watchUsers returns how many users the warm cache's watch informers have,
// by type, from `cache status -o json`.
func watchUsers(t *testing.T, env []string) map[string]int {
	t.Helper()
	res := framework.Run(t, framework.Cmd{Args: []string{"informer", "cache", "status", "-o", "json"}, Kubeconfig: framework.NoKubeconfig, Env: env})
	if res.ExitCode != 0 {
		t.Fatalf("cache status: %s", res)
	}
	var status []struct {
		Status *struct {
			Caches []struct {
				Type    string `json:"type"`
				Purpose string `json:"purpose"`
				Users   int    `json:"users"`
			} `json:"caches"`
		} `json:"status"`
	}
	if err := json.Unmarshal([]byte(res.Stdout), &status); err != nil {
		t.Fatalf("decoding cache status -o json: %v\n%s", err, res)
	}
	users := map[string]int{}
	for _, s := range status {
		if s.Status == nil {
			continue
		}
		for _, c := range s.Status.Caches {
			if c.Purpose == "watch" {
				users[c.Type] += c.Users
			}
		}
	}
	return users
}
