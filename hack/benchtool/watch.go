package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// watchOutputs are the -o values each churn rate is measured with: json,
// whose lines carry the resourceVersion the lag is matched by, and text
// with its default compact diff, the case of the CPU target.
var watchOutputs = []string{"json", "text"}

// watchResult is one watch run under churn at one rate.
type watchResult struct {
	output    string // -o
	rate      int
	achieved  float64 // updates per second churn reported
	churnLine string
	updates   int // stamp lines with a resourceVersion
	events    int // lines the watch printed
	eventRate float64
	watchCPU  time.Duration // between sync and the end of the churn, from /proc
	totalCPU  time.Duration // the whole process, from rusage
	rssKiB    int64
	matched   int // events whose resourceVersion was in the stamps
	p50, p99  time.Duration
	maxLag    time.Duration
	negative  int // events read before churn had its response
	// The reference metadata watch in the harness: its lag, and the
	// plugin's arrival minus its arrival for the same resourceVersion.
	rawMatched         int
	rawP50, rawP99     time.Duration
	addedP50, addedP99 time.Duration
	addedMax           time.Duration
	load1              float64
	warnings           []string // stderr lines other than the sync line
	unmatchedBy        map[string]int
	// The floor: hack/benchtool/floor watch of the same pods during the
	// same churn, its events and its CPU over the same span.
	floorEvents int
	floorCPU    time.Duration
}

func (w watchResult) cpuPerEvent() time.Duration {
	if w.events == 0 {
		return 0
	}
	return w.watchCPU / time.Duration(w.events)
}

func (w watchResult) floorCPUPerEvent() time.Duration {
	if w.floorEvents == 0 {
		return 0
	}
	return w.floorCPU / time.Duration(w.floorEvents)
}

type line struct {
	at   time.Time
	data []byte
}

