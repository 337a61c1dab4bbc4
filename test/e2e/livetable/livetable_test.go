package livetable

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// Sizes of the pseudo-terminals: one the tables fit on, and one three
// pods do not.
const (
	tallRows, cols = 24, 120
	lowRows        = 6
)

// TestLiveTableOnTerminal: query pods -w on a terminal while a Deployment
// scales 2→5→3 keeps one table, redrawn in place: its last frame shows each
// pod once and equals kubectl get pods (ages aside); no frame is higher
// than the terminal, and on a terminal too low for the table the frame says
// how many lines it hides. Ctrl-C leaves the last frame on the screen and
// exits 1, as kubectl get -w does.
func TestLiveTableOnTerminal(t *testing.T) {
	ns := uniqueNamespace("live-tty")
	deployment(t, ns, 2)
	tall := startOnPTY(t, tallRows, cols, "informer", "query", "pods", "-n", ns, "-w")
	low := startOnPTY(t, lowRows, cols, "informer", "query", "pods", "-n", ns, "-w")
	eventually(t, "the first frames", func() (bool, string) {
		return len(tall.table("NAME")) == 3 && len(low.frames()) > 0, strings.Join(tall.lines(), "\n")
	})

	scale(t, ns, 5)
	scale(t, ns, 3)

	var want []string
	eventually(t, "the table to show the 3 pods as kubectl get does", func() (bool, string) {
		want = withoutAges(nonEmpty(strings.Split(kubectl(t, "get", "pods", "-n", ns), "\n")))
		got := withoutAges(tall.table("NAME"))
		return slices.Equal(got, want), "screen:\n" + strings.Join(tall.lines(), "\n") + "\nkubectl get pods:\n" + strings.Join(want, "\n")
	})
	names := map[string]int{}
	for _, line := range tall.table("NAME")[1:] {
		names[strings.Fields(line)[0]]++
	}
	for name, n := range names {
		if n != 1 {
			t.Errorf("pod %s is on the screen %d times, want once:\n%s", name, n, strings.Join(tall.lines(), "\n"))
		}
	}
	if len(names) != 3 {
		t.Errorf("the screen shows %d pods, want 3:\n%s", len(names), strings.Join(tall.lines(), "\n"))
	}
	footer := tall.lines()[len(tall.lines())-1]
	if !strings.HasPrefix(footer, "pods: 3 · ") || !strings.Contains(footer, "last change ") {
		t.Errorf("footer = %q, want the count of pods and the time of the last change", footer)
	}

	// Three pods, a header, the blank line and the footer do not fit in
	// lowRows-1 lines: the frame keeps the header and says what it hides.
	eventually(t, "the low terminal's frame to show 3 pods", func() (bool, string) {
		lines := low.lines()
		return len(lines) > 0 && strings.HasPrefix(lines[len(lines)-1], "pods: 3 · "), strings.Join(lines, "\n")
	})
	lowLines := low.lines()
	hidden := "… 2 more lines not shown: the terminal is 6 lines high"
	if len(lowLines) != lowRows-1 || !slices.Equal(withoutAges(lowLines[:2]), want[:2]) || lowLines[2] != hidden || lowLines[3] != "" {
		t.Errorf("the low terminal shows\n%s\nwant the header, the first pod, %q, a blank line and the footer", strings.Join(lowLines, "\n"), hidden)
	}

	before := tall.table("NAME")
	if code := tall.interrupt(t); code != 1 {
		t.Errorf("exit code after Ctrl-C = %d, want 1 (as kubectl get -w)", code)
	}
	if code := low.interrupt(t); code != 1 {
		t.Errorf("exit code of the low terminal's query after Ctrl-C = %d, want 1", code)
	}
	after := tall.lines()
	if got := withoutAges(tall.table("NAME")); !slices.Equal(got, withoutAges(before)) {
		t.Errorf("after Ctrl-C the screen shows\n%s\nwant the last table left on it", strings.Join(after, "\n"))
	}
	tall.mu.Lock()
	raw := tall.raw.String()
	tall.mu.Unlock()
	if !strings.HasSuffix(strings.TrimRight(raw, "\r\n"), "\x1b[?25h") && !strings.Contains(raw[max(len(raw)-64, 0):], "\x1b[?25h") {
		t.Errorf("the output does not end by showing the cursor again: %q", raw[max(len(raw)-64, 0):])
	}
	tall.checkFramesFit(t)
	low.checkFramesFit(t)
	t.Logf("tall terminal: %d frames; low terminal: %d frames", len(tall.frames()), len(low.frames()))
}

// TestGroupByOnTerminal: a live --group-by node table ends equal to the
// one-shot query's answer.
func TestGroupByOnTerminal(t *testing.T) {
	ns := uniqueNamespace("live-groups")
	deployment(t, ns, 2)
	live := startOnPTY(t, tallRows, cols, "informer", "query", "pods", "-n", ns, "--group-by", "node", "-w")
	eventually(t, "the first frame", func() (bool, string) {
		return len(live.table("NODE")) > 0, strings.Join(live.lines(), "\n")
	})
	scale(t, ns, 5)
	scale(t, ns, 3)
	eventually(t, "the live table to equal query --group-by node", func() (bool, string) {
		r := framework.Run(t, framework.Cmd{Args: []string{"informer", "query", "pods", "-n", ns, "--group-by", "node"}})
		want := nonEmpty(strings.Split(r.Stdout, "\n"))
		got := live.table("NODE")
		return r.ExitCode == 0 && slices.Equal(got, want), "screen:\n" + strings.Join(live.lines(), "\n") + "\none-shot:\n" + r.String()
	})
	if code := live.interrupt(t); code != 1 {
		t.Errorf("exit code after Ctrl-C = %d, want 1", code)
	}
	live.checkFramesFit(t)
}

