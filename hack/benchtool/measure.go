package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// sample is one run of one command, as wait4 saw it.
type sample struct {
	wall   time.Duration
	cpu    time.Duration // user + system
	rssKiB int64         // ru_maxrss: the peak resident set, in KiB
	load1  float64       // 1-minute load average when the run began
	stdout string
	stderr string
}

// benchCase is one command to measure.
type benchCase struct {
	id    string
	title string
	argv  []string
	env   []string // added to the command environment
	// check inspects the output of a successful run; a non-nil error is
	// reported next to the result, and does not stop the benchmark.
	check func(stdout string) error
}

// result is every sample of one case and their medians.
type result struct {
	c       benchCase
	samples []sample
	warn    string // the first failed check
	// From one more run with /proc/PID/status polled every 2ms: the peak
	// anonymous (heap, stacks) and file-backed (the binary's own pages)
	// resident memory, in KiB. ru_maxrss counts both.
	anonKiB, fileKiB int64
}

func (r *result) median(f func(sample) float64) float64 {
	var v []float64
	for _, s := range r.samples {
		v = append(v, f(s))
	}
	return median(v)
}

func (r *result) wall() float64 { return r.median(func(s sample) float64 { return s.wall.Seconds() }) }
func (r *result) cpu() float64  { return r.median(func(s sample) float64 { return s.cpu.Seconds() }) }
func (r *result) rss() float64 {
	return r.median(func(s sample) float64 { return float64(s.rssKiB) / 1024 })
}
func (r *result) load() float64 { return r.median(func(s sample) float64 { return s.load1 }) }

func (r *result) wallRange() (float64, float64) {
	lo, hi := 0.0, 0.0
	for i, s := range r.samples {
		w := s.wall.Seconds()
		if i == 0 || w < lo {
			lo = w
		}
		if i == 0 || w > hi {
			hi = w
		}
	}
	return lo, hi
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// percentile is the nearest-rank percentile of sorted values.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted))*p+0.999999) - 1
	i = max(0, min(i, len(sorted)-1))
	return sorted[i]
}

// measure runs argv once under the runner, with stdout and stderr going
// to files so nothing of ours copies pipes while the clock runs, and
// returns the wall time and rusage the runner reported.
func (b *bench) measure(ctx context.Context, c benchCase) (sample, error) {
	return b.measureWatching(ctx, c, nil)
}

// measureWatching is measure with poll, when not nil, called with the
// command's pid every 2ms while it runs.
func (b *bench) measureWatching(ctx context.Context, c benchCase, poll func(pid int)) (sample, error) {
	ctx, cancel := context.WithTimeout(ctx, b.cmdTimeout)
	defer cancel()
	outPath := filepath.Join(b.workDir, "stdout")
	errPath := filepath.Join(b.workDir, "stderr")
	outF, err := os.Create(outPath)
	if err != nil {
		return sample{}, err
	}
	defer outF.Close()
	errF, err := os.Create(errPath)
	if err != nil {
		return sample{}, err
	}
	defer errF.Close()

	cmd := b.runnerCmd(ctx, c.argv)
	cmd.Env = append(b.cmdEnv(), c.env...)
	cmd.Stdout = outF
	cmd.Stderr = errF
	s := sample{load1: loadavg1()}
	rr, err := startRunner(cmd)
	if err != nil {
		return s, err
	}
	if poll != nil {
		if pid, ok := <-rr.pid; ok {
			t := time.NewTicker(2 * time.Millisecond)
		polling:
			for {
				select {
				case <-rr.exited:
					break polling
				case <-t.C:
					poll(pid)
				}
			}
			t.Stop()
		}
	}
	runErr := cmd.Wait()
	rep := <-rr.done
	out, _ := os.ReadFile(outPath)
	errOut, _ := os.ReadFile(errPath)
	s.stdout, s.stderr = string(out), string(errOut)
	if runErr == nil && rep.err != nil {
		runErr = rep.err
	}
	if runErr != nil {
		return s, fmt.Errorf("%s: %w\nstderr: %s", strings.Join(c.argv, " "), runErr, tail(s.stderr, 2000))
	}
	s.wall, s.cpu, s.rssKiB = rep.wall, rep.user+rep.sys, rep.maxrssKiB
	return s, nil
}

// runnerCmd is argv under hack/benchtool/runner; SIGTERM on cancel, which
// the runner passes on.
func (b *bench) runnerCmd(ctx context.Context, argv []string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, b.runner, append([]string{"--"}, argv...)...)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	return cmd
}

