package fleet

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// cacheEnv runs the plugin with a socket directory of its own
// ($XDG_RUNTIME_DIR), so that these caches are the test's only ones; every
// cache left is stopped when the test ends.
type cacheEnv struct {
	t       *testing.T
	runtime string
}

func newCacheEnv(t *testing.T) *cacheEnv {
	t.Helper()
	e := &cacheEnv{t: t}
	e.runtime = framework.CacheRuntimeDir(t, "fleet-xdg-", func() framework.Result { return e.run("cache", "stop", "--all") })
	return e
}

// run runs `kubectl informer ARGS` with the fleet's kubeconfig.
func (e *cacheEnv) run(args ...string) framework.Result {
	e.t.Helper()
	f := framework.CurrentFleet(e.t)
	return framework.Run(e.t, framework.Cmd{
		Args:       append([]string{"informer"}, args...),
		Kubeconfig: f.Kubeconfig,
		Env:        []string{"XDG_RUNTIME_DIR=" + e.runtime, "KUBECACHEDIR=" + filepath.Join(e.runtime, "kubecache")},
		Timeout:    3 * time.Minute,
	})
}

// fleetCacheEntry is what `cache status -o json` prints per cache.
type fleetCacheEntry struct {
	Socket   string   `json:"socket"`
	Error    string   `json:"error"`
	Contexts []string `json:"contexts"`
	Status   *struct {
		Pid     int    `json:"pid"`
		Server  string `json:"server"`
		Context string `json:"context"`
		Caches  []struct {
			Type    string `json:"type"`
			Objects int    `json:"objects"`
		} `json:"caches"`
	} `json:"status"`
}

// status runs `cache status -o json ARGS` and decodes it; wantExit is the
// exit code it must have.
func (e *cacheEnv) status(wantExit int, args ...string) ([]fleetCacheEntry, framework.Result) {
	e.t.Helper()
	r := e.run(append([]string{"cache", "status", "-o", "json"}, args...)...)
	if r.ExitCode != wantExit || r.TimedOut {
		e.t.Fatalf("cache status %v: want exit %d: %s", args, wantExit, r)
	}
	var entries []fleetCacheEntry
	if err := json.Unmarshal([]byte(r.Stdout), &entries); err != nil {
		e.t.Fatalf("decoding cache status -o json: %v\n%s", err, r)
	}
	return entries, r
}

