package framework

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// PipedProcess is a command started by StartPiped. Unlike a Process, whose
// standard output the framework reads as fast as it comes, nobody reads a
// PipedProcess's standard output but the test: Stdout is the read end of a
// pipe, and once the pipe's buffer (64 KiB on Linux) is full the command's
// writes block until the test reads. Tests use it to play a slow consumer.
type PipedProcess struct {
	// Stdout is the read end of the command's standard output. The test
	// reads it at its own pace; it is closed when the test ends.
	Stdout *os.File

	cmd    *exec.Cmd
	cancel context.CancelFunc
	began  time.Time

	mu     sync.Mutex
	stderr bytes.Buffer

	done   chan struct{} // closed when the process has exited
	result Result
}

// StartPiped starts c like Start, with the same environment, but hands its
// standard output to the test unread. The process is killed, if still
// running, when the test ends.
func StartPiped(t testing.TB, c Cmd) *PipedProcess {
	t.Helper()
	ctx, cancel := context.Background(), context.CancelFunc(func() {})
	if c.Timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, c.Timeout)
	}
	r, w, err := os.Pipe()
	if err != nil {
		cancel()
		t.Fatalf("creating a pipe: %v", err)
	}
	p := &PipedProcess{Stdout: r, cancel: cancel, done: make(chan struct{})}
	p.cmd = command(t, ctx, c)
	// An *os.File is handed to the child as is: no goroutine copies it, so
	// the child's writes block when the pipe is full.
	p.cmd.Stdout = w
	p.cmd.Stderr = lockedWriter{mu: &p.mu, w: &p.stderr}
	p.began = time.Now()
	err = p.cmd.Start()
	w.Close() // the child has its own copy
	if err != nil {
		r.Close()
		cancel()
		t.Fatalf("starting %s: %v", p.cmd, err)
	}
	go p.wait(ctx)
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil && !errors.Is(err, os.ErrProcessDone) {
				t.Logf("killing %s: %v", p.cmd, err)
			}
			<-p.done
		}
		r.Close()
		cancel()
	})
	return p
}

func (p *PipedProcess) wait(ctx context.Context) {
	err := p.cmd.Wait()
	p.mu.Lock()
	p.result = Result{
		Stderr:   p.stderr.String(),
		Duration: time.Since(p.began),
		TimedOut: errors.Is(ctx.Err(), context.DeadlineExceeded),
	}
	p.mu.Unlock()
	p.result.ExitCode, _ = waitStatus(p.cmd, err)
	close(p.done)
}

// Pid is the process id. kubectl execs a plugin in its own process, so
// after kubectl has found the plugin this is the plugin's pid.
func (p *PipedProcess) Pid() int { return p.cmd.Process.Pid }

// Stderr returns the standard error so far.
func (p *PipedProcess) Stderr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

// Interrupt sends SIGINT, as Ctrl-C in a terminal would.
func (p *PipedProcess) Interrupt() error {
	select {
	case <-p.done:
		return nil
	default:
	}
	if err := p.cmd.Process.Signal(os.Interrupt); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("signalling %s: %w", p.cmd, err)
	}
	return nil
}

// Done is closed when the process has exited.
func (p *PipedProcess) Done() <-chan struct{} { return p.done }

// Wait waits for the process to exit and returns how it ended. The
// result's Stdout is empty: standard output went to the test.
func (p *PipedProcess) Wait() Result {
	<-p.done
	p.cancel()
	return p.result
}

// ProcStatus returns the fields of /proc/PID/status that are sizes in kB
// (VmHWM, VmRSS, RssAnon, RssFile, ...) in bytes. It fails if the process
// has ended, since the kernel then no longer reports its memory.
func ProcStatus(pid int) (map[string]int64, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return nil, fmt.Errorf("reading the status of process %d: %w", pid, err)
	}
	fields := map[string]int64{}
	for _, line := range strings.Split(string(data), "\n") {
		key, value, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		number, found := strings.CutSuffix(strings.TrimSpace(value), " kB")
		if !found {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(number), 10, 64)
		if err != nil {
			continue
		}
		fields[key] = n << 10
	}
	if _, ok := fields["VmHWM"]; !ok {
		// A zombie has a status file without memory fields.
		return nil, fmt.Errorf("process %d reports no memory (it has exited)", pid)
	}
	return fields, nil
}
