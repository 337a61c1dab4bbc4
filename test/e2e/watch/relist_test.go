package watch

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// relistTimeout is how long the test waits for the changes made during an
// outage to be printed once the apiserver is back: the reflector retries
// the broken watch with a backoff (0.8s doubling, with jitter), gets "too
// old resource version" from the restarted apiserver, waits one more step
// and relists.
const relistTimeout = 60 * time.Second

// TestWatchRelistAfterOutage stops the apiserver the watch talks to, changes
// objects through a second apiserver on the same etcd, starts the first
// again and checks that the watch prints exactly the changes it missed.
//
// Each of the three outages has a watch process of its own: client-go's
// reflector keeps one backoff per process that grows with every failed
// attempt up to 30s (up to 60s with jitter) and only resets after two
// minutes without failures, so a single process needs up to two minutes to
// recover from a third outage in a row; that is client-go's design, not
// something the plugin controls. Objects from earlier rounds stay, so every
// relist also has unchanged objects from before the process started.
//
// It stops the primary apiserver, so it must not run in parallel with other
// tests: it does not call t.Parallel, and the parallel tests of the package
// wait until it has ended.
func TestWatchRelistAfterOutage(t *testing.T) {
	c := framework.Current(t)
	cs := framework.Current(t).AdminClient()
	const ns = "watch-relist"
	framework.CreateNamespace(t, cs, ns)

	second, err := c.StartSecondAPIServer("second")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := second.Stop(); err != nil {
			t.Error(err)
		}
	})
	secondClient, err := kubernetes.NewForConfig(second.Config())
	if err != nil {
		t.Fatalf("creating a client for the second apiserver: %v", err)
	}

	down := false
	t.Cleanup(func() {
		if down {
			if err := c.StartAPIServer(); err != nil {
				t.Error(err)
			}
		}
	})

	var stderrs []string
	for round := 1; round <= 3; round++ {
		p := startWatch(t, "pods", "-n", ns, "-o", "json")
		a, b, unchanged, d := fmt.Sprintf("a%d", round), fmt.Sprintf("b%d", round), fmt.Sprintf("c%d", round), fmt.Sprintf("d%d", round)
		for _, name := range []string{a, b, unchanged} {
			createPod(t, cs, ns, name, map[string]string{"round": fmt.Sprint(round)})
		}
		created := map[string]bool{}
		for range 3 {
			ev := nextEvent(t, p)
			if ev.Type != "ADDED" || created[ev.Name()] {
				t.Fatalf("round %d: event %s while waiting for ADDED %s, %s, %s", round, ev, a, b, unchanged)
			}
			created[ev.Name()] = true
		}

		// SIGKILL in odd rounds, SIGTERM in even ones.
		stop, how := c.KillAPIServer, "killed"
		if round%2 == 0 {
			stop, how = c.StopAPIServer, "stopped"
		}
		if err := stop(); err != nil {
			t.Fatal(err)
		}
		down = true
		changeMissed(t, secondClient, ns, a, b, d, "e2e-second")
		if err := c.StartAPIServer(); err != nil {
			t.Fatal(err)
		}
		down = false
		restarted := time.Now()

		expectMissedChanges(t, p, fmt.Sprintf("round %d (apiserver %s)", round, how), a, b, d, "e2e-second", relistTimeout)
		t.Logf("round %d (apiserver %s): the missed changes were printed %s after the restart", round, how, time.Since(restarted).Round(100*time.Millisecond))

		expectNothingElse(t, cs, p, ns, fmt.Sprintf("sentinel%d", round))
		if err := p.Interrupt(); err != nil {
			t.Fatal(err)
		}
		if res := waitForExit(t, p, eventTimeout); res.ExitCode != 0 {
			t.Errorf("round %d: watch after Ctrl-C: %s", round, res)
		}
		stderrs = append(stderrs, p.Stderr())
	}

	// The plugin promises a warning on stderr while a watch is broken, so
	// that a user who sees no events knows the stream is not live.
	t.Run("stderr says the watch failed", func(t *testing.T) {
		const warning = "warning: watch of pods failed"
		for i, stderr := range stderrs {
			if !strings.Contains(stderr, warning) {
				t.Errorf("round %d: the apiserver was down for seconds, but stderr has no %q; stderr:\n%s", i+1, warning, stderr)
			}
		}
	})
}

