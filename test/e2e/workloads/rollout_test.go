package workloads

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// TestRolloutWatchMatchesServer rolls a Deployment out, changes its image,
// scales it and deletes it through kubectl, with kube-controller-manager,
// kube-scheduler and kwok doing the rest, while `kubectl informer watch
// deploy,rs,pods -o json` runs. It proves the plugin's output against the
// API server's own watch streams taken in the same run: every object is
// added and deleted exactly once, every state the server sent (bookkeeping
// fields aside) is printed once and in order, and each update's patch turns
// the previous printed object into the next. Each update names the managers
// that own what it changed (checkAttribution).
func TestRolloutWatchMatchesServer(t *testing.T) {
	c := framework.Current(t)
	cs, dyn := c.AdminClient(), c.AdminDynamicClient()
	const ns = "rollout"
	framework.CreateNamespace(t, cs, ns)

	server := framework.WatchServer(t, dyn, ns, deploymentsGVR, replicaSetsGVR, podsGVR)
	p := framework.StartWatch(t, "deploy,rs,pods", "-n", ns, "-o", "json")

	kubectl(t, "create", "deployment", "web", "-n", ns, "--image=registry.example.com/web:v1", "--replicas=2")
	kubectl(t, "rollout", "status", "deployment/web", "-n", ns, "--timeout="+rolloutTimeout.String())
	kubectl(t, "set", "image", "deployment/web", "-n", ns, "web=registry.example.com/web:v2")
	kubectl(t, "rollout", "status", "deployment/web", "-n", ns, "--timeout="+rolloutTimeout.String())
	kubectl(t, "scale", "deployment/web", "-n", ns, "--replicas=4")
	kubectl(t, "rollout", "status", "deployment/web", "-n", ns, "--timeout="+rolloutTimeout.String())
	kubectl(t, "delete", "deployment/web", "-n", ns)
	waitGone(t, dyn, ns, deploymentsGVR, replicaSetsGVR, podsGVR)

	// The server's streams are complete once every object it added is
	// deleted; then wait for the plugin to print as many DELETED events.
	var want []framework.ServerEvent
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		events, _ := server.Snapshot()
		added, deleted := 0, 0
		for _, ev := range events {
			switch ev.Type {
			case watch.Added:
				added++
			case watch.Deleted:
				deleted++
			}
		}
		want = events
		return added > 0 && added == deleted && strings.Count(p.Stdout(), `"type":"DELETED"`) >= deleted, nil
	})
	if err != nil {
		t.Fatalf("waiting for the server's and the plugin's DELETED events: %v\nplugin stdout:\n%.4000s", err, p.Stdout())
	}
	if _, errs := server.Snapshot(); len(errs) > 0 {
		t.Fatalf("the server's own watch broke, so it cannot be the reference: %v", errs)
	}
	if err := p.Interrupt(); err != nil {
		t.Fatalf("interrupting the watch: %v", err)
	}
	r := p.Wait()
	if r.ExitCode != 0 {
		t.Fatalf("watch did not exit 0 on SIGINT: %s", r)
	}

	var got []framework.WatchEvent
	for _, line := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
		got = append(got, framework.DecodeEvent(t, line))
	}
	compareWithServer(t, want, got)
	checkAttribution(t, cs, want, got)

	kinds := map[string]int{}
	for _, ev := range got {
		kinds[ev.Kind()+" "+ev.Type]++
	}
	t.Logf("server sent %d events; the plugin printed %d: %v", len(want), len(got), kinds)
}

// printedState is one state of an object as the plugin should print it.
type printedState struct {
	typ    string
	object map[string]interface{}
}

// expectedStates groups the server's events by object UID, in order, and
// drops updates that change only bookkeeping fields.
func expectedStates(events []framework.ServerEvent) (map[string][]printedState, []string) {
	states := map[string][]printedState{}
	var order []string
	for _, ev := range events {
		uid := framework.NestedString(ev.Object, "metadata", "uid")
		obj := framework.WithoutBookkeeping(ev.Object)
		seq := states[uid]
		if len(seq) == 0 {
			order = append(order, uid)
		}
		if ev.Type == watch.Modified && len(seq) > 0 && reflect.DeepEqual(seq[len(seq)-1].object, obj) {
			continue
		}
		states[uid] = append(seq, printedState{typ: string(ev.Type), object: obj})
	}
	return states, order
}

// compareWithServer checks the plugin's events against the server's.
func compareWithServer(t *testing.T, server []framework.ServerEvent, printed []framework.WatchEvent) {
	t.Helper()
	want, order := expectedStates(server)
	got := map[string][]framework.WatchEvent{}
	for _, ev := range printed {
		if ev.Coalesced > 0 {
			t.Errorf("%s coalesces %d updates: the test reads as fast as the plugin prints, so nothing should be coalesced", ev, ev.Coalesced)
		}
		uid := framework.NestedString(ev.Object, "metadata", "uid")
		got[uid] = append(got[uid], ev)
	}
	if len(got) != len(want) {
		t.Errorf("the plugin printed events for %d objects, the server for %d", len(got), len(want))
	}
	for _, uid := range order {
		w, g := want[uid], got[uid]
		name := kindName(w[0].object)
		if n := countType(g, "ADDED"); n != 1 || len(g) == 0 || g[0].Type != "ADDED" {
			t.Errorf("%s: %d ADDED events, the first being %v; want exactly one, first", name, n, firstType(g))
		}
		if n := countType(g, "DELETED"); n != 1 || len(g) == 0 || g[len(g)-1].Type != "DELETED" {
			t.Errorf("%s: %d DELETED events; want exactly one, last", name, n)
		}
		for i := 0; i < len(w) || i < len(g); i++ {
			switch {
			case i >= len(g):
				t.Errorf("%s: state %d of %d (%s) was not printed:\n%s", name, i+1, len(w), w[i].typ, toJSON(w[i].object))
				continue
			case i >= len(w):
				t.Errorf("%s: printed %s as state %d, but the server sent only %d states", name, g[i], i+1, len(w))
				continue
			}
			obj := framework.WithoutBookkeeping(g[i].Object)
			if g[i].Type != w[i].typ || !reflect.DeepEqual(obj, w[i].object) {
				t.Errorf("%s: state %d printed as %s\n%s\nthe server sent %s\n%s", name, i+1, g[i].Type, toJSON(obj), w[i].typ, toJSON(w[i].object))
			}
			if i > 0 && g[i].Type == "MODIFIED" {
				framework.CheckPatch(t, g[i-1], g[i], framework.Bookkeeping...)
			}
		}
	}
	if t.Failed() {
		return
	}
	for _, kind := range []string{"Deployment", "ReplicaSet", "Pod"} {
		found := false
		for _, ev := range printed {
			found = found || (ev.Kind() == kind && ev.Type == "MODIFIED")
		}
		if !found {
			t.Errorf("no MODIFIED %s was printed: the controllers did not act, so the test proved little", kind)
		}
	}
}

func kindName(obj map[string]interface{}) string {
	return framework.NestedString(obj, "kind") + "/" + framework.NestedString(obj, "metadata", "name")
}

func countType(evs []framework.WatchEvent, typ string) int {
	n := 0
	for _, ev := range evs {
		if ev.Type == typ {
			n++
		}
	}
	return n
}

func firstType(evs []framework.WatchEvent) string {
	if len(evs) == 0 {
		return "none"
	}
	return evs[0].Type
}

func toJSON(v interface{}) string {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	if len(data) > 3000 {
		return string(data[:3000]) + "…"
	}
	return string(data)
}
