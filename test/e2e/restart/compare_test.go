package restart

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// finalState is an object's last state, as the server sent it or a watch
// printed it.
type finalState struct {
	deleted bool
	object  map[string]interface{}
}

// serverFinal returns every object's last state in the server's events, by
// UID.
func serverFinal(events []framework.ServerEvent) map[string]finalState {
	final := map[string]finalState{}
	for _, ev := range events {
		final[uidOf(ev.Object)] = finalState{deleted: ev.Type == watch.Deleted, object: ev.Object}
	}
	return final
}

// printedFinal returns every object's last printed state, by UID.
func printedFinal(events []framework.WatchEvent) map[string]finalState {
	final := map[string]finalState{}
	for _, ev := range events {
		final[uidOf(ev.Object)] = finalState{deleted: ev.Type == "DELETED", object: ev.Object}
	}
	return final
}

// finalDiffs describes where a watch's last printed states differ from the
// server's: a live object not printed or printed in another state, a
// deleted one printed live, an object the server never sent. An object the
// server added and deleted while the watch's API server was down may be
// missing.
func finalDiffs(server, printed map[string]finalState) []string {
	var diffs []string
	for uid, s := range server {
		p, ok := printed[uid]
		name := kindName(s.object)
		switch {
		case s.deleted && (!ok || p.deleted):
		case s.deleted:
			diffs = append(diffs, fmt.Sprintf("%s: deleted by the server (resourceVersion %s), printed live at %s", name, rvOf(s.object), rvOf(p.object)))
		case !ok:
			diffs = append(diffs, fmt.Sprintf("%s: live on the server (resourceVersion %s), never printed", name, rvOf(s.object)))
		case p.deleted:
			diffs = append(diffs, fmt.Sprintf("%s: live on the server (resourceVersion %s), printed DELETED", name, rvOf(s.object)))
		case !reflect.DeepEqual(framework.WithoutBookkeeping(s.object), framework.WithoutBookkeeping(p.object)):
			diffs = append(diffs, fmt.Sprintf("%s: last printed at resourceVersion %s, the server's is %s", name, rvOf(p.object), rvOf(s.object)))
		}
	}
	for uid, p := range printed {
		if _, ok := server[uid]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s: printed, never sent by the server", kindName(p.object)))
		}
	}
	sort.Strings(diffs)
	return diffs
}

// printedEvents decodes the lines p has printed so far; with context set,
// those of that context only (a watch across contexts names each event's).
func printedEvents(t *testing.T, p *framework.Process, context string) []framework.WatchEvent {
	t.Helper()
	var events []framework.WatchEvent
	for _, line := range strings.Split(p.Stdout(), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		if context != "" {
			var named struct {
				Context string `json:"context"`
			}
			if err := json.Unmarshal([]byte(line), &named); err != nil {
				t.Fatalf("decoding %q: %v", line, err)
			}
			if named.Context != context {
				continue
			}
		}
		events = append(events, framework.DecodeEvent(t, line))
	}
	return events
}

