package fleet

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/kubectl-informer/kubectl-informer/pkg/terminal"
	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// progressLine is a line of a fleet command's progress: a context and its
// state.
var progressLine = regexp.MustCompile(`^(fleet-\d+|silent): (resolving|listing \d+|reading|synced|watching|ended|failed|no root here)$`)

// stderrOnPTY runs kubectl informer with args and kubeconfig, its stderr on
// a pseudo-terminal and its stdout in a buffer, until it exits or timeout.
// ready, if set, is called with the screen's lines as they change while the
// command runs, and returns whether it saw what it waits for.
type ptyRun struct {
	stdout   string
	raw      string   // everything written on the terminal
	screen   []string // what the terminal shows at the end
	exitCode int
	// readyWhileRunning is set when ready held while the command ran.
	readyWhileRunning bool
}

func stderrOnPTY(t *testing.T, kubeconfig string, timeout time.Duration, ready func([]string) bool, args ...string) ptyRun {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatalf("opening a pty: %v", err)
	}
	defer ptmx.Close()
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 60, Cols: 160}); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("kubectl", append(append([]string{"informer"}, args...), "--kubeconfig", kubeconfig)...)
	cmd.Env = append(os.Environ(),
		"HOME="+t.TempDir(),
		"PATH="+filepath.Dir(framework.PluginBinary())+string(os.PathListSeparator)+os.Getenv("PATH"),
		"KUBECONFIG=",
		"TERM=xterm",
	)
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, tty
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting kubectl informer %s: %v", strings.Join(args, " "), err)
	}
	tty.Close()

	var (
		mu     sync.Mutex
		raw    bytes.Buffer
		screen = terminal.NewScreen(60, 160)
		run    ptyRun
	)
	exited := make(chan struct{})
	read := make(chan struct{})
	go func() {
		defer close(read)
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			mu.Lock()
			raw.Write(buf[:n])
			screen.Write(buf[:n])
			if ready != nil && !run.readyWhileRunning {
				select {
				case <-exited:
				default:
					run.readyWhileRunning = ready(screen.Lines())
				}
			}
			mu.Unlock()
			if err != nil {
				return // EIO once the command has exited
			}
		}
	}()
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case <-waited:
	case <-time.After(timeout):
		_ = cmd.Process.Kill()
		<-waited
		t.Fatalf("kubectl informer %s did not end within %s", strings.Join(args, " "), timeout)
	}
	mu.Lock()
	close(exited)
	mu.Unlock()
	<-read
	mu.Lock()
	defer mu.Unlock()
	run.stdout, run.raw, run.screen, run.exitCode = stdout.String(), raw.String(), screen.Lines(), cmd.ProcessState.ExitCode()
	return run
}

// progressShown returns the progress lines of lines.
func progressShown(lines []string) []string {
	var shown []string
	for _, l := range lines {
		if progressLine.MatchString(l) {
			shown = append(shown, l)
		}
	}
	return shown
}

// TestFleetProgressOnTerminal runs each fleet command over two contexts and
// a silent one (which makes it wait --sync-timeout): with stderr on a
// terminal, each context's state is drawn there, the silent context's
// failure among them, and none is left on the screen at the end (a watch's
// progress is gone while it still runs, once every context is watching or
// has failed); with stderr not a terminal, no state is written.
func TestFleetProgressOnTerminal(t *testing.T) {
	seed(t)
	f := framework.CurrentFleet(t)
	kubeconfig := withSilentContext(t)
	a, b := f.Contexts[0], f.Contexts[1]
	contexts := a + "," + b + ",silent"
	for _, tc := range []struct {
		name string
		args []string
		// states are the states shown of a context that answers and of
		// the silent one.
		states, silent []string
		watch          bool
	}{
		{name: "query", args: []string{"query", "pods", "-n", namespace}, states: []string{"synced"}, silent: []string{"resolving", "failed"}},
		{name: "capacity", args: []string{"capacity"}, states: []string{"synced"}, silent: []string{"resolving", "failed"}},
		{name: "tree", args: []string{"tree", "pod/p-1", "-n", namespace}, states: []string{"synced"}, silent: []string{"reading", "failed"}},
		// Once the silent context has failed, every context has settled:
		// the progress ends then, without drawing the failure.
		{name: "watch", args: []string{"watch", "pods", "-n", namespace, "--timeout", "25s"}, states: []string{"watching"}, silent: []string{"resolving"}, watch: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append(tc.args, "--context", contexts, "--sync-timeout", "4s")
			var ready func([]string) bool
			if tc.watch {
				ready = func(lines []string) bool {
					failed := false
					for _, l := range lines {
						failed = failed || strings.HasPrefix(l, "error: context silent: ")
					}
					return failed && len(progressShown(lines)) == 0
				}
			}
			r := stderrOnPTY(t, kubeconfig, 3*time.Minute, ready, args...)
			if r.exitCode != 1 {
				t.Errorf("exit code %d, want 1 (the silent context fails); screen:\n%s", r.exitCode, strings.Join(r.screen, "\n"))
			}
			var wants []string
			for _, state := range tc.states {
				wants = append(wants, a+": "+state, b+": "+state)
			}
			for _, state := range tc.silent {
				wants = append(wants, "silent: "+state)
			}
			for _, want := range wants {
				if !strings.Contains(r.raw, want) {
					t.Errorf("the terminal was never shown %q; it got %q", want, r.raw)
				}
			}
			if shown := progressShown(r.screen); len(shown) > 0 {
				t.Errorf("the progress is left on the screen: %q; screen:\n%s", shown, strings.Join(r.screen, "\n"))
			}
			if !strings.Contains(strings.Join(r.screen, "\n"), "error: context silent: ") {
				t.Errorf("the screen does not name the silent context's failure:\n%s", strings.Join(r.screen, "\n"))
			}
			if tc.watch && !r.readyWhileRunning {
				t.Errorf("the watch's progress was not gone while the watch still ran")
			}
			if !tc.watch && r.stdout == "" {
				t.Errorf("nothing on stdout; the answer of %s and %s is missing", a, b)
			}

			off := framework.Run(t, framework.Cmd{Args: append([]string{"informer"}, args...), Kubeconfig: kubeconfig, Timeout: 3 * time.Minute})
			if off.ExitCode != 1 {
				t.Errorf("off a terminal: exit code %d, want 1: %s", off.ExitCode, off)
			}
			for _, line := range strings.Split(off.Stderr, "\n") {
				if progressLine.MatchString(line) || strings.Contains(line, "\x1b[") {
					t.Errorf("off a terminal, stderr has progress: %q; all of it:\n%s", line, off.Stderr)
				}
			}
		})
	}
}
