package framework

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// NoKubeconfig as Cmd.Kubeconfig runs the command without --kubeconfig.
const NoKubeconfig = "-"

// DefaultTimeout is how long Run lets a command run when Cmd.Timeout is 0.
const DefaultTimeout = 60 * time.Second

// Cmd is a command to run the way a user would: by default the real kubectl
// from PATH, which finds kubectl-informer through PATH too.
type Cmd struct {
	// Binary is the program to run; "" means kubectl. Use PluginBinary()
	// to run the plugin directly.
	Binary string
	// Args follow the program name, e.g. {"informer", "query", "pods", "-A"}.
	Args []string
	// Kubeconfig is passed as --kubeconfig; "" means the admin kubeconfig
	// and NoKubeconfig means none. kubectl rejects flags before a plugin's
	// name, so the flag goes after Args (before a "--", if there is one).
	Kubeconfig string
	// Stdin is the command's standard input.
	Stdin string
	// Env adds KEY=VALUE entries to the environment.
	Env []string
	// Timeout bounds the command: Run defaults to DefaultTimeout; for Start,
	// 0 means no limit other than the test's end.
	Timeout time.Duration
}

// Result is how a command ended.
type Result struct {
	Stdout   string
	Stderr   string
	ExitCode int // -1 if killed by a signal
	Duration time.Duration
	TimedOut bool
}

// String describes the result for failure messages.
func (r Result) String() string {
	status := fmt.Sprintf("exit code %d", r.ExitCode)
	if r.TimedOut {
		status = "timed out"
	}
	return fmt.Sprintf("%s after %s\n--- stdout:\n%s--- stderr:\n%s", status, r.Duration.Round(time.Millisecond), r.Stdout, r.Stderr)
}

// Kubectl runs the real kubectl with args as the admin user and returns
// how it ended; a non-zero exit is not a test failure. ctx bounds it in
// addition to DefaultTimeout.
func Kubectl(t testing.TB, ctx context.Context, args ...string) Result {
	t.Helper()
	return runCmd(t, ctx, Cmd{Args: args})
}

// Run runs c to completion and returns how it ended; a non-zero exit is not
// a test failure, but failing to start the command is.
func Run(t testing.TB, c Cmd) Result {
	t.Helper()
	return runCmd(t, context.Background(), c)
}

func runCmd(t testing.TB, ctx context.Context, c Cmd) Result {
	t.Helper()
	timeout := c.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := command(t, ctx, c)
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	began := time.Now()
	err := cmd.Run()
	res := Result{
		Stdout:   stdout.String(),
		Stderr:   stderr.String(),
		Duration: time.Since(began),
		TimedOut: errors.Is(ctx.Err(), context.DeadlineExceeded),
	}
	res.ExitCode = exitCode(t, cmd, err)
	return res
}

// command builds the exec.Cmd for c: the binary with Args and
// --kubeconfig, PATH starting with the directory of the built plugin, HOME
// a directory of this test run (so kubectl's discovery cache is not the
// user's), and no KUBECONFIG from the user's environment.
func command(t testing.TB, ctx context.Context, c Cmd) *exec.Cmd {
	t.Helper()
	s := mustSuite(t)
	binary := c.Binary
	if binary == "" {
		binary = s.kubectl
	}
	args := append([]string(nil), c.Args...)
	kubeconfig := c.Kubeconfig
	if kubeconfig == "" {
		kubeconfig = s.cluster.AdminKubeconfig()
	}
	if kubeconfig != NoKubeconfig {
		flag := []string{"--kubeconfig", kubeconfig}
		at := len(args)
		for i, a := range args {
			if a == "--" {
				at = i
				break
			}
		}
		args = append(args[:at], append(flag, args[at:]...)...)
	}
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = environment(s, c.Env)
	cmd.Stdin = strings.NewReader(c.Stdin)
	// On timeout, interrupt first so the command can clean up, as a user's
	// Ctrl-C would; kill it if it is still there 5s later.
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

func environment(s *suite, extra []string) []string {
	var env []string
	for _, kv := range os.Environ() {
		key, _, _ := strings.Cut(kv, "=")
		switch key {
		case "KUBECONFIG", "HOME", "KUBECACHEDIR", "PATH":
			continue
		}
		env = append(env, kv)
	}
	env = append(env,
		"HOME="+s.home,
		"PATH="+filepath.Dir(s.pluginBinary)+string(os.PathListSeparator)+os.Getenv("PATH"),
	)
	return append(env, extra...)
}

// exitCode turns the error of Wait into an exit code, failing the test if
// the command did not run at all.
func exitCode(t testing.TB, cmd *exec.Cmd, err error) int {
	t.Helper()
	code, ran := waitStatus(cmd, err)
	if !ran {
		t.Fatalf("running %s: %v", cmd, err)
	}
	return code
}

// waitStatus turns the error of cmd.Wait into the command's exit code; ran
// is false, and the code -1, if the command did not run at all.
func waitStatus(cmd *exec.Cmd, err error) (code int, ran bool) {
	var exitErr *exec.ExitError
	switch {
	case err == nil:
		return 0, true
	case errors.As(err, &exitErr):
		return exitErr.ExitCode(), true
	case cmd.ProcessState != nil:
		// WaitDelay ran out with output still open; the process ended.
		return cmd.ProcessState.ExitCode(), true
	default:
		return -1, false
	}
}
