package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/tools/clientcmd"
)

// soakResult is the soak step (issue 41): watches of every pod through one
// warm cache while churn changes the pods through a second API server and
// the primary, which the cache talks to, is restarted every few minutes.
type soakResult struct {
	pods, clients, rate int
	duration, every     time.Duration
	holds               []time.Duration
	churnLine, churnErr string
	achieved            float64
	outages             []soakOutage
	check               soakCheck
	// sync is the first watch's start to its synced line.
	sync time.Duration
	// The 1-minute load average when the step began, its lowest and
	// highest polled every 10 s during the churn, and at the end.
	load1, loadMin, loadMax, loadEnd float64
	began                            time.Time
	wall                             time.Duration
	err                              string
}

// soakLoadPoll polls the 1-minute load average every 10 s until the
// returned func is called, which returns the lowest and highest seen.
func soakLoadPoll() func() (lo, hi float64) {
	done := make(chan struct{})
	var mu sync.Mutex
	lo, hi := loadavg1(), loadavg1()
	go func() {
		t := time.NewTicker(10 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				l := loadavg1()
				mu.Lock()
				lo, hi = min(lo, l), max(hi, l)
				mu.Unlock()
			}
		}
	}()
	return func() (float64, float64) {
		close(done)
		mu.Lock()
		defer mu.Unlock()
		return lo, hi
	}
}

// soakOutageBound is the longest an outage and its resume are expected to
// take: no outage starts later than this before churn ends, so that each
// has changes after its watches resumed.
const soakOutageBound = 90 * time.Second

// soakSchedule is when each outage begins, from churn's start: every
// every, as long as one begins soakOutageBound before the end.
func soakSchedule(duration, every time.Duration) []time.Duration {
	var out []time.Duration
	for at := every; at+soakOutageBound <= duration; at += every {
		out = append(out, at)
	}
	return out
}

// soak is the soak step: BENCH_SOAK_CLIENTS watches of every pod through
// one warm cache of the primary API server; a second API server on the
// same etcd; hack/seed churn through the second for BENCH_SOAK_DURATION,
// while the primary is stopped (SIGKILL and SIGTERM in turn) every
// BENCH_SOAK_RESTART_EVERY, held down BENCH_SOAK_DOWN and started again.
func (b *bench) soak(ctx context.Context) error {
	if err := b.seedPods(ctx, b.soakPods); err != nil {
		return err
	}
	s := &soakResult{pods: b.pods, clients: b.soakClients, rate: b.soakRate, duration: b.soakDuration,
		every: b.soakEvery, holds: b.soakHolds, load1: loadavg1(), began: time.Now()}
	b.rep.soak = s
	schedule := soakSchedule(s.duration, s.every)
	if len(schedule) == 0 {
		return fmt.Errorf("BENCH_SOAK_DURATION %s leaves no room for an outage every %s (each needs %s before the end)", s.duration, s.every, soakOutageBound)
	}
	b.logf("soak: %d watches of %d pods through one warm cache, churn at %d/s through a second API server for %s, the primary restarted %d times (load %.2f)",
		s.clients, s.pods, s.rate, s.duration, len(schedule), s.load1)
	err := b.soakRun(ctx, s, schedule)
	if err != nil {
		s.err = err.Error()
	}
	return err
}