// TestFleetCachePerContext starts warm caches for two of the three
// contexts with one command, checks that cache status lists one cache per
// context (each of its own context and server), that a query in one of
// these contexts is answered by its cache, and that cache stop across
// contexts stops each.
func TestFleetCachePerContext(t *testing.T) {
	seed(t)
	f := framework.CurrentFleet(t)
	e := newCacheEnv(t)
	c1, c2, c3 := f.Contexts[0], f.Contexts[1], f.Contexts[2]

	r := e.run("cache", "start", "--context", c1+","+c2+",nowhere", "--idle-timeout", "10m")
	if r.ExitCode != 1 || r.TimedOut {
		t.Fatalf("cache start with a missing context: want exit 1: %s", r)
	}
	if !strings.Contains(r.Stderr, "error: context nowhere: not in the kubeconfig") {
		t.Errorf("cache start does not name the missing context: %s", r)
	}
	for _, c := range []string{c1, c2} {
		if !strings.Contains(r.Stdout, "context "+c+": started a cache for ") {
			t.Errorf("cache start does not say it started the cache of %s: %s", c, r)
		}
	}
	if strings.Contains(r.Stdout+r.Stderr, c3) {
		t.Errorf("cache start names %s, which was not asked: %s", c3, r)
	}

	// Every context of the kubeconfig, in order; the two started run,
	// each for its own context and server; the others have none.
	entries, _ := e.status(0, "--all-contexts")
	byContext := map[string]fleetCacheEntry{}
	var listed []string
	for _, en := range entries {
		if len(en.Contexts) != 1 {
			t.Fatalf("status entry %s serves contexts %v, want one each (every context is its own identity)", en.Socket, en.Contexts)
		}
		listed = append(listed, en.Contexts[0])
		byContext[en.Contexts[0]] = en
	}
	for _, c := range append(append([]string{}, f.Contexts...), f.Dead) {
		if _, ok := byContext[c]; !ok {
			t.Errorf("cache status --all-contexts does not list context %s: %v", c, listed)
		}
	}
	servers := map[string]string{}
	for _, c := range []string{c1, c2} {
		en := byContext[c]
		if en.Status == nil {
			t.Fatalf("context %s: no running cache in the status: %+v", c, en)
		}
		if en.Status.Context != c {
			t.Errorf("context %s: its cache runs for context %q", c, en.Status.Context)
		}
		if other, ok := servers[en.Status.Server]; ok {
			t.Errorf("contexts %s and %s: caches of the same server %s", other, c, en.Status.Server)
		}
		servers[en.Status.Server] = c
	}
	for _, c := range []string{c3, f.Dead} {
		if en := byContext[c]; en.Status != nil || en.Error != "no cache runs" {
			t.Errorf("context %s: want no cache runs, got %+v", c, en)
		}
	}

	// A query in c2 is answered by c2's cache: the cache then holds its
	// pods, as many as kubectl lists there; c1's cache holds none.
	r = e.run("query", "pods", "-n", namespace, "--context", c2, "--no-headers")
	if r.ExitCode != 0 {
		t.Fatalf("query --context %s: %s", c2, r)
	}
	if got, want := rows(r.Stdout), rows(kubectl(t, c2, "get", "pods", "-n", namespace, "--no-headers")); !reflect.DeepEqual(got, want) {
		t.Errorf("query --context %s:\n%v\nwant\n%v", c2, got, want)
	}
	entries, _ = e.status(0, "--context", c1+","+c2)
	if len(entries) != 2 || !reflect.DeepEqual(entries[0].Contexts, []string{c1}) || !reflect.DeepEqual(entries[1].Contexts, []string{c2}) {
		t.Fatalf("cache status --context %s,%s: want its two caches in order: %+v", c1, c2, entries)
	}
	pods := func(en fleetCacheEntry) int {
		n := 0
		for _, c := range en.Status.Caches {
			if c.Type == "pods" || strings.HasPrefix(c.Type, "pods.") {
				n += c.Objects
			}
		}
		return n
	}
	if got, want := pods(entries[1]), len(rows(kubectl(t, c2, "get", "pods", "-n", namespace, "--no-headers"))); got != want {
		t.Errorf("cache of %s holds %d pods after the query, want %d: %+v", c2, got, want, entries[1].Status)
	}
	if got := pods(entries[0]); got != 0 {
		t.Errorf("cache of %s holds %d pods; no query asked it", c1, got)
	}

	// The table: one row per selected context, CONTEXT naming it.
	r = e.run("cache", "status", "--context", "fleet-*")
	if r.ExitCode != 0 {
		t.Fatalf("cache status --context 'fleet-*': %s", r)
	}
	tbl := tableCells(r.Stdout)
	if len(tbl) < 1+len(f.Contexts) || tbl[0][3] != "CONTEXT" {
		t.Fatalf("cache status --context 'fleet-*': want a caches table with CONTEXT:\n%s", r.Stdout)
	}
	for i, c := range f.Contexts {
		if tbl[1+i][3] != c {
			t.Errorf("caches table row %d: CONTEXT %q, want %s:\n%s", i+1, tbl[1+i][3], c, r.Stdout)
		}
	}

	// Stop across contexts: each cache stops; c3 has none (said, not an
	// error).
	r = e.run("cache", "stop", "--context", "fleet-*")
	if r.ExitCode != 0 {
		t.Fatalf("cache stop --context 'fleet-*': %s", r)
	}
	for _, c := range []string{c1, c2} {
		if !strings.Contains(r.Stdout, "context "+c+": stopped the cache at ") {
			t.Errorf("cache stop does not say it stopped the cache of %s: %s", c, r)
		}
	}
	if !strings.Contains(r.Stderr, "context "+c3+": no cache runs") {
		t.Errorf("cache stop does not say %s has no cache: %s", c3, r)
	}
	entries, _ = e.status(0)
	if len(entries) != 0 {
		t.Errorf("caches still run after cache stop across contexts: %+v", entries)
	}
}
