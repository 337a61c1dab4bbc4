package plugin

import (
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/query"
)

const testKubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "https://127.0.0.1:6443"}
users:
- name: u
  user: {token: secret-token}
contexts:
- name: ctx
  context: {cluster: c, user: u, namespace: from-context}
current-context: ctx
`

// TestForwardArgs checks what query sends a warm cache: its own flags, the
// namespace made explicit, and no kubeconfig or credential flag.
func TestForwardArgs(t *testing.T) {
	kubeconfig := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(kubeconfig, []byte(testKubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{
			name: "credentials stripped, namespace explicit",
			args: []string{"--kubeconfig=" + kubeconfig, "--token=t0ps3cret", "--as=jane", "--as-group=g", "--client-key=/k", "--index", "node=a", "--group-by", "a,b", "-l", "app=x", "--cache=auto", "pods"},
			want: []string{"query", "--group-by=a", "--group-by=b", "--index=node=a", "--selector=app=x", "--namespace=from-context", "--", "pods"},
		},
		{
			name: "a template file made absolute",
			args: []string{"--kubeconfig=" + kubeconfig, "-o", "jsonpath-file=t.txt", "pods"},
			want: []string{"query", "--output=jsonpath-file=" + mustAbs(t, "t.txt"), "--namespace=from-context", "--", "pods"},
		},
		{
			name: "-n given",
			args: []string{"--kubeconfig=" + kubeconfig, "-n", "shop", "-o", "name", "--max-staleness=5s", "pods,deploy"},
			want: []string{"query", "--max-staleness=5s", "--output=name", "--namespace=shop", "--", "pods,deploy"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			configFlags := genericclioptions.NewConfigFlags(true)
			root := &cobra.Command{Use: "kubectl-informer"}
			configFlags.AddFlags(root.PersistentFlags())
			q := query.NewCmdQueryWith(configFlags, genericiooptions.NewTestIOStreamsDiscard(), nil)
			root.AddCommand(q)
			if err := q.ParseFlags(tt.args); err != nil {
				t.Fatal(err)
			}
			got, err := engines.ForwardArgs(q, q.Flags().Args(), &engines.EngineOptions{ConfigFlags: configFlags, Engines: engines.DirectEngines{}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("forwardArgs = %q, want %q", got, tt.want)
			}
			for _, secret := range []string{"t0ps3cret", "jane", "kubeconfig", "client-key", "cache="} {
				if strings.Contains(strings.Join(got, " "), secret) {
					t.Errorf("forwardArgs = %q passes %q on", got, secret)
				}
			}
		})
	}
}

func mustAbs(t *testing.T, path string) string {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// TestVerboseRunsLocally checks that -v keeps a command off the warm cache,
// whose klog lines the user would not see.
func TestVerboseRunsLocally(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want bool
	}{
		{[]string{"query", "pods"}, false},
		{[]string{"query", "-v=4", "pods"}, true},
		{[]string{"-v", "2", "watch", "pods"}, true},
	} {
		root := NewCmdRoot(genericiooptions.NewTestIOStreamsDiscard())
		cmd, rest, err := root.Find(tt.args)
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.ParseFlags(rest); err != nil {
			t.Fatal(err)
		}
		if got := engines.Verbose(cmd); got != tt.want {
			t.Errorf("verbose(%q) = %v, want %v", tt.args, got, tt.want)
		}
	}
}

// TestDieOfSIGPIPE checks that a query answered by the cache ends as a
// direct one when its stdout is closed (`| head`): killed by SIGPIPE, even
// though forwarding handled SIGPIPE to see EPIPE. It runs itself as a child
// whose stdout is a pipe nobody reads.
func TestDieOfSIGPIPE(t *testing.T) {
	if os.Getenv("TEST_DIE_OF_SIGPIPE") == "1" {
		sigpipe := make(chan os.Signal, 1)
		signal.Notify(sigpipe, syscall.SIGPIPE)
		if _, err := os.Stdout.Write([]byte("x\n")); !errors.Is(err, syscall.EPIPE) {
			os.Exit(2)
		}
		signal.Stop(sigpipe)
		engines.DieOfSIGPIPE()
		os.Exit(3)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestDieOfSIGPIPE$")
	cmd.Env = append(os.Environ(), "TEST_DIE_OF_SIGPIPE=1")
	cmd.Stdout = w
	err = cmd.Run()
	w.Close()
	status, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ok || !status.Signaled() || status.Signal() != syscall.SIGPIPE {
		t.Errorf("child ended with %v (%v), want killed by SIGPIPE", cmd.ProcessState, err)
	}
}