// watch runs kubectl informer watch pods -n NS -o OUTPUT while hack/seed
// churn updates pods in NS at rate, and times every printed line as it
// arrives on the pipe; the floor watch (hack/benchtool/floor) watches the
// same pods at the same time. With profile set, the plugin runs in-process
// under benchtool profile instead of through kubectl.
func (b *bench) watch(ctx context.Context, rate int, output string, profile []string) (watchResult, error) {
	w := watchResult{output: output, rate: rate, load1: loadavg1()}
	b.logf("watch -o %s at %d updates/s for %s (load %.2f)", output, rate, b.watchDuration, w.load1)
	args := []string{"informer", "watch", "pods", "-n", b.watchNS, "-o", output}
	argv := append([]string{"kubectl"}, args...)
	if profile != nil {
		argv = append(append([]string{b.self, "profile"}, profile...), append(args[1:], "--kubeconfig", b.kubeconfig)...)
	}
	ctx, cancel := context.WithTimeout(ctx, b.watchDuration+3*time.Minute)
	defer cancel()
	cmd := b.runnerCmd(ctx, argv)
	cmd.Env = b.cmdEnv()
	run, err := startPiped(cmd, "the watch")
	if err != nil {
		return w, err
	}
	rr, pid, stdout, stderr := run.rr, run.pid, run.stdout, run.stderr
	finished := false
	defer func() {
		if !finished {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}()

	var mu sync.Mutex
	var lines []line
	last := time.Now()
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		r := bufio.NewReaderSize(stdout, 1<<20)
		for {
			data, err := r.ReadBytes('\n')
			now := time.Now()
			if len(data) > 0 {
				mu.Lock()
				lines = append(lines, line{at: now, data: data})
				last = now
				mu.Unlock()
			}
			if err != nil {
				return
			}
		}
	}()
	synced := make(chan struct{})
	var warnings []string
	errDone := make(chan struct{})
	go func() {
		defer close(errDone)
		sc := bufio.NewScanner(stderr)
		once := sync.Once{}
		for sc.Scan() {
			l := sc.Text()
			if strings.Contains(l, "watching for changes") {
				once.Do(func() { close(synced) })
				continue
			}
			mu.Lock()
			warnings = append(warnings, l)
			mu.Unlock()
		}
	}()
	select {
	case <-synced:
	case <-errDone:
		return w, fmt.Errorf("watch ended before it synced: %s", strings.Join(warnings, "\n"))
	case <-time.After(2 * time.Minute):
		return w, errors.New("watch did not sync in 2 minutes")
	}
	raw, err := b.startRawWatch(ctx, b.watchNS)
	if err != nil {
		return w, err
	}
	floor, err := b.startFloorWatch(ctx, b.watchNS)
	if err != nil {
		return w, err
	}
	defer floor.kill()
	cpu0, err := procCPU(pid)
	if err != nil {
		return w, err
	}
	floorCPU0, err := procCPU(floor.cmd.Process.Pid)
	if err != nil {
		return w, err
	}
	stamp := filepath.Join(b.workDir, fmt.Sprintf("stamps-%d.txt", rate))
	churnOut, err := b.tool(ctx, "hack/seed", "churn", "--rate", strconv.Itoa(rate),
		"--duration", b.watchDuration.String(), "--namespace", b.watchNS, "--stamp", stamp)
	if err != nil {
		return w, err
	}
	w.churnLine = strings.TrimSpace(churnOut)
	if m := regexp.MustCompile(`\(([0-9.]+)/s`).FindStringSubmatch(churnOut); m != nil {
		w.achieved, _ = strconv.ParseFloat(m[1], 64)
	}
	// Wait until the printer has been quiet for a second: it has caught up.
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		mu.Lock()
		quiet := time.Since(last)
		mu.Unlock()
		if quiet > time.Second {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	cpu1, err := procCPU(pid)
	if err != nil {
		return w, err
	}
	w.watchCPU = cpu1 - cpu0
	floorCPU1, err := procCPU(floor.cmd.Process.Pid)
	if err != nil {
		return w, err
	}
	w.floorCPU = floorCPU1 - floorCPU0
	if w.floorEvents, err = floor.stop(); err != nil {
		return w, err
	}
	rawArrived := raw.stop()
	_ = syscall.Kill(pid, syscall.SIGTERM)
	<-readDone
	<-errDone
	waitErr := cmd.Wait()
	finished = true
	rep := <-rr.done
	if waitErr == nil {
		waitErr = rep.err
	}
	if waitErr != nil {
		return w, fmt.Errorf("watch: %w\n%s", waitErr, strings.Join(warnings, "\n"))
	}
	w.rssKiB = rep.maxrssKiB
	w.totalCPU = rep.user + rep.sys
	w.warnings = warnings
	if output == "json" {
		if err := w.lags(lines, stamp, rawArrived); err != nil {
			return w, err
		}
	} else {
		w.countTextEvents(lines, stamp)
	}
	b.logf("watch -o %s at %d/s: %d events, %.0f µs CPU/event (floor %d events, %.0f µs), lag p50 %s p99 %s", output, rate, w.events,
		float64(w.cpuPerEvent().Nanoseconds())/1e3, w.floorEvents, float64(w.floorCPUPerEvent().Nanoseconds())/1e3, w.p50, w.p99)
	return w, nil
}

// countTextEvents counts the events of text output: each starts with an
// unindented line (the diff lines under it are indented).
func (w *watchResult) countTextEvents(lines []line, stampFile string) {
	if stamps, err := readStamps(stampFile); err == nil {
		w.updates = len(stamps)
	}
	var first, last time.Time
	for _, l := range lines {
		if len(l.data) == 0 || l.data[0] == ' ' {
			continue
		}
		if w.events == 0 {
			first = l.at
		}
		last = l.at
		w.events++
	}
	if w.events > 1 && last.After(first) {
		w.eventRate = float64(w.events-1) / last.Sub(first).Seconds()
	}
}

// floorWatch is a running hack/benchtool/floor watch.
type floorWatch struct {
	cmd    *exec.Cmd
	lines  chan int // the count of lines, once stdout ends
	waited bool
}

// startFloorWatch starts floor watch of the namespace's pods (every
// namespace's for "") and waits until its watch is open.
func (b *bench) startFloorWatch(ctx context.Context, namespace string) (*floorWatch, error) {
	scope := []string{"--namespace", namespace}
	if namespace == "" {
		scope = []string{"--all-namespaces"}
	}
	cmd := exec.CommandContext(ctx, b.floor, append([]string{"watch", "--kubeconfig", b.kubeconfig}, scope...)...)
	cmd.Env = b.cmdEnv()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	f := &floorWatch{cmd: cmd, lines: make(chan int, 1)}
	go func() {
		n := 0
		r := bufio.NewReaderSize(stdout, 1<<20)
		for {
			if _, err := r.ReadBytes('\n'); err != nil {
				f.lines <- n
				return
			}
			n++
		}
	}()
	opened := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		var text []string
		for sc.Scan() {
			if sc.Text() == "watching" {
				opened <- nil
				_, _ = io.Copy(io.Discard, stderr)
				return
			}
			text = append(text, sc.Text())
		}
		opened <- fmt.Errorf("the floor watch ended before it opened: %s", strings.Join(text, "\n"))
	}()
	select {
	case err = <-opened:
	case <-time.After(time.Minute):
		err = errors.New("the floor watch did not open in a minute")
	}
	if err != nil {
		f.kill()
		return nil, err
	}
	return f, nil
}

