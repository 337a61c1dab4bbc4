// Package livetable tests query -w against objects made by real controllers:
// on a terminal (a pseudo-terminal of a fixed size), the table redrawn in
// place while a Deployment scales; off a terminal, a row per change beside
// kubectl get -w over the same changes.
package livetable

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/kubectl-informer/kubectl-informer/pkg/terminal"
	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

func TestMain(m *testing.M) { framework.Main(m, framework.WithNodes(2)) }

// settleTimeout bounds each wait for controllers and for the table to catch
// up: long enough for a loaded two-core machine.
const settleTimeout = 3 * time.Minute

// kubectl runs the real kubectl as the admin and fails the test if it fails.
func kubectl(t *testing.T, args ...string) string {
	t.Helper()
	r := framework.Run(t, framework.Cmd{Args: args, Timeout: settleTimeout})
	if r.ExitCode != 0 {
		t.Fatalf("kubectl %s: %s", strings.Join(args, " "), r)
	}
	return r.Stdout
}

// uniqueNamespace returns a namespace name that starts with prefix and no
// earlier run has used, so that the tests can run again on a cluster kept
// between runs (KUBECTL_INFORMER_E2E_CLUSTER).
func uniqueNamespace(prefix string) string {
	return prefix + "-" + strconv.FormatInt(time.Now().UnixNano()%(1<<32), 36)
}

// deployment creates namespace ns and a Deployment web of replicas pods in
// it, and waits until they run.
func deployment(t *testing.T, ns string, replicas int) {
	t.Helper()
	framework.CreateNamespace(t, framework.Current(t).AdminClient(), ns)
	kubectl(t, "create", "deployment", "web", "-n", ns, "--image=registry.k8s.io/pause:3.10", fmt.Sprintf("--replicas=%d", replicas))
	scale(t, ns, replicas)
}

// scale scales web in ns to replicas and waits until the namespace holds
// exactly that many pods, all Running (the pods of a scale-down gone).
func scale(t *testing.T, ns string, replicas int) {
	t.Helper()
	kubectl(t, "scale", "deployment", "web", "-n", ns, fmt.Sprintf("--replicas=%d", replicas))
	kubectl(t, "rollout", "status", "deployment/web", "-n", ns, "--timeout="+settleTimeout.String())
	eventually(t, fmt.Sprintf("%d running pods in %s", replicas, ns), func() (bool, string) {
		out := kubectl(t, "get", "pods", "-n", ns, "--no-headers")
		lines := nonEmpty(strings.Split(out, "\n"))
		for _, l := range lines {
			if f := strings.Fields(l); len(f) < 3 || f[2] != "Running" {
				return false, out
			}
		}
		return len(lines) == replicas, out
	})
}

