package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// loadResult is the load step (issue 28): watches of every pod through one
// warm cache while churn changes the pods as fast as the control plane
// takes it.
type loadResult struct {
	pods, clients, rate int
	duration            time.Duration
	achieved            float64
	churnLine           string
	// stamps is what churn changed: each change's resourceVersion and
	// the deletes, per object.
	stamps churnStamps
	// sync is from the first watch's start to its synced line: the
	// cache's list of every pod.
	sync    time.Duration
	watches []loadWatch
	// The cache process: its CPU from just before churn to the watches'
	// quiet second after it; its RSS started (empty), with the watches
	// synced (before churn), the highest polled every second meanwhile
	// (peak), and after.
	cacheCPU                               time.Duration
	rssEmpty, rssBefore, rssPeak, rssAfter int64
	objects                                int
	// The floor watch (client-go, every namespace) over the same span,
	// and the reference metadata watch's lag.
	floorEvents    int
	floorCPU       time.Duration
	rawMatched     int
	rawP50, rawP99 time.Duration
	wall           time.Duration // churn's start to the watches' quiet second
	load1          float64
}

// loadWatch is one watch of the load step as the harness read it.
type loadWatch struct {
	events int // lines printed
	// matched are ADDED and MODIFIED events whose resourceVersion churn
	// stamped; missing are stamped changes no event carried, coalesced
	// the updates the watch says it merged (-o json's "coalesced").
	matched, missing, coalesced int
	// deletes are DELETED events of churned objects; deletesMissing the
	// stamped deletes beyond them.
	deletes, deletesMissing int
	// reordered are events of an object whose resourceVersion is below
	// one printed before for it; duplicates repeat one.
	reordered, duplicates int
	p50, p99, max         time.Duration
	cpu                   time.Duration // over the cache's span
	rssKiB                int64
	warnings              []string
}

// lost is what the watch did not print and did not say it merged.
func (w loadWatch) lost() int {
	return max(0, w.missing-w.coalesced) + w.deletesMissing
}

// churnStamps are churn's stamp lines: the resourceVersion and response
// time of every change, and how many deletes each object had.
type churnStamps struct {
	changes map[uint64]stampedChange
	deletes map[string]int
}

type stampedChange struct {
	at  time.Time
	key string // namespace/name
}

// readChurnStamps reads churn's "<unix-nanos> <op> <ns>/<name> <rv>" lines;
// a delete's resourceVersion is "-".
func readChurnStamps(path string) (churnStamps, error) {
	s := churnStamps{changes: map[uint64]stampedChange{}, deletes: map[string]int{}}
	f, err := os.Open(path)
	if err != nil {
		return s, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		fields := strings.Fields(sc.Text())
		if len(fields) != 4 {
			return s, fmt.Errorf("%s:%d: want 4 fields, got %q", path, n, sc.Text())
		}
		nanos, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return s, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		if fields[1] == "delete" {
			s.deletes[fields[2]]++
			continue
		}
		rv, err := strconv.ParseUint(fields[3], 10, 64)
		if err != nil {
			return s, fmt.Errorf("%s:%d: resourceVersion: %w", path, n, err)
		}
		s.changes[rv] = stampedChange{at: time.Unix(0, nanos), key: fields[2]}
	}
	return s, sc.Err()
}

// loadEvent is one printed event, as much of it as the step checks.
type loadEvent struct {
	at        time.Time
	typ       string
	key       string
	rv        uint64
	coalesced int
	// deleting: the object has a deletionTimestamp (the soak step reads
	// it: a delete writes that state before the object goes).
	deleting bool
}

