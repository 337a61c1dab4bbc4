package usage

import (
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-informer/kubectl-informer/pkg/usage"
	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// cacheEnv runs commands with a warm cache socket directory and a
// discovery cache of their own.
type cacheEnv struct {
	t   *testing.T
	dir string
}

func newCacheEnv(t *testing.T) *cacheEnv {
	t.Helper()
	e := &cacheEnv{t: t}
	e.dir = framework.CacheRuntimeDir(t, "usage-xdg-", func() framework.Result { return e.run("cache", "stop", "--all") })
	return e
}

// run runs kubectl informer ARGS as the admin in e's environment.
func (e *cacheEnv) run(args ...string) framework.Result {
	e.t.Helper()
	return framework.Run(e.t, framework.Cmd{
		Args:    append([]string{"informer"}, args...),
		Env:     []string{"XDG_RUNTIME_DIR=" + e.dir, "KUBECACHEDIR=" + filepath.Join(e.dir, "kubecache")},
		Timeout: rolloutTimeout,
	})
}

func (e *cacheEnv) mustRun(args ...string) framework.Result {
	e.t.Helper()
	r := e.run(args...)
	if r.ExitCode != 0 {
		e.t.Fatalf("kubectl informer %s: %s", strings.Join(args, " "), r)
	}
	return r
}

// cacheReadings is how many readings of pods' metrics the running cache
// has made, over every reader it keeps (cache status -o json).
func (e *cacheEnv) cacheReadings() int64 {
	e.t.Helper()
	r := e.mustRun("cache", "status", "-o", "json")
	var st []struct {
		Status *struct {
			Usage []struct {
				Pods     bool  `json:"pods"`
				Readings int64 `json:"readings"`
			} `json:"usage"`
		} `json:"status"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &st); err != nil || len(st) != 1 || st[0].Status == nil {
		e.t.Fatalf("cache status -o json: %v\n%s", err, r)
	}
	var n int64
	for _, u := range st[0].Status.Usage {
		if u.Pods {
			n += u.Readings
		}
	}
	return n
}

// podMetricsLists counts the LISTs of PodMetrics the API server has
// audited.
func podMetricsLists(t *testing.T) int64 {
	t.Helper()
	events, err := framework.Current(t).AuditLog()
	if err != nil {
		t.Fatalf("reading the audit log: %v", err)
	}
	var n int64
	for _, ev := range events {
		if ev.Stage == "RequestReceived" && ev.Verb == "list" && ev.ObjectRef.APIGroup == usage.GroupName && ev.ObjectRef.Resource == "pods" {
			n++
		}
	}
	return n
}

// uncounted is how many LISTs of PodMetrics the API server has audited
// beyond those the cache counts as its own, once the two agree for a
// moment: a reading of the cache's in flight is counted before the API
// server audits it.
func (e *cacheEnv) uncounted() int64 {
	e.t.Helper()
	var diff int64
	for range 10 {
		readings := e.cacheReadings()
		lists := podMetricsLists(e.t)
		if readings == e.cacheReadings() {
			return lists - readings
		}
		diff = lists - readings
		time.Sleep(500 * time.Millisecond)
	}
	return diff
}

// sampleLine matches the stderr line that says which sample an answer
// read, up to its age.
var sampleLine = regexp.MustCompile(`usage as of (\S+) \(`)

// TestWarmUsage checks that a warm cache answers a query with usage from
// the samples it keeps: the warm answer equals the direct one (--cache
// off) read within the same sample, both say that sample on stderr, and
// the warm query sent no LIST of PodMetrics the cache did not count as
// its own (the direct one did).
func TestWarmUsage(t *testing.T) {
	c := framework.Current(t)
	startWorkloads(t)
	client, err := usage.NewClient(c.AdminConfig())
	if err != nil {
		t.Fatal(err)
	}
	waitForSamples(t, client, len(pods(t)))
	e := newCacheEnv(t)
	if r := e.mustRun("cache", "start"); !strings.Contains(r.Stdout, "started a cache for ") {
		t.Fatalf("cache start did not say it started a cache: %s", r)
	}
	query := []string{"query", "pods", "-A", "--group-by", "namespace", "--group-by", "owner-root",
		"--sum", "usage.cpu", "--sum", "usage.memory", "--sum", "usage.cpu/requests.cpu"}

	// The first question starts the cache's reader; it sends the only
	// LISTs, which the cache counts.
	before := e.uncounted()
	e.mustRun(query...)
	if got := e.uncounted(); got != before {
		t.Fatalf("the warm query sent %d LISTs of PodMetrics the cache did not count: it read the metrics API itself", got-before)
	}

	for attempt := 1; ; attempt++ {
		first, err := usage.Fetch(context.Background(), client, usage.Config{Pods: true, Nodes: true})
		if err != nil {
			t.Fatal(err)
		}
		warm := e.mustRun(query...)
		direct := e.mustRun(append(query, "--cache", "off")...)
		last, err := usage.Fetch(context.Background(), client, usage.Config{Pods: true, Nodes: true})
		if err != nil {
			t.Fatal(err)
		}
		warmSample, directSample := sampleLine.FindStringSubmatch(warm.Stderr), sampleLine.FindStringSubmatch(direct.Stderr)
		if warmSample == nil || directSample == nil {
			t.Fatalf("stderr does not say which sample was read:\nwarm: %s\ndirect: %s", warm.Stderr, direct.Stderr)
		}
		if !last.SameSamples(first) || warmSample[1] != directSample[1] {
			if attempt == 8 {
				t.Fatalf("%d attempts read different samples; the last: warm %s, direct %s", attempt, warmSample[1], directSample[1])
			}
			t.Logf("attempt %d: the samples changed (warm %s, direct %s); again", attempt, warmSample[1], directSample[1])
			time.Sleep(2 * time.Second)
			continue
		}
		if warm.Stdout != direct.Stdout {
			t.Errorf("the warm answer differs from the direct one of the same sample:\nwarm:\n%s\ndirect:\n%s", warm.Stdout, direct.Stdout)
		}
		if strings.Count(warm.Stderr, "usage as of ") != 1 || strings.Contains(warm.Stderr, "warning") {
			t.Errorf("warm stderr %q; want one line saying the sample", warm.Stderr)
		}
		break
	}
	// The direct queries read the metrics API themselves: the check above
	// can tell.
	if got := e.uncounted(); got <= before {
		t.Errorf("the direct queries sent no LIST of PodMetrics beyond the cache's (%d, then %d): the audit log does not tell them apart", before, got)
	}
}
