package watch

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// TestWatchInterrupt checks that Ctrl-C ends a running watch at once with
// exit code 0.
func TestWatchInterrupt(t *testing.T) {
	t.Parallel()
	cs := framework.Current(t).AdminClient()
	const ns = "watch-interrupt"
	framework.CreateNamespace(t, cs, ns)
	p := startWatch(t, "pods", "-n", ns)
	createPod(t, cs, ns, "web", nil)
	if _, err := p.WaitForLine(eventTimeout, func(l string) bool { return strings.HasPrefix(l, "ADDED    pod/web") }); err != nil {
		t.Fatal(err)
	}
	if err := p.Interrupt(); err != nil {
		t.Fatal(err)
	}
	interrupted := time.Now()
	res := waitForExit(t, p, 5*time.Second)
	if res.ExitCode != 0 {
		t.Errorf("watch after Ctrl-C: %s\nwant exit code 0", res)
	}
	t.Logf("watch exited %s after SIGINT", time.Since(interrupted).Round(time.Millisecond))
	if strings.Contains(res.Stderr, "error") || strings.Contains(res.Stderr, "panic") {
		t.Errorf("watch after Ctrl-C complained on stderr:\n%s", res.Stderr)
	}
}

// TestWatchTimeout checks that --timeout ends the watch with exit code 0.
func TestWatchTimeout(t *testing.T) {
	t.Parallel()
	cs := framework.Current(t).AdminClient()
	const ns = "watch-timeout"
	framework.CreateNamespace(t, cs, ns)
	res := framework.Run(t, framework.Cmd{Args: []string{"informer", "watch", "pods", "-n", ns, "--timeout", "2s"}, Timeout: 30 * time.Second})
	if res.ExitCode != 0 || res.TimedOut {
		t.Fatalf("watch --timeout 2s: %s\nwant exit code 0", res)
	}
	if res.Duration < 2*time.Second || res.Duration > 15*time.Second {
		t.Errorf("watch --timeout 2s ran %s, want a little over 2s", res.Duration)
	}
	if res.Stdout != "" {
		t.Errorf("watch --timeout 2s printed events in an empty namespace:\n%s", res.Stdout)
	}
}

// TestWatchClosedStdout runs the watch into `head -1`: once head has exited,
// the next write fails, and the watch must end quietly with exit code 0 (not
// die of SIGPIPE, not print "broken pipe").
func TestWatchClosedStdout(t *testing.T) {
	t.Parallel()
	c := framework.Current(t)
	cs := framework.Current(t).AdminClient()
	const ns = "watch-head-0"
	out, err := c.Seed("pods", "--count", "300", "--namespaces", "1", "--namespace-prefix", "watch-head-", "--prefix", "head")
	if err != nil {
		t.Fatal(err)
	}
	t.Log(strings.TrimSpace(out))

	// PIPESTATUS gives the plugin's own exit status; a shell pipeline's
	// status is only head's.
	script := `kubectl informer watch pods -A --initial -o name | head -1; echo "pipeline exit statuses: ${PIPESTATUS[*]}" >&2`
	p := framework.Start(t, framework.Cmd{
		Binary:     "bash",
		Args:       []string{"-c", script},
		Kubeconfig: framework.NoKubeconfig,
		Env:        []string{"KUBECONFIG=" + c.AdminKubeconfig()},
		Timeout:    time.Minute,
	})
	first, err := p.NextLine(30 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(first, "ADDED pod/") {
		t.Errorf("first line = %q, want ADDED pod/…", first)
	}
	// The initial events may all have been written before head exited; if
	// so, the watch writes again only on the next change. Make changes until
	// the pipeline ends.
	pokes := 0
	for done := false; !done; {
		select {
		case <-p.Done():
			done = true
		case <-time.After(2 * time.Second):
			if pokes == 10 {
				t.Fatalf("the pipeline did not end after head exited; stderr:\n%s", p.Stderr())
			}
			createPod(t, cs, ns, fmt.Sprintf("poke-%d", pokes), nil)
			pokes++
		}
	}
	res := p.Wait()
	t.Logf("the pipeline ended %s after head's line; pods created to make the watch write again: %d", res.Duration.Round(time.Millisecond), pokes)
	if res.ExitCode != 0 {
		t.Errorf("pipeline: %s\nwant exit code 0", res)
	}
	if !strings.Contains(res.Stderr, "pipeline exit statuses: 0 0") {
		t.Errorf("pipeline stderr:\n%s\nwant the watch and head both to exit 0 (141 is death by SIGPIPE)", res.Stderr)
	}
	for _, bad := range []string{"panic", "broken pipe", "error"} {
		if strings.Contains(strings.ToLower(res.Stderr), bad) {
			t.Errorf("pipeline stderr mentions %q:\n%s", bad, res.Stderr)
		}
	}
	if strings.Count(res.Stdout, "\n") != 1 {
		t.Errorf("pipeline stdout = %q, want one line", res.Stdout)
	}
}
