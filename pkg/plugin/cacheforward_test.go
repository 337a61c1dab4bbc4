package plugin

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
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
			q := newCmdQuery(configFlags, genericiooptions.NewTestIOStreamsDiscard(), nil)
			root.AddCommand(q)
			if err := q.ParseFlags(tt.args); err != nil {
				t.Fatal(err)
			}
			got, err := forwardArgs(q, q.Flags().Args(), &engineOptions{configFlags: configFlags}, nil)
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
