package warmcache

import (
	"strings"
	"testing"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// TestTreeAndCapacityReadTheCache runs tree and capacity with a warm cache
// and with --cache off: the same stdout, stderr and exit code, and the
// cache holds the types they read afterwards (they were read through it).
func TestTreeAndCapacityReadTheCache(t *testing.T) {
	framework.SkipIfShort(t)
	e := newEnv(t)
	ns := uniqueNamespace("warm-tree")
	createPods(t, ns, 3)
	e.start("")
	for _, c := range [][]string{
		{"tree", "pod/p-0", "-n", ns, "-o", "yaml"},
		{"tree", "pod/p-1", "-n", ns, "--refs", "-o", "name"},
		{"capacity", "-o", "json"},
	} {
		warm := e.run("", c...)
		direct := e.run("", append(c, "--cache", "off")...)
		if warm.ExitCode != 0 || warm.Stdout != direct.Stdout || warm.Stderr != direct.Stderr || warm.ExitCode != direct.ExitCode {
			t.Errorf("%s\nthrough the cache: %s\ndirect: %s", strings.Join(c, " "), warm, direct)
		}
	}
	held := map[string]bool{}
	for _, tc := range e.onlyCache().Status.Caches {
		held[tc.Type] = true
	}
	for _, want := range []string{"pods", "nodes"} {
		if !held[want] {
			t.Errorf("the cache holds %v after tree and capacity, want %s among them: they did not read it", held, want)
		}
	}
}