// eventually polls cond until it holds, failing the test with cond's last
// report after settleTimeout.
func eventually(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(settleTimeout)
	for {
		ok, report := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s: gave up after %s; last:\n%s", what, settleTimeout, report)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

func nonEmpty(lines []string) []string {
	return slices.DeleteFunc(slices.Clone(lines), func(l string) bool { return strings.TrimSpace(l) == "" })
}

// lastField is the last column of a table line (AGE), with the spaces
// before it.
var lastField = regexp.MustCompile(`\s+\S+$`)

// withoutAges returns the lines of a table whose last column is AGE, with
// that column cut: what is compared between two tables printed at
// different times.
func withoutAges(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = lastField.ReplaceAllString(strings.TrimRight(l, " "), "")
	}
	return out
}

// ptyCommand is the plugin run through kubectl on a pseudo-terminal of a
// fixed size, its output interpreted by a terminal.Screen as a user's
// terminal would show it, and kept raw.
type ptyCommand struct {
	cmd  *exec.Cmd
	ptmx *os.File
	rows int

	mu     sync.Mutex
	screen *terminal.Screen
	raw    bytes.Buffer
	done   chan struct{} // closed when the output has been read to its end
}

// startOnPTY starts kubectl with args (and the admin kubeconfig) on a
// pseudo-terminal rows lines high and cols wide.
func startOnPTY(t *testing.T, rows, cols int, args ...string) *ptyCommand {
	t.Helper()
	cluster := framework.Current(t)
	args = append(args, "--kubeconfig", cluster.AdminKubeconfig())
	cmd := exec.Command("kubectl", args...)
	cmd.Env = append(os.Environ(),
		"HOME="+t.TempDir(),
		"PATH="+filepath.Dir(framework.PluginBinary())+string(os.PathListSeparator)+os.Getenv("PATH"),
		"KUBECONFIG=",
		"TERM=xterm",
	)
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: uint16(rows), Cols: uint16(cols)})
	if err != nil {
		t.Fatalf("starting kubectl %s on a pty: %v", strings.Join(args, " "), err)
	}
	c := &ptyCommand{cmd: cmd, ptmx: ptmx, rows: rows, screen: terminal.NewScreen(rows, cols), done: make(chan struct{})}
	go func() {
		defer close(c.done)
		buf := make([]byte, 32*1024)
		for {
			n, err := ptmx.Read(buf)
			c.mu.Lock()
			c.raw.Write(buf[:n])
			c.screen.Write(buf[:n])
			c.mu.Unlock()
			if err != nil {
				return // EIO once the command has exited
			}
		}
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
		ptmx.Close()
	})
	return c
}

// lines returns what the screen shows.
func (c *ptyCommand) lines() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.screen.Lines()
}

// frames returns the frames written so far, each as its lines: the output
// split where a frame starts (it hides the cursor first).
func (c *ptyCommand) frames() [][]string {
	c.mu.Lock()
	raw := c.raw.String()
	c.mu.Unlock()
	var frames [][]string
	for _, f := range strings.Split(raw, terminal.HideCursor)[1:] {
		// The last frame is followed by the new line and the cursor
		// shown again, which the command writes when it ends.
		if end, ok := strings.CutSuffix(strings.Split(f, terminal.ShowCursor)[0], "\r\n"); ok && strings.Contains(f, terminal.ShowCursor) {
			f = end
		}
		frames = append(frames, strings.Split(f, "\n"))
	}
	return frames
}

// table returns the table on the screen: the lines from the first that
// starts with header to the blank line before the footer.
func (c *ptyCommand) table(header string) []string {
	lines := c.lines()
	start := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, header) })
	if start < 0 {
		return nil
	}
	end := start
	for end < len(lines) && lines[end] != "" {
		end++
	}
	return lines[start:end]
}

// interrupt types Ctrl-C on the terminal (the line discipline sends SIGINT
// to the command) and returns its exit code once it has exited.
func (c *ptyCommand) interrupt(t *testing.T) int {
	t.Helper()
	if _, err := c.ptmx.Write([]byte{3}); err != nil {
		t.Fatalf("typing Ctrl-C: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- c.cmd.Wait() }()
	var err error
	select {
	case err = <-exited:
	case <-time.After(30 * time.Second):
		_ = c.cmd.Process.Signal(syscall.SIGKILL)
		t.Fatalf("the command did not exit within 30s of Ctrl-C; screen:\n%s", strings.Join(c.lines(), "\n"))
	}
	select {
	case <-c.done:
	case <-time.After(5 * time.Second):
	}
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit):
		return exit.ExitCode()
	}
	t.Fatalf("waiting for the command: %v", err)
	return -1
}

// checkFramesFit fails the test if a frame took more lines than the
// terminal has, less the one left for the cursor at the end.
func (c *ptyCommand) checkFramesFit(t *testing.T) {
	t.Helper()
	frames := c.frames()
	if len(frames) == 0 {
		t.Fatalf("no frame was drawn")
	}
	for i, f := range frames {
		if len(f) > c.rows-1 {
			t.Errorf("frame %d of %d has %d lines on a terminal %d lines high:\n%s", i+1, len(frames), len(f), c.rows, strings.Join(f, "\n"))
		}
	}
}