// caughtUp waits until every watch's last printed states equal the
// server's, and returns how many server events that took: the events after
// it are changes every watch gets as they happen. It fails the test with
// the differences if that does not happen within stepTimeout.
func (r *rollout) caughtUp(when string) int {
	r.t.Helper()
	var diffs []string
	var n int
	deadline := time.Now().Add(stepTimeout)
	for {
		events, errs := r.server.Snapshot()
		if len(errs) > 0 {
			r.t.Fatalf("%s: the second API server's own watch broke, so it cannot be the reference: %v", when, errs)
		}
		n, diffs = len(events), nil
		server := serverFinal(events)
		for i, p := range r.watches {
			for _, d := range finalDiffs(server, printedFinal(printedEvents(r.t, p, r.context))) {
				diffs = append(diffs, fmt.Sprintf("watch %d: %s", i+1, d))
			}
		}
		if len(diffs) == 0 {
			return n
		}
		if time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	var stderrs strings.Builder
	for i, p := range r.watches {
		fmt.Fprintf(&stderrs, "watch %d stderr:\n%s\n", i+1, p.Stderr())
	}
	r.t.Fatalf("%s: the watches did not catch up with the server within %s:\n%s\n%s", when, stepTimeout, strings.Join(diffs, "\n"), stderrs.String())
	return 0
}

// waitGone waits until the namespace holds no Deployment, ReplicaSet or
// Pod.
func (r *rollout) waitGone() {
	r.t.Helper()
	dyn, err := dynamic.NewForConfig(r.second.Config())
	if err != nil {
		r.t.Fatal(err)
	}
	err = wait.PollUntilContextTimeout(r.t.Context(), 200*time.Millisecond, stepTimeout, true, func(ctx context.Context) (bool, error) {
		for _, gvr := range []schema.GroupVersionResource{deploymentsGVR, replicaSetsGVR, podsGVR} {
			list, err := dyn.Resource(gvr).Namespace(r.ns).List(ctx, metav1.ListOptions{})
			if err != nil || len(list.Items) > 0 {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		r.t.Fatalf("waiting for %s to hold no Deployment, ReplicaSet or Pod: %v", r.ns, err)
	}
}

// check compares everything watch printed with the server's events: each
// printed state is one the server sent for that object (nothing invented),
// each object's states are printed in the server's order and none twice,
// each update's patch turns the object printed before into the one
// printed, an object is printed DELETED at most once, last, and only if the
// server deleted it, the last printed states are the server's, and every
// state the server sent while the watch was caught up and connected (the
// live spans) is printed.
func (r *rollout) check(name string, printed []framework.WatchEvent) {
	r.t.Helper()
	t := r.t
	server, errs := r.server.Snapshot()
	if len(errs) > 0 {
		t.Fatalf("the second API server's own watch broke, so it cannot be the reference: %v", errs)
	}
	// sent holds, per UID and resourceVersion, the state the server sent.
	sent := map[string]map[string]framework.ServerEvent{}
	for _, ev := range server {
		uid := uidOf(ev.Object)
		if sent[uid] == nil {
			sent[uid] = map[string]framework.ServerEvent{}
		}
		sent[uid][rvOf(ev.Object)] = ev
	}
	byUID := map[string][]framework.WatchEvent{}
	for _, ev := range printed {
		if ev.Coalesced > 0 {
			t.Errorf("%s: %s coalesces %d updates: the test reads as fast as the plugin prints, so nothing should be coalesced", name, ev, ev.Coalesced)
		}
		uid := uidOf(ev.Object)
		byUID[uid] = append(byUID[uid], ev)
	}
	// printedAt holds, per UID, the events printed as "TYPE
	// resourceVersion" (a DELETED event shows the last state, whose
	// resourceVersion an update may have shown before).
	printedAt := map[string]map[string]bool{}
	for uid, evs := range byUID {
		printedAt[uid] = map[string]bool{}
		lastRV := int64(-1)
		for i, ev := range evs {
			obj := kindName(ev.Object)
			rv := rvOf(ev.Object)
			printedAt[uid][ev.Type+" "+rv] = true
			s, ok := sent[uid][rv]
			switch {
			case !ok:
				t.Errorf("%s: %s printed %s at resourceVersion %s, a state the server never sent", name, obj, ev.Type, rv)
			case !reflect.DeepEqual(framework.WithoutBookkeeping(s.Object), framework.WithoutBookkeeping(ev.Object)):
				t.Errorf("%s: %s printed %s at resourceVersion %s as\n%s\nthe server sent\n%s", name, obj, ev.Type, rv, toJSON(framework.WithoutBookkeeping(ev.Object)), toJSON(framework.WithoutBookkeeping(s.Object)))
			}
			n, err := strconv.ParseInt(rv, 10, 64)
			if err != nil {
				t.Fatalf("%s: %s has resourceVersion %q, not a number", name, obj, rv)
			}
			switch {
			case ev.Type == "DELETED" && i != len(evs)-1:
				t.Errorf("%s: %s printed DELETED, then %s", name, obj, evs[i+1])
			case ev.Type == "DELETED" && !serverDeleted(server, uid):
				t.Errorf("%s: %s printed DELETED (finalStateUnknown=%v), but the server never deleted it", name, obj, ev.FinalStateUnknown)
			case ev.Type == "DELETED" && n < lastRV, ev.Type != "DELETED" && n <= lastRV:
				t.Errorf("%s: %s printed %s at resourceVersion %d after %d: twice or out of order", name, obj, ev.Type, n, lastRV)
			case ev.Type == "ADDED" && i != 0:
				t.Errorf("%s: %s printed ADDED after %s", name, obj, evs[i-1])
			case ev.Type == "MODIFIED" && i > 0:
				framework.CheckPatch(t, evs[i-1], ev, framework.Bookkeeping...)
			}
			lastRV = n
		}
	}
	// At each return, every live object's state then is printed.
	for outage, n := range r.returns {
		for uid, s := range serverFinal(server[:n]) {
			if s.deleted || printedState(byUID[uid], s.object) {
				continue
			}
			t.Errorf("%s: %s at resourceVersion %s, its state when the watch resumed after outage %d, was not printed", name, kindName(s.object), rvOf(s.object), outage+1)
		}
	}
	for _, d := range finalDiffs(serverFinal(server), printedFinal(printed)) {
		t.Errorf("%s: %s", name, d)
	}
	// Every state the server sent during a live span is printed, but for
	// updates of bookkeeping fields alone.
	previous := map[string]map[string]interface{}{}
	for i, ev := range server {
		uid := uidOf(ev.Object)
		state := framework.WithoutBookkeeping(ev.Object)
		bookkeepingOnly := ev.Type == watch.Modified && reflect.DeepEqual(previous[uid], state)
		previous[uid] = state
		if bookkeepingOnly || !inSpans(r.live, i) {
			continue
		}
		rv := rvOf(ev.Object)
		printedAsSent := printedAt[uid]["DELETED "+rv]
		if ev.Type != watch.Deleted {
			printedAsSent = printedAt[uid]["ADDED "+rv] || printedAt[uid]["MODIFIED "+rv]
		}
		if !printedAsSent {
			t.Errorf("%s: %s %s at resourceVersion %s, sent while the watch was connected and caught up, was not printed", name, ev.Type, kindName(ev.Object), rv)
		}
	}
}

// printedState reports whether one of evs shows obj, bookkeeping aside.
func printedState(evs []framework.WatchEvent, obj map[string]interface{}) bool {
	want := framework.WithoutBookkeeping(obj)
	for _, ev := range evs {
		if ev.Type != "DELETED" && reflect.DeepEqual(framework.WithoutBookkeeping(ev.Object), want) {
			return true
		}
	}
	return false
}

func inSpans(spans []span, i int) bool {
	for _, s := range spans {
		if i >= s.from && i < s.to {
			return true
		}
	}
	return false
}

func serverDeleted(events []framework.ServerEvent, uid string) bool {
	for _, ev := range events {
		if ev.Type == watch.Deleted && uidOf(ev.Object) == uid {
			return true
		}
	}
	return false
}

func uidOf(obj map[string]interface{}) string { return framework.NestedString(obj, "metadata", "uid") }

func rvOf(obj map[string]interface{}) string {
	return framework.NestedString(obj, "metadata", "resourceVersion")
}

func kindName(obj map[string]interface{}) string {
	return framework.NestedString(obj, "kind") + "/" + framework.NestedString(obj, "metadata", "name")
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
