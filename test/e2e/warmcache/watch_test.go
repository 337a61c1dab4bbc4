package warmcache

import (
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// startWatch starts `kubectl informer watch ARGS` in e and waits until it
// watches.
func (e *env) startWatch(args ...string) *framework.Process {
	e.t.Helper()
	p := framework.Start(e.t, framework.Cmd{
		Args:    append([]string{"informer", "watch"}, args...),
		Env:     e.environ(),
		Timeout: 2 * time.Minute,
	})
	waitFor(e.t, time.Minute, "the watch to sync", func() bool {
		select {
		case <-p.Done():
			e.t.Fatalf("the watch exited before it was watching: %s", p.Wait())
		default:
		}
		return strings.Contains(p.Stderr(), "; watching for changes") || strings.Contains(p.Stdout(), "ADDED")
	})
	return p
}

// TestWatchesShareOneInformer runs two watches of one type through the
// cache: the cache holds one informer for both, and each prints every
// event with its diff, as a direct watch does.
func TestWatchesShareOneInformer(t *testing.T) {
	framework.SkipIfShort(t)
	e := newEnv(t)
	ns := uniqueNamespace("warm-watch")
	configMaps(t, ns, 6)
	e.start("")
	w1 := e.startWatch("configmaps", "-n", ns)
	w2 := e.startWatch("configmaps", "-n", ns, "--initial")
	direct := e.startWatch("configmaps", "-n", ns, "--cache", "off")

	c := e.onlyCache()
	var watchCaches int
	for _, tc := range c.Status.Caches {
		if tc.Purpose == "watch" {
			watchCaches++
			if tc.Users != 2 || tc.Objects != 6 {
				t.Errorf("the watch informer = %+v, want 2 users, 6 objects", tc)
			}
		}
	}
	if watchCaches != 1 {
		t.Errorf("the cache holds %d watch informers, want 1 shared by both watches: %+v", watchCaches, c.Status.Caches)
	}

	createConfigMap(t, ns, "cm-new", "a")
	cs := framework.Current(t).AdminClient()
	patch := []byte(`{"data":{"k":"changed"}}`)
	if _, err := cs.CoreV1().ConfigMaps(ns).Patch(t.Context(), "cm-0", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	wantEvents := func(p *framework.Process, name string) []string {
		t.Helper()
		var lines []string
		for _, want := range []string{"ADDED    configmap/cm-new -n " + ns, "MODIFIED configmap/cm-0 -n " + ns} {
			line, err := p.WaitForLine(30*time.Second, func(l string) bool { return strings.HasPrefix(l, want) })
			if err != nil {
				t.Fatalf("%s: no %q: %v\nstdout:\n%s\nstderr:\n%s", name, want, err, p.Stdout(), p.Stderr())
			}
			lines = append(lines, line)
		}
		diff, err := p.WaitForLine(10*time.Second, func(l string) bool { return strings.Contains(l, "data.k") })
		if err != nil {
			t.Fatalf("%s: no diff line for data.k: %v\n%s", name, err, p.Stdout())
		}
		return append(lines, diff)
	}
	got1 := wantEvents(w1, "first watch")
	got2 := wantEvents(w2, "second watch")
	gotDirect := wantEvents(direct, "direct watch")
	if strings.Join(got1, "\n") != strings.Join(gotDirect, "\n") || strings.Join(got2, "\n") != strings.Join(gotDirect, "\n") {
		t.Errorf("events through the cache differ from the direct watch's:\nfirst:\n%s\nsecond:\n%s\ndirect:\n%s",
			strings.Join(got1, "\n"), strings.Join(got2, "\n"), strings.Join(gotDirect, "\n"))
	}
	// The initial objects come in the order of a direct watch's initial
	// list (by name), not in the order of the cache's map.
	var initial strings.Builder
	for i := range 6 {
		fmt.Fprintf(&initial, "ADDED    configmap/cm-%d -n %s\n", i, ns)
	}
	if !strings.HasPrefix(w2.Stdout(), initial.String()) {
		t.Errorf("the --initial watch through the cache did not start with the cached objects in order:\n%s", w2.Stdout())
	}
	for _, p := range []*framework.Process{w1, w2} {
		if err := p.Interrupt(); err != nil {
			t.Fatal(err)
		}
		if res := p.Wait(); res.ExitCode != 0 {
			t.Errorf("interrupted watch through the cache: %s", res)
		}
	}
	waitFor(t, 10*time.Second, "the cache to see the watches end", func() bool {
		for _, tc := range e.onlyCache().Status.Caches {
			if tc.Purpose == "watch" && tc.Users != 0 {
				return false
			}
		}
		return true
	})
}