// parseLoadEvent reads one -o json line of watch.
func parseLoadEvent(at time.Time, data []byte) (loadEvent, error) {
	var ev struct {
		Type      string `json:"type"`
		Coalesced int    `json:"coalesced"`
		Object    struct {
			Metadata struct {
				Namespace         string `json:"namespace"`
				Name              string `json:"name"`
				ResourceVersion   string `json:"resourceVersion"`
				DeletionTimestamp string `json:"deletionTimestamp"`
			} `json:"metadata"`
		} `json:"object"`
	}
	if err := json.Unmarshal(data, &ev); err != nil {
		return loadEvent{}, fmt.Errorf("a watch line is not JSON: %w: %.200s", err, data)
	}
	m := ev.Object.Metadata
	rv, err := strconv.ParseUint(m.ResourceVersion, 10, 64)
	if err != nil {
		return loadEvent{}, fmt.Errorf("a watch line's resourceVersion %q: %w", m.ResourceVersion, err)
	}
	return loadEvent{at: at, typ: ev.Type, key: m.Namespace + "/" + m.Name, rv: rv, coalesced: ev.Coalesced, deleting: m.DeletionTimestamp != ""}, nil
}

// checkLoadEvents compares one watch's events with what churn stamped.
// A DELETED event carries the object's last state, whose resourceVersion
// is an earlier change's, so deletes are counted per object, not matched.
func checkLoadEvents(events []loadEvent, stamps churnStamps) loadWatch {
	w := loadWatch{events: len(events)}
	seen := map[uint64]bool{}
	last := map[string]uint64{}
	deletes := map[string]int{}
	var lags []time.Duration
	for _, ev := range events {
		w.coalesced += ev.coalesced
		if ev.typ == "DELETED" {
			if stamps.deletes[ev.key] > 0 {
				deletes[ev.key]++
			}
			continue
		}
		switch prev, ok := last[ev.key]; {
		case ok && ev.rv == prev:
			w.duplicates++
		case ok && ev.rv < prev:
			w.reordered++
		}
		last[ev.key] = max(last[ev.key], ev.rv)
		if c, ok := stamps.changes[ev.rv]; ok && c.key == ev.key && !seen[ev.rv] {
			seen[ev.rv] = true
			w.matched++
			lags = append(lags, ev.at.Sub(c.at))
		}
	}
	w.missing = len(stamps.changes) - w.matched
	for key, n := range stamps.deletes {
		w.deletes += min(n, deletes[key])
		w.deletesMissing += max(0, n-deletes[key])
	}
	sortDurations(lags)
	w.p50, w.p99 = percentile(lags, 0.50), percentile(lags, 0.99)
	if len(lags) > 0 {
		w.max = lags[len(lags)-1]
	}
	return w
}

// loadClient is one running watch of the load step.
type loadClient struct {
	cmd     *exec.Cmd
	rr      *runnerRun
	pid     int
	mu      sync.Mutex
	events  []loadEvent
	last    time.Time
	err     error // the first unreadable line
	synced  chan struct{}
	stderr  []string
	outDone chan struct{}
	errDone chan struct{}

	// stderrAt is when each line of stderr arrived (the soak step's
	// outage accounting reads it).
	stderrAt []time.Time
}

// startLoadClient starts kubectl informer watch pods -A -o json with the
// cache's environment and waits for its synced line.
// startLoadClients starts n watches through the warm cache of env, one
// after the other, and checks that the cache runs them all. It returns the
// watches started (to be killed with killLoadClients, also on error), how
// long the first took to sync, and the cache's status with them running.
func (b *bench) startLoadClients(ctx context.Context, env []string, n int) ([]*loadClient, time.Duration, cacheStatusJSON, error) {
	var clients []*loadClient
	var sync time.Duration
	for i := range n {
		began := time.Now()
		c, err := b.startLoadClient(ctx, env)
		if err != nil {
			return clients, 0, cacheStatusJSON{}, err
		}
		clients = append(clients, c)
		if i == 0 {
			sync = time.Since(began)
		}
	}
	st, err := b.cacheStatus(ctx, env)
	if err != nil {
		return clients, 0, cacheStatusJSON{}, err
	}
	if st.Active != n {
		return clients, 0, cacheStatusJSON{}, fmt.Errorf("the cache runs %d commands, want the %d watches: a watch ran without it", st.Active, n)
	}
	return clients, sync, st, nil
}

// killLoadClients kills the watches startLoadClients started.
func killLoadClients(clients []*loadClient) {
	for _, c := range clients {
		c.kill()
	}
}