// runnerReport is what the runner wrote on its fd 3.
type runnerReport struct {
	exit            int
	wall, user, sys time.Duration
	maxrssKiB       int64
	err             error
}

type runnerRun struct {
	pid    chan int          // the command's pid, then closed
	exited chan struct{}     // closed when the runner's report ends
	done   chan runnerReport // the final report
}

// startRunner starts cmd, a runnerCmd, with a pipe as its fd 3 and reads
// the report from it.
func startRunner(cmd *exec.Cmd) (*runnerRun, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.ExtraFiles = []*os.File{w}
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return nil, err
	}
	w.Close()
	rr := &runnerRun{pid: make(chan int, 1), exited: make(chan struct{}), done: make(chan runnerReport, 1)}
	go func() {
		defer r.Close()
		rep := runnerReport{err: errors.New("the runner wrote no report")}
		sc := bufio.NewScanner(r)
		sentPid := false
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			switch {
			case len(f) == 2 && f[0] == "pid":
				if pid, err := strconv.Atoi(f[1]); err == nil && !sentPid {
					rr.pid <- pid
					sentPid = true
				}
			case len(f) == 10 && f[0] == "exit":
				num := func(i int) int64 { n, _ := strconv.ParseInt(f[i], 10, 64); return n }
				exitCode := int(num(1))
				rep = runnerReport{exit: exitCode, wall: time.Duration(num(3)), user: time.Duration(num(5)),
					sys: time.Duration(num(7)), maxrssKiB: num(9)}
				if exitCode != 0 {
					rep.err = fmt.Errorf("exit code %d", exitCode)
				}
			}
		}
		close(rr.pid)
		close(rr.exited)
		rr.done <- rep
	}()
	return rr, nil
}

// pipedRun is a runnerCmd started with its stdout and stderr on pipes.
type pipedRun struct {
	cmd            *exec.Cmd
	rr             *runnerRun
	pid            int // the command's, not the runner's
	stdout, stderr io.ReadCloser
}

// startPiped starts cmd, a runnerCmd, with its stdout and stderr on pipes
// and waits for the command's pid; what names the command in errors.
func startPiped(cmd *exec.Cmd, what string) (*pipedRun, error) {
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	rr, err := startRunner(cmd)
	if err != nil {
		return nil, err
	}
	pid, ok := <-rr.pid
	if !ok {
		_ = cmd.Wait()
		return nil, fmt.Errorf("%s did not start: %v", what, (<-rr.done).err)
	}
	return &pipedRun{cmd: cmd, rr: rr, pid: pid, stdout: stdout, stderr: stderr}, nil
}

// loadavg1 is the 1-minute load average, or -1.
func loadavg1() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return -1
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return -1
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return -1
	}
	return v
}

// procCPU is a live process's user+system time from /proc/PID/stat, in
// clock ticks of 10ms (USER_HZ is 100 on Linux).
func procCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, fmt.Errorf("unexpected /proc/%d/stat: %q", pid, s)
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state); utime and stime are fields 14 and 15.
	if len(f) < 13 {
		return 0, fmt.Errorf("unexpected /proc/%d/stat: %q", pid, s)
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("unexpected /proc/%d/stat: %q", pid, s)
	}
	return time.Duration(ut+st) * 10 * time.Millisecond, nil
}

// procRSS reads the resident anonymous and file-backed memory of a live
// process, in KiB.
func procRSS(pid int) (anonKiB, fileKiB int64) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		v, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "RssAnon:":
			anonKiB = v
		case "RssFile:":
			fileKiB = v
		}
	}
	return anonKiB, fileKiB
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// countLines counts non-empty lines.
func countLines(s string) int {
	n := 0
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			n++
		}
	}
	return n
}

// expectLines is a check that stdout has exactly n non-empty lines.
func expectLines(n int) func(string) error {
	return func(out string) error {
		if got := countLines(out); got != n {
			return fmt.Errorf("expected %d lines of output, got %d", n, got)
		}
		return nil
	}
}

// expectRawList checks rawlist's "<bytes> bytes 200" line.
func expectRawList(out string) error {
	f := strings.Fields(out)
	if len(f) != 3 || f[2] != "200" {
		return fmt.Errorf("unexpected rawlist output %q", out)
	}
	return nil
}

// matching counts i in [0, n) with i%mod == rem: how many seeded objects
// have a given image, app or color.
func matching(n, mod, rem int) int {
	if n <= rem {
		return 0
	}
	return (n-1-rem)/mod + 1
}