func (b *bench) soakRun(ctx context.Context, s *soakResult, schedule []time.Duration) error {
	second := filepath.Join(b.clusterDir, "second.kubeconfig")
	if _, err := os.Stat(second); err != nil {
		b.logf("soak: starting a second kube-apiserver on the same etcd")
		if _, err := b.tool(ctx, "hack/cluster", "apiserver", b.clusterDir, "second"); err != nil {
			return err
		}
	}
	env, stopCache, err := b.startWarmCache(ctx, "soak-xdg")
	if err != nil {
		return err
	}
	defer stopCache()
	clients, sync, _, err := b.startLoadClients(ctx, env, s.clients)
	defer killLoadClients(clients)
	if err != nil {
		return err
	}
	s.sync = sync
	initial, err := listPodRVs(ctx, second)
	if err != nil {
		return fmt.Errorf("listing the pods through the second API server: %w", err)
	}

	down := false
	defer func() {
		if down {
			if _, err := b.tool(context.WithoutCancel(ctx), "hack/cluster", "start-apiserver", b.clusterDir); err != nil {
				b.logf("soak: starting the primary API server again: %v", err)
			}
		}
	}()
	stamp := filepath.Join(b.workDir, "soak-stamps.txt")
	type churnEnd struct {
		out string
		err error
	}
	churnDone := make(chan churnEnd, 1)
	began := time.Now()
	go func() {
		out, err := b.tool(ctx, "hack/seed", "churn", "--kubeconfig", second, "--rate", strconv.Itoa(s.rate),
			"--duration", s.duration.String(), "--stamp", stamp)
		churnDone <- churnEnd{out, err}
	}()
	loads := soakLoadPoll()
	var churned *churnEnd
outages:
	for i, at := range schedule {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case c := <-churnDone:
			churned = &c
			break outages
		case <-time.After(time.Until(began.Add(at))):
		}
		o := soakOutage{kill: i%2 == 0, hold: s.holds[i%len(s.holds)]}
		args := []string{"stop-apiserver", b.clusterDir}
		how := "SIGTERM"
		if o.kill {
			args, how = append(args, "--kill"), "SIGKILL"
		}
		o.stopAt = time.Now()
		down = true
		if _, err := b.tool(ctx, "hack/cluster", args...); err != nil {
			return err
		}
		o.stopped = time.Now()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(o.hold):
		}
		o.startAt = time.Now()
		if _, err := b.tool(ctx, "hack/cluster", "start-apiserver", b.clusterDir); err != nil {
			return err
		}
		o.readyAt = time.Now()
		down = false
		s.outages = append(s.outages, o)
		b.logf("soak: outage %d (%s): down %.1f s (stop took %.1f s, start %.1f s); load %.2f", i+1, how,
			o.readyAt.Sub(o.stopAt).Seconds(), o.stopped.Sub(o.stopAt).Seconds(), o.readyAt.Sub(o.startAt).Seconds(), loadavg1())
		b.soakLogResumes(clients, o, 2*time.Minute)
		b.write()
	}
	if churned == nil {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case c := <-churnDone:
			churned = &c
		}
	}
	s.churnLine = strings.TrimSpace(churned.out)
	if m := regexp.MustCompile(`\(([0-9.]+)/s`).FindStringSubmatch(churned.out); m != nil {
		s.achieved, _ = strconv.ParseFloat(m[1], 64)
	}
	if churned.err != nil {
		// Counted and reported; what was stamped is still checked.
		s.churnErr = churned.err.Error()
		b.logf("soak: churn: %v", churned.err)
	}
	// Every watch has caught up once all have been quiet for 2 seconds.
	for deadline := time.Now().Add(3 * time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		quiet := true
		for _, c := range clients {
			quiet = quiet && c.quietFor() > 2*time.Second
		}
		if quiet {
			break
		}
	}
	s.wall = time.Since(began)
	s.loadMin, s.loadMax = loads()
	s.loadEnd = loadavg1()
	final, err := listPodRVs(ctx, second)
	if err != nil {
		return fmt.Errorf("listing the pods through the second API server: %w", err)
	}
	in := soakInput{initial: initial, final: final, outages: s.outages}
	if err := writeSoakState(b.workDir, in); err != nil {
		b.logf("soak: keeping the outages and the server's lists: %v", err)
	}
	for len(clients) > 0 {
		c := clients[0]
		clients = clients[1:]
		events, _, err := c.stop()
		if err != nil {
			return err
		}
		c.mu.Lock()
		log := soakWatchLog{events: events}
		for i, l := range c.stderr {
			log.stderr = append(log.stderr, timedLine{at: c.stderrAt[i], text: l})
		}
		c.mu.Unlock()
		in.watches = append(in.watches, log)
		if err := writeSoakLog(b.workDir, len(in.watches), log); err != nil {
			b.logf("soak: keeping watch %d's lines: %v", len(in.watches), err)
		}
	}
	in.end = time.Now()
	if in.stamps, err = readSoakStamps(stamp); err != nil {
		return err
	}
	s.check = checkSoak(in)
	for i, w := range s.check.watches {
		t := w.total()
		b.logf("soak: watch %d printed %d events: %d merged, %d coalesced, %d lost, %d doubled, %d reordered, %d invented; %d final states differ",
			i+1, w.events, t.merged, t.coalesced, t.lost, t.doubled, t.reordered, t.invented, w.finalDiffs)
		for _, e := range w.examples {
			b.logf("soak: watch %d: %s", i+1, e)
		}
	}
	if s.churnErr != "" {
		return errors.New("churn: " + s.churnErr)
	}
	return nil
}