func (b *bench) startLoadClient(ctx context.Context, env []string) (*loadClient, error) {
	cmd := b.runnerCmd(ctx, []string{"kubectl", "informer", "watch", "pods", "-A", "-o", "json"})
	cmd.Env = append(b.cmdEnv(), env...)
	run, err := startPiped(cmd, "a watch")
	if err != nil {
		return nil, err
	}
	stdout, stderr := run.stdout, run.stderr
	c := &loadClient{cmd: cmd, rr: run.rr, pid: run.pid, synced: make(chan struct{}), outDone: make(chan struct{}), errDone: make(chan struct{})}
	go func() {
		defer close(c.outDone)
		r := bufio.NewReaderSize(stdout, 1<<20)
		for {
			data, err := r.ReadBytes('\n')
			now := time.Now()
			if len(data) > 0 {
				ev, perr := parseLoadEvent(now, data)
				c.mu.Lock()
				if perr == nil {
					c.events = append(c.events, ev)
				} else if c.err == nil {
					c.err = perr
				}
				c.last = now
				c.mu.Unlock()
			}
			if err != nil {
				return
			}
		}
	}()
	go func() {
		defer close(c.errDone)
		sc := bufio.NewScanner(stderr)
		once := sync.Once{}
		for sc.Scan() {
			if strings.Contains(sc.Text(), "watching for changes") {
				once.Do(func() { close(c.synced) })
				continue
			}
			c.mu.Lock()
			c.stderr = append(c.stderr, sc.Text())
			c.stderrAt = append(c.stderrAt, time.Now())
			c.mu.Unlock()
		}
	}()
	select {
	case <-c.synced:
		return c, nil
	case <-c.errDone:
		c.kill()
		return nil, fmt.Errorf("a watch ended before it synced: %s", strings.Join(c.stderr, "\n"))
	case <-time.After(5 * time.Minute):
		c.kill()
		return nil, errors.New("a watch did not sync in 5 minutes")
	}
}

// quietFor is how long the watch has printed nothing.
func (c *loadClient) quietFor() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Since(c.last)
}

