package framework

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Process is a long-running command, such as a watch, started by Start or
// StartPiped. Start reads its standard output line by line as it comes, so
// nothing is lost if the test reads late (NextLine, WaitForLine, Stdout).
// StartPiped leaves standard output unread in StdoutPipe, for tests that
// play a slow consumer.
type Process struct {
	// StdoutPipe is, for a process started by StartPiped, the read end of
	// its standard output: once the pipe's buffer (64 KiB on Linux) is
	// full the command's writes block until the test reads. It is closed
	// when the test ends. It is nil for a process started by Start.
	StdoutPipe *os.File

	cmd    *exec.Cmd
	cancel context.CancelFunc
	began  time.Time

	mu      sync.Mutex
	lines   []string
	next    int           // index of the next line NextLine returns
	newLine chan struct{} // closed and replaced when a line arrives or output ends
	eof     bool
	stdout  strings.Builder
	stderr  bytes.Buffer

	done   chan struct{} // closed when the process has exited and its output is read
	result Result
}

// Start starts c and returns at once; the framework reads its standard
// output. The process is killed, if still running, when the test ends.
func Start(t testing.TB, c Cmd) *Process {
	t.Helper()
	return start(t, c, false)
}

// StartPiped starts c like Start, with the same environment, but hands its
// standard output to the test unread, in StdoutPipe. The result's Stdout is
// then empty.
func StartPiped(t testing.TB, c Cmd) *Process {
	t.Helper()
	return start(t, c, true)
}

func start(t testing.TB, c Cmd, piped bool) *Process {
	t.Helper()
	ctx, cancel := context.Background(), context.CancelFunc(func() {})
	if c.Timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, c.Timeout)
	}
	p := &Process{cancel: cancel, newLine: make(chan struct{}), done: make(chan struct{})}
	p.cmd = command(t, ctx, c)
	p.cmd.Stderr = lockedWriter{mu: &p.mu, w: &p.stderr}
	var stdout io.Reader
	var childEnd *os.File
	if piped {
		r, w, err := os.Pipe()
		if err != nil {
			cancel()
			t.Fatalf("creating a pipe: %v", err)
		}
		// An *os.File is handed to the child as is: no goroutine copies
		// it, so the child's writes block when the pipe is full.
		p.StdoutPipe, childEnd, p.cmd.Stdout = r, w, w
	} else {
		var err error
		if stdout, err = p.cmd.StdoutPipe(); err != nil {
			cancel()
			t.Fatalf("starting %s: %v", p.cmd, err)
		}
	}
	p.began = time.Now()
	err := p.cmd.Start()
	if childEnd != nil {
		childEnd.Close() // the child has its own copy
	}
	if err != nil {
		if p.StdoutPipe != nil {
			p.StdoutPipe.Close()
		}
		cancel()
		t.Fatalf("starting %s: %v", p.cmd, err)
	}
	go p.read(ctx, stdout)
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			if err := p.Kill(); err != nil {
				t.Logf("killing %s: %v", p.cmd, err)
			}
			<-p.done
		}
		if p.StdoutPipe != nil {
			p.StdoutPipe.Close()
		}
		cancel()
	})
	return p
}

// read collects stdout lines until EOF (if stdout is not nil), then waits
// for the process.
func (p *Process) read(ctx context.Context, stdout io.Reader) {
	if stdout != nil {
		r := bufio.NewReader(stdout)
		for {
			line, err := r.ReadString('\n')
			if line != "" {
				p.mu.Lock()
				p.stdout.WriteString(line)
				p.lines = append(p.lines, strings.TrimRight(line, "\r\n"))
				close(p.newLine)
				p.newLine = make(chan struct{})
				p.mu.Unlock()
			}
			if err != nil {
				break
			}
		}
	}
	err := p.cmd.Wait()
	p.mu.Lock()
	p.eof = true
	close(p.newLine)
	p.newLine = make(chan struct{})
	p.result = Result{
		Stdout:   p.stdout.String(),
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
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// NextLine returns the next line of standard output (without the newline),
// waiting up to timeout for it. It returns io.EOF once the output has ended
// and every line was returned.
func (p *Process) NextLine(timeout time.Duration) (string, error) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		p.mu.Lock()
		if p.next < len(p.lines) {
			line := p.lines[p.next]
			p.next++
			p.mu.Unlock()
			return line, nil
		}
		if p.eof {
			p.mu.Unlock()
			return "", io.EOF
		}
		wait := p.newLine
		p.mu.Unlock()
		select {
		case <-wait:
		case <-timer.C:
			return "", fmt.Errorf("no line of output within %s; stderr so far:\n%s", timeout, p.Stderr())
		}
	}
}

// WaitForLine reads lines until one satisfies match and returns it, waiting
// up to timeout in all. Lines read on the way are consumed.
func (p *Process) WaitForLine(timeout time.Duration, match func(line string) bool) (string, error) {
	deadline := time.Now().Add(timeout)
	for {
		line, err := p.NextLine(time.Until(deadline))
		if err != nil {
			return "", fmt.Errorf("waiting for a matching line: %w; stdout so far:\n%s", err, p.Stdout())
		}
		if match(line) {
			return line, nil
		}
	}
}

// Stdout returns all standard output so far, whether read by NextLine or
// not.
func (p *Process) Stdout() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stdout.String()
}

// Stderr returns the standard error so far.
func (p *Process) Stderr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

// Interrupt sends SIGINT, as Ctrl-C in a terminal would. (kubectl execs
// plugins, so the plugin gets it directly.)
func (p *Process) Interrupt() error {
	return p.signal(os.Interrupt)
}

// Kill sends SIGKILL.
func (p *Process) Kill() error {
	return p.signal(syscall.SIGKILL)
}

func (p *Process) signal(sig os.Signal) error {
	select {
	case <-p.done:
		return nil
	default:
	}
	if err := p.cmd.Process.Signal(sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("signalling %s: %w", p.cmd, err)
	}
	return nil
}

// Done is closed when the process has exited and its output is read.
func (p *Process) Done() <-chan struct{} { return p.done }

// Wait waits for the process to exit and returns how it ended; Stdout has
// all of standard output, including lines already read with NextLine.
func (p *Process) Wait() Result {
	<-p.done
	p.cancel()
	return p.result
}

// lockedWriter serialises writes with the Process's other state.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// watchLimit bounds a watch StartWatch starts.
const watchLimit = 10 * time.Minute

// StartWatch starts `kubectl informer watch ARGS` and waits, up to a minute,
// until its caches have synced (it says "; watching for changes" on stderr),
// failing the test if the watch exits first. The watch is killed, if still
// running, when the test ends, and in any case after ten minutes.
func StartWatch(t testing.TB, args ...string) *Process {
	t.Helper()
	p := Start(t, Cmd{Args: append([]string{"informer", "watch"}, args...), Timeout: watchLimit})
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(p.Stderr(), "; watching for changes") {
		select {
		case <-p.Done():
			t.Fatalf("watch exited before it was watching: %s", p.Wait())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("the watch did not sync within a minute; stderr:\n%s", p.Stderr())
		}
	}
	return p
}
