package warmcache

import (
	"strings"
	"testing"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// TestCompletionFromCache completes object names for watch (TYPE/NAME and
// TYPE NAME): from a running warm cache, and not at all without one.
func TestCompletionFromCache(t *testing.T) {
	framework.SkipIfShort(t)
	e := newEnv(t)
	ns := uniqueNamespace("warm-complete")
	configMaps(t, ns, 2)
	createConfigMap(t, ns, "other", "a")
	complete := func(args ...string) []string {
		t.Helper()
		res := framework.Run(t, framework.Cmd{
			Binary:     framework.PluginBinary(),
			Args:       append([]string{"__complete", "watch", "-n", ns}, args...),
			Kubeconfig: framework.NoKubeconfig,
			Env:        append(e.environ(), "KUBECONFIG="+framework.Current(t).AdminKubeconfig()),
		})
		if res.ExitCode != 0 {
			t.Fatalf("__complete: %s", res)
		}
		var got []string
		for _, line := range strings.Split(strings.TrimSpace(res.Stdout), "\n") {
			if !strings.HasPrefix(line, ":") {
				got = append(got, line)
			}
		}
		return got
	}
	if got := complete("configmap/cm-"); len(got) != 0 {
		t.Errorf("completion without a cache = %q, want none", got)
	}
	e.start("")
	if got, want := strings.Join(complete("configmap/cm-"), ","), "configmap/cm-0,configmap/cm-1"; got != want {
		t.Errorf("completion of configmap/cm- = %q, want %q", got, want)
	}
	if got, want := strings.Join(complete("configmaps", "o"), ","), "other"; got != want {
		t.Errorf("completion of configmaps o = %q, want %q", got, want)
	}
}
