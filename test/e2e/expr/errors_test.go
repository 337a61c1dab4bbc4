package expr

import (
	"strings"
	"testing"
	"time"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// TestBadExpressions checks each kind of bad expression. Compile errors
// (syntax, an unknown name, a type error, the wrong result type) name the
// flag and the position and exit 1 before any request: the commands run
// against a server that does not exist, and must not say so. An expression
// that hits CEL's cost limit ends the command with exit 1 at the first
// object, naming it.
func TestBadExpressions(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"syntax", []string{"query", "pods", "--filter", "object.status.phase =="},
			"error: --filter: 1:23: Syntax error: mismatched input '<EOF>'"},
		{"unknown variable", []string{"query", "pods", "--filter", "pod.status.phase == 'Running'"},
			"error: --filter: 1:1: undeclared reference to 'pod'"},
		{"no such function", []string{"watch", "pods", "--filter", "object.metadata.name.startswith('a')"},
			"error: --filter: 1:32: undeclared reference to 'startswith'"},
		{"type error", []string{"query", "pods", "--filter", "quantity('1') > 1"},
			"error: --filter: 1:15: found no matching overload for '_>_' applied to '(kubernetes.Quantity, int)'"},
		{"not a bool", []string{"watch", "deploy/web", "--until", "object.status.replicas + 1"},
			"error: --until: 1:1: expression has type int, want bool"},
		{"computed index not a value", []string{"query", "pods", "--indexer", "spec=[{'spec': object.spec}]", "--group-by", "spec"},
			"error: --indexer spec: 1:1: expression has type list(map(string, dyn)), want a string, number, bool, timestamp, duration, quantity or a list of them"},
		{"computed index syntax, second line", []string{"query", "pods", "--indexer", "n=object.metadata.name +\n  +", "--group-by", "n"},
			"error: --indexer n: 2:3: Syntax error: mismatched input '+'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"informer"}, tt.args...)
			args = append(args, "--server", "https://127.0.0.1:1", "--sync-timeout", "5s")
			r := framework.Run(t, framework.Cmd{Args: args})
			if r.ExitCode != 1 {
				t.Fatalf("%s: %s\nwant exit code 1", strings.Join(tt.args, " "), r)
			}
			if !strings.Contains(r.Stderr, tt.want) {
				t.Errorf("%s: stderr = %q, want it to contain %q", strings.Join(tt.args, " "), r.Stderr, tt.want)
			}
			if strings.Contains(r.Stderr, "127.0.0.1:1") || r.Stdout != "" {
				t.Errorf("%s reached for the server or printed on stdout: %s", strings.Join(tt.args, " "), r)
			}
		})
	}

	t.Run("cost limit", func(t *testing.T) {
		c := framework.Current(t)
		const ns = "cost"
		framework.CreateNamespace(t, c.AdminClient(), ns)
		for _, name := range []string{"a", "b", "c"} {
			kubectl(t, "create", "configmap", name, "-n", ns, "--from-literal=k=v")
		}
		heavy := `object.metadata.name != '' && lists.range(3000).all(i, lists.range(3000).all(j, i + j >= 0))`
		for _, args := range [][]string{
			{"query", "configmaps", "-n", ns, "--filter", heavy},
			{"query", "configmaps", "-n", ns, "--indexer", "h=[" + heavy + "]", "--group-by", "h"},
			{"watch", "configmaps", "-n", ns, "--until-all", heavy},
		} {
			start := time.Now()
			r := framework.Run(t, framework.Cmd{Args: append([]string{"informer"}, args...)})
			if r.ExitCode != 1 || !strings.Contains(r.Stderr, ": stopped: the expression exceeded CEL's cost limit on "+ns+"/") {
				t.Errorf("%s: %s\nwant exit 1 naming the cost limit and an object", strings.Join(args, " "), r)
			}
			// One evaluation at the limit takes about 0.3s; all three
			// would take about a second.
			t.Logf("%s ended in %s", args[0]+" "+args[len(args)-2], time.Since(start).Round(time.Millisecond))
		}
	})
}
