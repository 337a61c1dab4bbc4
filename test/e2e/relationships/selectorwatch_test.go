package relationships

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// TestWatchWhereSelectedByFollowsTheSelector runs `watch pods --where
// selected-by=Service/web` while the test creates the Service, points its
// selector at other pods, annotates it and deletes it with kubectl: the pods
// it selects enter and leave the query although the pods themselves do not
// change; the annotation (selector unchanged) moves nothing. The expected
// pods are those kubectl lists by each label.
func TestWatchWhereSelectedByFollowsTheSelector(t *testing.T) {
	ns := fmt.Sprintf("selwatch-%d", time.Now().UnixNano()%1_000_000)
	framework.CreateNamespace(t, framework.Current(t).AdminClient(), ns)
	kubectl(t, "create", "deployment", "web", "-n", ns, "--image=registry.example.com/web:v1", "--replicas=3")
	kubectl(t, "create", "deployment", "api", "-n", ns, "--image=registry.example.com/api:v1", "--replicas=2")
	kubectl(t, "rollout", "status", "deployment/web", "-n", ns, "--timeout="+rolloutTimeout.String())
	kubectl(t, "rollout", "status", "deployment/api", "-n", ns, "--timeout="+rolloutTimeout.String())
	podsOf := func(app string) []string {
		t.Helper()
		var names []string
		for _, l := range lines(kubectl(t, "get", "pods", "-n", ns, "-l", "app="+app, "-o", "name")) {
			names = append(names, strings.TrimPrefix(l, "pod/"))
		}
		sort.Strings(names)
		return names
	}
	web, api := podsOf("web"), podsOf("api")

	p := framework.StartWatch(t, "pods", "-n", ns, "--where", "selected-by=Service/web", "-o", "json")
	cause := "service/web changed"

	// kubectl create service sets the selector app=NAME.
	kubectl(t, "create", "service", "clusterip", "web", "-n", ns, "--tcp=80:80")
	expectMoves(t, "Service web created (app=web)", nextEvents(t, p, len(web)), map[string][]string{"ADDED": web}, cause)

	kubectl(t, "set", "selector", "service", "web", "-n", ns, "app=api")
	expectMoves(t, "selector set to app=api", nextEvents(t, p, len(web)+len(api)), map[string][]string{"DELETED": web, "ADDED": api}, cause)
	var want []string
	for _, n := range api {
		want = append(want, "pod/"+n)
	}
	r := mustInformer(t, "query", "pods", "-n", ns, "--index", "selected-by=Service/web", "-o", "name")
	if got := lines(r.Stdout); !slices.Equal(got, want) {
		t.Errorf("query pods --index selected-by=Service/web -o name = %q, want %q", got, want)
	}

	// Not a selector change: nothing moves. Were anything printed for it,
	// it would come before the deletion's events and be counted below.
	kubectl(t, "annotate", "service", "web", "-n", ns, "note=unchanged-selector")
	kubectl(t, "delete", "service", "web", "-n", ns)
	expectMoves(t, "Service web deleted", nextEvents(t, p, len(api)), map[string][]string{"DELETED": api}, cause)

	if err := p.Interrupt(); err != nil {
		t.Fatal(err)
	}
	if r := p.Wait(); r.ExitCode != 0 {
		t.Errorf("watch did not exit 0 on SIGINT: %s", r)
	}
	if n, want := len(lines(p.Stdout())), 2*len(web)+2*len(api); n != want {
		t.Errorf("watch printed %d events, want %d:\n%s", n, want, p.Stdout())
	}
}

// expectMoves checks that events are, by type, exactly the pods of want, each with the note
// the watch gives a pod a related object's change moved (entered or left query: CAUSE).
func expectMoves(t *testing.T, step string, events []framework.WatchEvent, want map[string][]string, cause string) {
	t.Helper()
	got := map[string][]string{}
	for _, ev := range events {
		got[ev.Type] = append(got[ev.Type], ev.Name())
		note := "entered query: " + cause
		if ev.Type == "DELETED" {
			note = "left query: " + cause
		}
		if ev.Note != note {
			t.Errorf("%s: event %s, want the note %q", step, ev, note)
		}
	}
	for typ := range got {
		sort.Strings(got[typ])
	}
	for typ, names := range want {
		if !slices.Equal(got[typ], names) {
			t.Errorf("%s: %s events of %q, want %q", step, typ, got[typ], names)
		}
	}
	for typ := range got {
		if _, ok := want[typ]; !ok {
			t.Errorf("%s: unexpected %s events of %q", step, typ, got[typ])
		}
	}
}