// stop ends the floor watch and returns how many events it printed.
func (f *floorWatch) stop() (int, error) {
	_ = f.cmd.Process.Signal(syscall.SIGTERM)
	n := <-f.lines
	err := f.cmd.Wait()
	f.waited = true
	if err != nil {
		return n, fmt.Errorf("floor watch: %w", err)
	}
	return n, nil
}

func (f *floorWatch) kill() {
	if !f.waited {
		_ = f.cmd.Process.Kill()
		_ = f.cmd.Wait()
		f.waited = true
	}
}

// lags matches each printed event to the stamp churn wrote when the
// apiserver answered the change, by resourceVersion. Deletes print the
// last state seen, whose resourceVersion belongs to an earlier change, so
// only ADDED and MODIFIED are matched.
func (w *watchResult) lags(lines []line, stampFile string, rawArrived map[string]time.Time) error {
	stamps, err := readStamps(stampFile)
	if err != nil {
		return err
	}
	w.updates = len(stamps)
	w.events = len(lines)
	if len(lines) > 1 {
		if span := lines[len(lines)-1].at.Sub(lines[0].at); span > 0 {
			w.eventRate = float64(len(lines)-1) / span.Seconds()
		}
	}
	w.unmatchedBy = map[string]int{}
	var lags, added []time.Duration
	for _, l := range lines {
		var ev struct {
			Type   string `json:"type"`
			Object struct {
				Metadata struct {
					ResourceVersion string `json:"resourceVersion"`
				} `json:"metadata"`
			} `json:"object"`
		}
		if err := json.Unmarshal(l.data, &ev); err != nil {
			return fmt.Errorf("a watch line is not JSON: %w: %.200s", err, l.data)
		}
		at, ok := stamps[ev.Object.Metadata.ResourceVersion]
		if ev.Type == "DELETED" || !ok {
			w.unmatchedBy[ev.Type]++
			continue
		}
		lag := l.at.Sub(at)
		if lag < 0 {
			w.negative++
		}
		lags = append(lags, lag)
		if r, ok := rawArrived[ev.Object.Metadata.ResourceVersion]; ok {
			added = append(added, l.at.Sub(r))
		}
	}
	var rawLags []time.Duration
	for rv, at := range stamps {
		if r, ok := rawArrived[rv]; ok {
			rawLags = append(rawLags, r.Sub(at))
		}
	}
	sortDurations(rawLags)
	sortDurations(added)
	w.rawMatched = len(rawLags)
	w.rawP50, w.rawP99 = percentile(rawLags, 0.50), percentile(rawLags, 0.99)
	w.addedP50, w.addedP99 = percentile(added, 0.50), percentile(added, 0.99)
	if len(added) > 0 {
		w.addedMax = added[len(added)-1]
	}
	sort.Slice(lags, func(i, j int) bool { return lags[i] < lags[j] })
	w.matched = len(lags)
	w.p50, w.p99 = percentile(lags, 0.50), percentile(lags, 0.99)
	if len(lags) > 0 {
		w.maxLag = lags[len(lags)-1]
	}
	return nil
}

func sortDurations(d []time.Duration) {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
}

// readStamps reads churn's "<unix-nanos> <op> <ns>/<name> <rv>" lines.
func readStamps(path string) (map[string]time.Time, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	stamps := map[string]time.Time{}
	r := bufio.NewReader(f)
	for {
		l, err := r.ReadString('\n')
		if f := strings.Fields(l); len(f) == 4 && f[3] != "-" {
			ns, perr := strconv.ParseInt(f[0], 10, 64)
			if perr == nil {
				stamps[f[3]] = time.Unix(0, ns)
			}
		}
		if err == io.EOF {
			return stamps, nil
		}
		if err != nil {
			return nil, err
		}
	}
}