// soakLogResumes waits, at most wait, until every watch has said it
// resumed after outage o, and logs when each did; the report's figures
// come from the lines' arrival times, not from this.
func (b *bench) soakLogResumes(clients []*loadClient, o soakOutage, wait time.Duration) {
	deadline := time.Now().Add(wait)
	for {
		var after []string
		for _, c := range clients {
			c.mu.Lock()
			for i, l := range c.stderr {
				if c.stderrAt[i].After(o.stopAt) && strings.Contains(l, soakResumedLine) {
					after = append(after, fmt.Sprintf("%.1f s", c.stderrAt[i].Sub(o.readyAt).Seconds()))
					break
				}
			}
			c.mu.Unlock()
		}
		if len(after) == len(clients) {
			b.logf("soak: every watch said it resumed, after ready: %s", strings.Join(after, ", "))
			return
		}
		if time.Now().After(deadline) {
			b.logf("soak: after %s only %d of %d watches said they resumed", wait, len(after), len(clients))
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// writeSoakState writes the outages and the server's lists of pods into
// dir beside the watches' lines: soak-outages.txt ("<n> kill|term
// <stop-apiserver run> <returned> <start-apiserver run> <returned>", unix
// nanoseconds), soak-initial.txt and soak-final.txt ("<ns>/<name> <rv>").
func writeSoakState(dir string, in soakInput) error {
	write := func(name string, lines func(w *bufio.Writer)) error {
		return writeLines(filepath.Join(dir, name), lines)
	}
	rvs := func(m map[string]uint64) func(w *bufio.Writer) {
		return func(w *bufio.Writer) {
			keys := make([]string, 0, len(m))
			for k := range m {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				fmt.Fprintf(w, "%s %d\n", k, m[k])
			}
		}
	}
	return errors.Join(
		write("soak-outages.txt", func(w *bufio.Writer) {
			for i, o := range in.outages {
				how := "term"
				if o.kill {
					how = "kill"
				}
				fmt.Fprintf(w, "%d %s %d %d %d %d\n", i+1, how, o.stopAt.UnixNano(), o.stopped.UnixNano(), o.startAt.UnixNano(), o.readyAt.UnixNano())
			}
		}),
		write("soak-initial.txt", rvs(in.initial)),
		write("soak-final.txt", rvs(in.final)))
}

// writeSoakLog writes one watch's lines as the accounting read them into
// dir: soak-watch-N.events ("<unix-nanos> <type> <ns>/<name> <rv>
// <coalesced> <deleting>") and soak-watch-N.stderr ("<unix-nanos> <line>"),
// the evidence behind the report's counts.
func writeSoakLog(dir string, n int, log soakWatchLog) error {
	write := func(name string, lines func(w *bufio.Writer)) error {
		return writeLines(filepath.Join(dir, fmt.Sprintf("soak-watch-%d.%s", n, name)), lines)
	}
	return errors.Join(
		write("events", func(w *bufio.Writer) {
			for _, ev := range log.events {
				fmt.Fprintf(w, "%d %s %s %d %d %t\n", ev.at.UnixNano(), ev.typ, ev.key, ev.rv, ev.coalesced, ev.deleting)
			}
		}),
		write("stderr", func(w *bufio.Writer) {
			for _, l := range log.stderr {
				fmt.Fprintf(w, "%d %s\n", l.at.UnixNano(), l.text)
			}
		}))
}

// writeLines creates path and writes into it what lines writes.
func writeLines(path string, lines func(w *bufio.Writer)) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	lines(w)
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// listPodRVs lists every pod's metadata through kubeconfig and returns
// each one's resourceVersion by namespace/name.
func listPodRVs(ctx context.Context, kubeconfig string) (map[string]uint64, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, err
	}
	cfg.UserAgent = "kubectl-informer-bench-soak"
	client, err := metadata.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	list, err := client.Resource(schema.GroupVersionResource{Version: "v1", Resource: "pods"}).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	out := make(map[string]uint64, len(list.Items))
	for _, p := range list.Items {
		rv, err := strconv.ParseUint(p.ResourceVersion, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("pod %s/%s: resourceVersion %q: %w", p.Namespace, p.Name, p.ResourceVersion, err)
		}
		out[p.Namespace+"/"+p.Name] = rv
	}
	return out, nil
}
