package warmcache

import (
	"strings"
	"testing"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// TestOtherIdentityKeptApart warms the admin's cache with the config maps
// of a namespace of its own, which the viewer user may not read, and checks that the viewer
// and the admin impersonating someone (--as) get their own answers (a
// Forbidden error), exactly as without any cache; that a cache the viewer
// starts is a second one, of the viewer, holding what the viewer asked.
func TestOtherIdentityKeptApart(t *testing.T) {
	framework.SkipIfShort(t)
	e := newEnv(t)
	c := framework.Current(t)
	ns := uniqueNamespace("team-a")
	framework.CreateNamespace(t, c.AdminClient(), ns)
	createConfigMap(t, ns, "secret-plans", "a")
	e.start("")
	q := []string{"query", "configmaps", "-n", ns, "-o", "name"}
	if got := e.mustRun("", q...).Stdout; !strings.Contains(got, "configmap/secret-plans\n") {
		t.Fatalf("the admin's answer lacks configmap/secret-plans:\n%s", got)
	}
	admin := e.onlyCache()

	others := []struct {
		name       string
		kubeconfig string
		extra      []string
	}{
		{"viewer", c.ViewerKubeconfig(), nil},
		{"admin --as", "", []string{"--as", "system:serviceaccount:team-a:nobody"}},
		{"admin --as-group", "", []string{"--as", "someone", "--as-group", "some-group"}},
	}
	for _, o := range others {
		args := append(append([]string(nil), q...), o.extra...)
		warm := e.run(o.kubeconfig, args...)
		direct := e.run(o.kubeconfig, append(args, "--cache", "off")...)
		if warm.ExitCode != 1 || !strings.Contains(warm.Stderr, "forbidden") || strings.Contains(warm.Stdout, "secret-plans") {
			t.Errorf("%s: %s\nwant a Forbidden error, not the admin's cached answer", o.name, warm)
		}
		if warm.Stdout != direct.Stdout || warm.Stderr != direct.Stderr || warm.ExitCode != direct.ExitCode {
			t.Errorf("%s: with the admin's cache running: %s\nwithout: %s", o.name, warm, direct)
		}
	}
	// The viewer's cache is another process with its own socket, and the
	// viewer's queries go to it.
	e.start(c.ViewerKubeconfig())
	viewerPods := e.mustRun(c.ViewerKubeconfig(), "query", "pods", "-n", "team-a", "-o", "name")
	if direct := e.run(c.ViewerKubeconfig(), "query", "pods", "-n", "team-a", "-o", "name", "--cache", "off"); viewerPods.Stdout != direct.Stdout || viewerPods.Stderr != direct.Stderr {
		t.Errorf("viewer's pods through its cache: %s\ndirect: %s", viewerPods, direct)
	}
	st := e.status()
	if len(st) != 2 {
		t.Fatalf("cache status lists %d caches, want the admin's and the viewer's: %+v", len(st), st)
	}
	for _, s := range st {
		if s.Status == nil {
			t.Fatalf("a cache does not answer: %+v", s)
		}
		var types []string
		for _, tc := range s.Status.Caches {
			types = append(types, tc.Type)
		}
		switch {
		case s.Socket == admin.Socket:
			if s.Status.User != "admin" || strings.Join(types, ",") != "configmaps" {
				t.Errorf("the admin's cache = user %q, types %v; want admin, configmaps", s.Status.User, types)
			}
		default:
			if s.Status.User != "viewer" || strings.Join(types, ",") != "pods" {
				t.Errorf("the viewer's cache = user %q, types %v; want viewer, pods", s.Status.User, types)
			}
		}
	}
}