// changeMissed labels pod a (changed=during-outage, as manager), deletes b
// and creates d: the changes a watch must report after it was cut off.
func changeMissed(t *testing.T, cs kubernetes.Interface, ns, a, b, d, manager string) {
	t.Helper()
	patchPod(t, cs, ns, a, manager, `{"metadata":{"labels":{"changed":"during-outage"}}}`)
	deletePod(t, cs, ns, b)
	createPod(t, cs, ns, d, nil)
}

// expectMissedChanges reads p's events until it has seen the changes of
// changeMissed: exactly one MODIFIED a (by manager, adding the label), one
// DELETED b and one ADDED d, in any order, each once, within timeout.
// After a relist, b's deletion is inferred (finalStateUnknown); had the
// watch resumed from its resourceVersion instead, it may see b's
// deletionTimestamp update (see deletePod) and a plain DELETED, so that
// update is allowed too, once.
func expectMissedChanges(t *testing.T, p *framework.Process, what, a, b, d, manager string, timeout time.Duration) {
	t.Helper()
	want := map[string]bool{"MODIFIED " + a: true, "DELETED " + b: true, "ADDED " + d: true}
	got := map[string]int{}
	deadline := time.Now().Add(timeout)
	for len(want) > 0 {
		line, err := p.NextLine(time.Until(deadline))
		if err != nil {
			t.Fatalf("%s: missing %v %s after the fault ended: %v\nstdout:\n%s\nstderr:\n%s", what, keys(want), timeout, err, p.Stdout(), p.Stderr())
		}
		ev := framework.DecodeEvent(t, line)
		key := ev.Type + " " + ev.Name()
		got[key]++
		if got[key] > 1 {
			t.Errorf("%s: %s printed twice: %s", what, key, ev.Line)
		}
		switch {
		case key == "MODIFIED "+a:
			if paths := patchPaths(t, ev); !slices.Equal(paths, []string{"add /metadata/labels/changed"}) {
				t.Errorf("%s: MODIFIED %s patch %q, want [add /metadata/labels/changed]", what, a, paths)
			}
			if !slices.Contains(ev.Managers, manager+"/Update") {
				t.Errorf("%s: MODIFIED %s managers %q, want %s/Update", what, a, ev.Managers, manager)
			}
		case key == "DELETED "+b:
			t.Logf("%s: DELETED %s finalStateUnknown=%v", what, b, ev.FinalStateUnknown)
		case key == "ADDED "+d:
		case key == "MODIFIED "+b && isDeletionUpdate(t, ev):
			continue
		default:
			t.Errorf("%s: unexpected event %s", what, ev)
		}
		delete(want, key)
	}
}

// expectNothingElse creates the pod sentinel and checks that its ADDED is
// the next event: nothing unchanged was reported, nothing twice.
func expectNothingElse(t *testing.T, cs kubernetes.Interface, p *framework.Process, ns, sentinel string) {
	t.Helper()
	createPod(t, cs, ns, sentinel, nil)
	expectEvent(t, p, "ADDED", sentinel)
}

// isDeletionUpdate reports whether ev only sets the deletion fields.
func isDeletionUpdate(t *testing.T, ev watchEvent) bool {
	t.Helper()
	paths := patchPaths(t, ev)
	slices.Sort(paths)
	return slices.Equal(paths, []string{"add /metadata/deletionGracePeriodSeconds", "add /metadata/deletionTimestamp"})
}

func keys(m map[string]bool) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
