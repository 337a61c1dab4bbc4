package fleet

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/kubectl-informer/kubectl-informer/pkg/terminal"
	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// TestFleetLiveTableOnTerminal: query -w of two contexts on a terminal
// redraws one table in place, as it does one context's: the answer of the
// one-shot query of the same contexts (a first column CONTEXT, ages
// aside), then a pod created in the second context in it too, and a footer
// counting both contexts' pods. Ctrl-C leaves the table and exits 1.
func TestFleetLiveTableOnTerminal(t *testing.T) {
	seed(t)
	f := framework.CurrentFleet(t)
	a, b := f.Contexts[0], f.Contexts[1]
	cmd := exec.Command("kubectl", "informer", "query", "pods", "-n", namespace, "--context", a+","+b, "-w", "--kubeconfig", f.Kubeconfig)
	cmd.Env = append(os.Environ(),
		"HOME="+t.TempDir(),
		"PATH="+filepath.Dir(framework.PluginBinary())+string(os.PathListSeparator)+os.Getenv("PATH"),
		"KUBECONFIG=",
		"TERM=xterm",
	)
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 160})
	if err != nil {
		t.Fatalf("starting query -w on a pty: %v", err)
	}
	defer ptmx.Close()
	var (
		mu     sync.Mutex
		raw    bytes.Buffer
		screen = terminal.NewScreen(40, 160)
	)
	read := make(chan struct{})
	go func() {
		defer close(read)
		buf := make([]byte, 32*1024)
		for {
			n, err := ptmx.Read(buf)
			mu.Lock()
			raw.Write(buf[:n])
			screen.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	// table returns the table on the screen, from its header to the blank
	// line before the footer, and the footer.
	table := func() ([]string, string) {
		mu.Lock()
		lines := screen.Lines()
		mu.Unlock()
		start := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "CONTEXT") })
		if start < 0 {
			return nil, ""
		}
		end := start
		for end < len(lines) && lines[end] != "" {
			end++
		}
		footer := ""
		if end+1 < len(lines) {
			footer = lines[end+1]
		}
		return lines[start:end], footer
	}
	waitFor := func(what string, want func() (bool, string)) {
		t.Helper()
		deadline := time.Now().Add(90 * time.Second)
		for {
			ok, got := want()
			if ok {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: not within 90s; screen:\n%s", what, got)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	same := func(pods int) func() (bool, string) {
		return func() (bool, string) {
			r := informer(t, "query", "pods", "-n", namespace, "--context", a+","+b)
			got, footer := table()
			want := rows(r.Stdout)
			ok := r.ExitCode == 0 && len(want) == pods+1 && reflect.DeepEqual(rows(strings.Join(got, "\n")), want) &&
				strings.HasPrefix(footer, "pods: "+strconv.Itoa(pods)+" · ")
			return ok, strings.Join(got, "\n") + "\n" + footer + "\none-shot:\n" + r.Stdout
		}
	}
	// Context I of the seed holds I+2 pods.
	waitFor("the live table to show both contexts' pods as the one-shot query does", same(5))
	manifest := podYAML("live-added", namespace, "node-0", "10m")
	if r := framework.Run(t, framework.Cmd{Args: []string{"create", "-f", "-", "--context", b}, Kubeconfig: f.Kubeconfig, Stdin: manifest}); r.ExitCode != 0 {
		t.Fatalf("creating a pod in %s: %s", b, r)
	}
	t.Cleanup(func() {
		framework.Run(t, framework.Cmd{Args: []string{"delete", "pod", "live-added", "-n", namespace, "--context", b, "--grace-period=0", "--force"}, Kubeconfig: f.Kubeconfig})
	})
	waitFor("the pod created in "+b+" to be drawn", same(6))

	if _, err := ptmx.Write([]byte{3}); err != nil {
		t.Fatalf("typing Ctrl-C: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		t.Fatal("query -w did not exit within 30s of Ctrl-C")
	}
	if code := cmd.ProcessState.ExitCode(); code != 1 {
		t.Errorf("exit code after Ctrl-C = %d, want 1 (as kubectl get -w)", code)
	}
	<-read
	if got, _ := table(); len(got) != 7 {
		t.Errorf("after Ctrl-C the screen shows the table\n%s\nwant it left with its 6 pods", strings.Join(got, "\n"))
	}
}
