package fleet

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// TestFleetTreeFindsTheRootWhereItIs creates a Deployment in two of the
// three contexts: the fleet tree has each of their trees, as tree prints it
// in that context, and leaves the third out; a root no context has is an
// error.
func TestFleetTreeFindsTheRootWhereItIs(t *testing.T) {
	seed(t)
	f := framework.CurrentFleet(t)
	have := f.Contexts[1:]
	var want [][]string
	for _, c := range have {
		kubectl(t, c, "create", "deployment", "tree-root", "-n", namespace, "--image", "nginx:1.27")
		r := informer(t, "tree", "deployment/tree-root", "-n", namespace, "--context", c, "--no-headers")
		if r.ExitCode != 0 {
			t.Fatalf("tree in %s: %s", c, r)
		}
		for _, row := range rows(r.Stdout) {
			want = append(want, append([]string{c}, row...))
		}
	}
	r := informer(t, "tree", "deployment/tree-root", "-n", namespace, "--context", "fleet-*", "--no-headers")
	if r.ExitCode != 0 {
		t.Fatalf("tree across contexts: %s", r)
	}
	if got := rows(r.Stdout); !reflect.DeepEqual(got, want) {
		t.Errorf("tree across contexts:\n got %q\nwant %q", got, want)
	}
	r = informer(t, "tree", "deployment/no-such-root", "-n", namespace, "--context", "fleet-*")
	if r.ExitCode != 1 || !strings.Contains(r.Stderr, `"no-such-root" not found in any of the 3 contexts`) {
		t.Errorf("a root no context has: want exit 1 and an error saying so: %s", r)
	}
}