// TestRowsOffTerminal: query pods -w on a pipe prints what kubectl get
// pods -w prints over the same changes: the same table first, then a row per
// change; the rows seen (ages aside) are the same set. Both exit 1 on
// SIGINT. The same through a warm cache, which runs the query.
func TestRowsOffTerminal(t *testing.T) {
	t.Run("direct", func(t *testing.T) { rowsBesideKubectl(t, uniqueNamespace("live-rows"), nil) })
	t.Run("warm cache", func(t *testing.T) {
		runtime := t.TempDir()
		if err := os.Chmod(runtime, 0o700); err != nil {
			t.Fatal(err)
		}
		env := []string{"XDG_RUNTIME_DIR=" + runtime}
		cache := func(args ...string) framework.Result {
			return framework.Run(t, framework.Cmd{Args: append([]string{"informer", "cache"}, args...), Env: env})
		}
		if r := cache("start"); r.ExitCode != 0 || !strings.Contains(r.Stdout, "started a cache") {
			t.Fatalf("cache start: %s", r)
		}
		t.Cleanup(func() {
			if r := cache("stop", "--all"); r.ExitCode != 0 {
				t.Errorf("cache stop --all: %s", r)
			}
		})
		ns := uniqueNamespace("live-rows-warm")
		rowsBesideKubectl(t, ns, env, func() {
			// The query runs in the cache: it holds the namespace's
			// pods for one user, the query.
			r := cache("status", "-o", "json")
			var st []struct {
				Status struct {
					Caches []struct {
						Type       string   `json:"type"`
						Namespaces []string `json:"namespaces"`
						Users      int      `json:"users"`
					} `json:"caches"`
				} `json:"status"`
			}
			if err := json.Unmarshal([]byte(r.Stdout), &st); err != nil || len(st) != 1 {
				t.Fatalf("cache status -o json: %v: %s", err, r)
			}
			for _, c := range st[0].Status.Caches {
				if c.Type == "pods" && slices.Equal(c.Namespaces, []string{ns}) && c.Users == 1 {
					return
				}
			}
			t.Errorf("the warm cache does not hold the query's pods for it: %s", r.Stdout)
		})
	})
}

// rowsBesideKubectl runs query pods -w and kubectl get pods -w side by side
// over a Deployment in ns scaled 2→5→3, with env added to the query's
// environment, and compares what they print; during, when set, runs while
// both watch.
func rowsBesideKubectl(t *testing.T, ns string, env []string, during ...func()) {
	deployment(t, ns, 2)
	plugin := framework.Start(t, framework.Cmd{Args: []string{"informer", "query", "pods", "-n", ns, "-w"}, Env: env, Timeout: 10 * time.Minute})
	kube := framework.Start(t, framework.Cmd{Args: []string{"get", "pods", "-n", ns, "-w"}, Timeout: 10 * time.Minute})
	for _, p := range []*framework.Process{plugin, kube} {
		if _, err := p.WaitForLine(time.Minute, func(l string) bool { return strings.HasPrefix(l, "NAME") }); err != nil {
			t.Fatalf("waiting for the header: %v; stderr:\n%s", err, p.Stderr())
		}
	}
	for _, f := range during {
		f()
	}
	// Both have listed (the table is printed once the list is), so their
	// watches start from the list and see every change that follows.
	time.Sleep(time.Second)
	scale(t, ns, 5)
	scale(t, ns, 3)
	rowsOf := func(p *framework.Process) []string { return withoutAges(nonEmpty(strings.Split(p.Stdout(), "\n"))) }
	eventually(t, "the same rows from both", func() (bool, string) {
		got, want := rowSet(rowsOf(plugin)), rowSet(rowsOf(kube))
		return slices.Equal(got, want), "query -w:\n" + plugin.Stdout() + "\nkubectl get -w:\n" + kube.Stdout()
	})
	got, want := rowsOf(plugin), rowsOf(kube)
	// The table first: header and the two pods, in the same order.
	if !slices.Equal(got[:3], want[:3]) {
		t.Errorf("first lines of query -w:\n%s\nwant those of kubectl get -w:\n%s", strings.Join(got[:3], "\n"), strings.Join(want[:3], "\n"))
	}
	if n := strings.Count(plugin.Stdout(), "NAME "); n != 1 {
		t.Errorf("query -w printed the header %d times, want once:\n%s", n, plugin.Stdout())
	}
	if len(got) < 3+3+3 {
		t.Errorf("query -w printed %d lines, want the table and a row for each of the 3 pods added and 2 deleted at least:\n%s", len(got), plugin.Stdout())
	}
	for _, p := range []*framework.Process{plugin, kube} {
		if err := p.Interrupt(); err != nil {
			t.Fatalf("interrupting: %v", err)
		}
	}
	pr, kr := plugin.Wait(), kube.Wait()
	if pr.ExitCode != kr.ExitCode || pr.ExitCode != 1 {
		t.Errorf("exit codes after SIGINT: query -w %d, kubectl get -w %d; want both 1", pr.ExitCode, kr.ExitCode)
	}
	if strings.TrimSpace(pr.Stderr) != "" {
		t.Errorf("query -w wrote on stderr: %s", pr.Stderr)
	}
}

// rowSet returns the distinct lines, sorted.
func rowSet(lines []string) []string {
	set := slices.Clone(lines)
	slices.Sort(set)
	return slices.Compact(set)
}