// stop ends the watch with SIGTERM and returns its events and the
// runner's report.
func (c *loadClient) stop() ([]loadEvent, runnerReport, error) {
	_ = syscall.Kill(c.pid, syscall.SIGTERM)
	<-c.outDone
	<-c.errDone
	waitErr := c.cmd.Wait()
	rep := <-c.rr.done
	if waitErr == nil {
		waitErr = rep.err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if waitErr != nil {
		return nil, rep, fmt.Errorf("watch: %w\n%s", waitErr, strings.Join(c.stderr, "\n"))
	}
	return c.events, rep, c.err
}

func (c *loadClient) kill() {
	_ = syscall.Kill(c.pid, syscall.SIGKILL)
	_ = c.cmd.Wait()
}

// load is the load step: BENCH_LOAD_CLIENTS watches of every pod through
// one warm cache, the floor and reference watches beside them, while
// churn changes the pods at BENCH_LOAD_RATE for BENCH_LOAD_DURATION.
func (b *bench) load(ctx context.Context) error {
	if n := b.scalePods[len(b.scalePods)-1]; n > b.pods {
		if err := b.seedPods(ctx, n); err != nil {
			return err
		}
	}
	l := &loadResult{pods: b.pods, clients: b.loadClients, rate: b.loadRate, duration: b.loadDuration, load1: loadavg1()}
	b.logf("load: %d watches of %d pods through one warm cache, churn at %d/s for %s (load %.2f)", l.clients, l.pods, l.rate, l.duration, l.load1)
	env, stop, err := b.startWarmCache(ctx, "load-xdg")
	if err != nil {
		return err
	}
	defer stop()
	empty, err := b.cacheStatus(ctx, env)
	if err != nil {
		return err
	}
	l.rssEmpty = empty.RSSBytes
	clients, sync, st, err := b.startLoadClients(ctx, env, l.clients)
	defer killLoadClients(clients)
	if err != nil {
		return fmt.Errorf("load: %w", err)
	}
	l.sync = sync
	cachePid := st.Pid
	l.rssBefore, l.objects = st.RSSBytes, st.objects()
	raw, err := b.startRawWatch(ctx, "")
	if err != nil {
		return err
	}
	floor, err := b.startFloorWatch(ctx, "")
	if err != nil {
		return err
	}
	defer floor.kill()
	cpu0 := map[int]time.Duration{}
	for _, pid := range append([]int{cachePid, floor.cmd.Process.Pid}, pids(clients)...) {
		if cpu0[pid], err = procCPU(pid); err != nil {
			return err
		}
	}
	peak := pollRSS(cachePid)
	stamp := filepath.Join(b.workDir, "load-stamps.txt")
	began := time.Now()
	churnOut, err := b.tool(ctx, "hack/seed", "churn", "--rate", strconv.Itoa(l.rate),
		"--duration", l.duration.String(), "--stamp", stamp)
	if err != nil {
		peak()
		return err
	}
	l.churnLine = strings.TrimSpace(churnOut)
	if m := regexp.MustCompile(`\(([0-9.]+)/s`).FindStringSubmatch(churnOut); m != nil {
		l.achieved, _ = strconv.ParseFloat(m[1], 64)
	}
	// Every watch has caught up once all have been quiet for a second.
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		quiet := true
		for _, c := range clients {
			quiet = quiet && c.quietFor() > time.Second
		}
		if quiet {
			break
		}
	}
	l.wall = time.Since(began)
	l.rssPeak = peak()
	cpu1 := map[int]time.Duration{}
	for _, pid := range append([]int{cachePid, floor.cmd.Process.Pid}, pids(clients)...) {
		if cpu1[pid], err = procCPU(pid); err != nil {
			return err
		}
	}
	l.cacheCPU = cpu1[cachePid] - cpu0[cachePid]
	l.floorCPU = cpu1[floor.cmd.Process.Pid] - cpu0[floor.cmd.Process.Pid]
	if l.floorEvents, err = floor.stop(); err != nil {
		return err
	}
	rawArrived := raw.stop()
	if st, err := b.cacheStatus(ctx, env); err == nil {
		l.rssAfter = st.RSSBytes
	}
	if l.stamps, err = readChurnStamps(stamp); err != nil {
		return err
	}
	var rawLags []time.Duration
	for rv, c := range l.stamps.changes {
		if at, ok := rawArrived[strconv.FormatUint(rv, 10)]; ok {
			rawLags = append(rawLags, at.Sub(c.at))
		}
	}
	sortDurations(rawLags)
	l.rawMatched = len(rawLags)
	l.rawP50, l.rawP99 = percentile(rawLags, 0.50), percentile(rawLags, 0.99)
	for len(clients) > 0 {
		c := clients[0]
		clients = clients[1:]
		events, rep, err := c.stop()
		if err != nil {
			return err
		}
		w := checkLoadEvents(events, l.stamps)
		w.cpu, w.rssKiB, w.warnings = cpu1[c.pid]-cpu0[c.pid], rep.maxrssKiB, c.stderr
		l.watches = append(l.watches, w)
		b.logf("load: a watch printed %d events: %d matched, %d lost, %d reordered, lag p99 %s", w.events, w.matched, w.lost(), w.reordered, w.p99)
	}
	b.rep.load = l
	return nil
}

func pids(clients []*loadClient) []int {
	out := make([]int, len(clients))
	for i, c := range clients {
		out[i] = c.pid
	}
	return out
}

// pollRSS reads the process's RSS every second until the returned func is
// called, which returns the highest seen, in bytes.
func pollRSS(pid int) func() int64 {
	done := make(chan struct{})
	result := make(chan int64, 1)
	go func() {
		var peak int64
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			if kib, ok := vmRSSKiB(pid); ok {
				peak = max(peak, kib*1024)
			}
			select {
			case <-done:
				result <- peak
				return
			case <-t.C:
			}
		}
	}()
	return func() int64 {
		close(done)
		return <-result
	}
}

// vmRSSKiB is VmRSS from /proc/PID/status.
func vmRSSKiB(pid int) (int64, bool) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, false
	}
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			f := strings.Fields(v)
			if len(f) > 0 {
				n, err := strconv.ParseInt(f[0], 10, 64)
				return n, err == nil
			}
		}
	}
	return 0, false
}
