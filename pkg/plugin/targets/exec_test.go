package targets

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"k8s.io/client-go/rest"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

func TestNeedsTerminal(t *testing.T) {
	for _, tc := range []struct {
		name          string
		exec          *clientcmdapi.ExecConfig
		stdinTerminal bool
		want          bool
	}{
		{name: "no plugin", stdinTerminal: true},
		{name: "always", exec: &clientcmdapi.ExecConfig{InteractiveMode: clientcmdapi.AlwaysExecInteractiveMode}, want: true},
		{name: "if available, terminal", exec: &clientcmdapi.ExecConfig{InteractiveMode: clientcmdapi.IfAvailableExecInteractiveMode}, stdinTerminal: true, want: true},
		{name: "if available, no terminal", exec: &clientcmdapi.ExecConfig{InteractiveMode: clientcmdapi.IfAvailableExecInteractiveMode}},
		{name: "if available, stdin unavailable", exec: &clientcmdapi.ExecConfig{InteractiveMode: clientcmdapi.IfAvailableExecInteractiveMode, StdinUnavailable: true}, stdinTerminal: true},
		{name: "unset is if available", exec: &clientcmdapi.ExecConfig{}, stdinTerminal: true, want: true},
		{name: "never", exec: &clientcmdapi.ExecConfig{InteractiveMode: clientcmdapi.NeverExecInteractiveMode}, stdinTerminal: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := NeedsTerminal(&rest.Config{ExecProvider: tc.exec}, tc.stdinTerminal); got != tc.want {
				t.Errorf("NeedsTerminal = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestTerminalGateSerializes sets up four contexts at once, each config
// used three times, with the fake plugin of testdata: plugins that need the
// terminal run once per context, never two at a time; the others are not
// run by the gate.
func TestTerminalGateSerializes(t *testing.T) {
	script, err := filepath.Abs("testdata/fake-exec.sh")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name          string
		mode          clientcmdapi.ExecInteractiveMode
		stdinTerminal bool
		wantRuns      int
	}{
		{name: "always", mode: clientcmdapi.AlwaysExecInteractiveMode, wantRuns: 4},
		{name: "if available on a terminal", mode: clientcmdapi.IfAvailableExecInteractiveMode, stdinTerminal: true, wantRuns: 4},
		{name: "if available off a terminal", mode: clientcmdapi.IfAvailableExecInteractiveMode},
		{name: "never", mode: clientcmdapi.NeverExecInteractiveMode, stdinTerminal: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			fetch := func(cfg *rest.Config) {
				cmd := exec.Command(cfg.ExecProvider.Command)
				cmd.Env = append(os.Environ(), "FAKE_EXEC_DIR="+cfg.ExecProvider.Env[0].Value)
				if out, err := cmd.Output(); err != nil || !strings.Contains(string(out), "ExecCredential") {
					t.Errorf("fake plugin: %v, output %q", err, out)
				}
			}
			var wg sync.WaitGroup
			for i := 0; i < 4; i++ {
				g := &terminalGate{stdinTerminal: func() bool { return tc.stdinTerminal }, fetch: fetch}
				cfg := &rest.Config{ExecProvider: &clientcmdapi.ExecConfig{
					Command: script, InteractiveMode: tc.mode,
					Env: []clientcmdapi.ExecEnvVar{{Name: "FAKE_EXEC_DIR", Value: dir}},
				}}
				for j := 0; j < 3; j++ {
					wg.Add(1)
					go func() {
						defer wg.Done()
						if got := g.wrap(cfg); got != cfg {
							t.Errorf("wrap returned another config")
						}
					}()
				}
			}
			wg.Wait()
			if runs := countLines(t, filepath.Join(dir, "runs")); runs != tc.wantRuns {
				t.Errorf("the plugin ran %d times, want %d", runs, tc.wantRuns)
			}
			if overlaps := countLines(t, filepath.Join(dir, "overlaps")); overlaps != 0 {
				t.Errorf("%d runs of the plugin overlapped another", overlaps)
			}
		})
	}
}

func countLines(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}
