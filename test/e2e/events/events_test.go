package events

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// settle bounds how long an answer that involves the whole cluster may take
// to agree with kubectl's: pods of other tests' namespaces may still be
// going away between the two reads.
const settle = 30 * time.Second

// eventually calls check until it returns "" or settle has passed, and fails
// the test with its last complaint.
func eventually(t *testing.T, check func() string) {
	t.Helper()
	deadline := time.Now().Add(settle)
	for {
		msg := check()
		if msg == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal(msg)
		}
		time.Sleep(2 * time.Second)
	}
}

// pendingNamespace makes a namespace with two pods no node can take and
// one that runs, and waits until kubectl lists the scheduler's events
// about each.
func pendingNamespace(t *testing.T, prefix string) string {
	t.Helper()
	ns := newNamespace(t, prefix)
	apply(t, ns, fmt.Sprintf(unschedulablePod, "pending-1"))
	apply(t, ns, fmt.Sprintf(unschedulablePod, "pending-2"))
	apply(t, ns, fmt.Sprintf(schedulablePod, "runs"))
	waitForEvent(t, ns, "pending-1", "FailedScheduling")
	waitForEvent(t, ns, "pending-2", "FailedScheduling")
	waitForEvent(t, ns, "runs", "Scheduled")
	return ns
}

// TestEventReasonEqualsKubectlGetEvents checks `query pods -A --index
// event.reason=R` against the pods that `kubectl get events -A
// --field-selector involvedObject.kind=Pod,reason=R` is about, for the
// scheduler's FailedScheduling and Scheduled, and event.type and
// event.message against the most recent event of each reason of each pod.
func TestEventReasonEqualsKubectlGetEvents(t *testing.T) {
	ns := pendingNamespace(t, "reason")
	for _, reason := range []string{"FailedScheduling", "Scheduled"} {
		t.Run(reason, func(t *testing.T) {
			eventually(t, func() string {
				events := getEvents(t, "-A", "--field-selector", "involvedObject.kind=Pod,reason="+reason)
				want := podsWithEvents(getPods(t, "-A"), events)
				got := namespacedNames(informer(t, nil, "query", "pods", "-A", "--index", "event.reason="+reason, "-o", customColumns).Stdout)
				if !slices.Equal(got, want) {
					return fmt.Sprintf("query pods -A --index event.reason=%s = %q, want %q (from kubectl get events)", reason, got, want)
				}
				return ""
			})
		})
	}
	wantIn := map[string][]string{"FailedScheduling": {ns + "/pending-1", ns + "/pending-2"}, "Scheduled": {ns + "/runs"}}
	for reason, keys := range wantIn {
		got := namespacedNames(informer(t, nil, "query", "pods", "-n", ns, "--index", "event.reason="+reason, "-o", customColumns).Stdout)
		if !slices.Equal(got, keys) {
			t.Errorf("query pods -n %s --index event.reason=%s = %q, want %q", ns, reason, got, keys)
		}
	}

	// event.type and event.message: the most recent event of each reason
	// of each pod of ns, computed from kubectl's events.
	events := getEvents(t, "-n", ns)
	pods := getPods(t, "-n", ns)
	latest := map[string]map[string]event{} // pod → reason → event
	for _, p := range pods {
		latest[p.Metadata.Name] = map[string]event{}
		for _, e := range events {
			if !about(e, p) {
				continue
			}
			cur, ok := latest[p.Metadata.Name][e.Reason]
			if !ok || e.lastSeen(t).After(cur.lastSeen(t)) {
				latest[p.Metadata.Name][e.Reason] = e
			}
		}
	}
	var warned []string
	for name, byReason := range latest {
		for _, e := range byReason {
			if e.Type == "Warning" {
				warned = append(warned, ns+"/"+name)
				break
			}
		}
	}
	sort.Strings(warned)
	if len(warned) == 0 {
		t.Fatalf("no pod of %s has a Warning event: %+v", ns, events)
	}
	got := namespacedNames(informer(t, nil, "query", "pods", "-n", ns, "--index", "event.type=Warning", "-o", customColumns).Stdout)
	if !slices.Equal(got, warned) {
		t.Errorf("query pods --index event.type=Warning = %q, want %q", got, warned)
	}

	table := informer(t, nil, "query", "pods", "-n", ns, "--index", "event.reason=FailedScheduling", "--group-by", "event.message").Stdout
	messages := map[string]int{}
	for _, byReason := range latest {
		if e, ok := byReason["FailedScheduling"]; ok {
			messages[strings.TrimSpace(e.Message)]++
		}
	}
	if len(messages) == 0 {
		t.Fatalf("no FailedScheduling message in %+v", events)
	}
	for message, count := range messages {
		if !hasGroupRow(table, message, count) {
			t.Errorf("query --group-by event.message has no row %q with count %d:\n%s", message, count, table)
		}
	}
}

// hasGroupRow reports whether a grouped table has a row of value with
// count objects.
func hasGroupRow(table, value string, count int) bool {
	for _, l := range strings.Split(table, "\n") {
		rest, ok := strings.CutPrefix(l, value)
		if !ok {
			continue
		}
		if f := strings.Fields(rest); len(f) == 1 && f[0] == strconv.Itoa(count) {
			return true
		}
	}
	return false
}

// TestGroupByEventReason checks `query pods --group-by event.reason`: a row
// per reason with the number of pods an event of that reason is about, by
// kubectl's events.
func TestGroupByEventReason(t *testing.T) {
	ns := pendingNamespace(t, "groupby")
	events := getEvents(t, "-n", ns)
	pods := getPods(t, "-n", ns)
	want := map[string]int{}
	for _, p := range pods {
		var reasons []string
		for _, e := range events {
			if about(e, p) {
				reasons = append(reasons, e.Reason)
			}
		}
		for _, r := range distinct(reasons) {
			want[r]++
		}
	}
	if want["FailedScheduling"] != 2 || want["Scheduled"] != 1 {
		t.Fatalf("kubectl's events of %s: %v, want 2 pods with FailedScheduling and 1 with Scheduled", ns, want)
	}
	table := informer(t, nil, "query", "pods", "-n", ns, "--group-by", "event.reason").Stdout
	for reason, count := range want {
		if !hasGroupRow(table, reason, count) {
			t.Errorf("query --group-by event.reason has no row %s with count %d:\n%s", reason, count, table)
		}
	}
}

// TestWatchWhereFailedSchedulingLetsThePodIn runs `watch pods --where
// event.reason=FailedScheduling` over a pod no node can take, held back from
// the scheduler by a scheduling gate, and a pod that runs: when the test
// removes the gate, the scheduler tries the pod and reports
// FailedScheduling, and the pod enters the watch; the pod that runs, whose
// only event is Scheduled, does not.
//
// The pod enters either through the event ("entered query: event/NAME
// changed") or, when the watch handles the pod's own change (the gate's
// removal) after the event is cached, through that change ("entered
// query"): both say it entered once its event existed.
func TestWatchWhereFailedSchedulingLetsThePodIn(t *testing.T) {
	ns := newNamespace(t, "watch")
	apply(t, ns, fmt.Sprintf(schedulablePod, "runs"))
	apply(t, ns, fmt.Sprintf(gatedPod, "pending"))
	waitForEvent(t, ns, "runs", "Scheduled")
	p := framework.StartWatch(t, "pods", "-n", ns, "--where", "event.reason=FailedScheduling", "-o", "json")
	kubectl(t, "patch", "pod", "pending", "-n", ns, "--type=json", "-p", `[{"op":"remove","path":"/spec/schedulingGates"}]`)
	ev := framework.NextEvent(t, p, waitTimeout)
	if ev.Name() != "pending" || ev.Type != "ADDED" {
		t.Fatalf("watch --where event.reason=FailedScheduling printed %s first, want pending ADDED", ev)
	}
	var names []string
	for _, e := range getEvents(t, "-n", ns, "--field-selector", "involvedObject.kind=Pod,involvedObject.name=pending,reason=FailedScheduling") {
		names = append(names, e.Metadata.Name)
	}
	if len(names) == 0 {
		t.Fatalf("the pod entered the watch, but kubectl lists no FailedScheduling event about it")
	}
	switch cause, ok := strings.CutPrefix(ev.Note, "entered query: event/"); {
	case ok && slices.Contains(names, strings.TrimSuffix(cause, " changed")):
	case ev.Note == "entered query":
	default:
		t.Errorf("the pod entered with note %q, want \"entered query\" or \"entered query: event/NAME changed\" naming one of kubectl's FailedScheduling events %q", ev.Note, names)
	}
}

// TestShowEventsMatchesDescribe compares query's --show-events columns with
// the latest event `kubectl describe pod` prints, ages aside.
func TestShowEventsMatchesDescribe(t *testing.T) {
	ns := pendingNamespace(t, "show")
	table := informer(t, nil, "query", "pods", "-n", ns, "--show-events").Stdout
	rows := tableRows(t, table, "NAME", "EVENT TYPE", "EVENT REASON", "EVENT AGE", "EVENT FROM", "EVENT MESSAGE")
	if len(rows) != 3 {
		t.Fatalf("query --show-events printed %d rows, want 3:\n%s", len(rows), table)
	}
	for _, row := range rows {
		name := row[0]
		described := describedEvents(t, kubectl(t, "describe", "pod", name, "-n", ns))
		if len(described) == 0 {
			t.Fatalf("kubectl describe pod %s lists no events", name)
		}
		last := described[len(described)-1]
		got := []string{row[1], row[2], row[4], row[5]}
		want := []string{last[0], last[1], last[3], last[4]}
		if !slices.Equal(got, want) {
			t.Errorf("pod %s: --show-events = %q, want %q (kubectl describe's latest event, age aside)", name, got, want)
		}
		if row[3] == "" || row[3] == "<none>" {
			t.Errorf("pod %s: EVENT AGE is %q", name, row[3])
		}
	}
}

// tableRows splits a table into the cells of the named columns, reading
// each column from where its header starts to where the header's next
// column starts (the last to the end of the line).
func tableRows(t *testing.T, table string, headers ...string) [][]string {
	t.Helper()
	all := strings.Split(strings.TrimRight(table, "\n"), "\n")
	header := all[0]
	starts := make([]int, len(headers))
	ends := make([]int, len(headers))
	for i, h := range headers {
		starts[i] = strings.Index(header, h)
		if starts[i] < 0 {
			t.Fatalf("no column %s in %q", h, header)
		}
		ends[i] = nextColumn(header, starts[i]+len(h))
	}
	var rows [][]string
	for _, line := range all[1:] {
		row := make([]string, len(headers))
		for i, start := range starts {
			end := len(line)
			if ends[i] >= 0 {
				end = min(ends[i], len(line))
			}
			if start < end {
				row[i] = strings.TrimSpace(line[start:end])
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// nextColumn returns where the header's next column starts after from (a
// word after two or more spaces), or -1.
func nextColumn(header string, from int) int {
	if i := strings.Index(header[from:], "  "); i >= 0 {
		rest := header[from+i:]
		trimmed := strings.TrimLeft(rest, " ")
		if trimmed != "" {
			return from + i + len(rest) - len(trimmed)
		}
	}
	return -1
}

// describedEvents returns the rows of the Events section of `kubectl
// describe`: Type, Reason, Age, From and Message, in the order printed.
func describedEvents(t *testing.T, out string) [][]string {
	t.Helper()
	all := strings.Split(out, "\n")
	for i, l := range all {
		if strings.TrimSpace(l) != "Events:" || i+2 >= len(all) {
			continue
		}
		return tableRows(t, strings.Join(nonEmpty(all[i+1:i+2], all[i+3:]), "\n"), "Type", "Reason", "Age", "From", "Message")
	}
	return nil
}

// nonEmpty returns header followed by the lines of rest up to the first
// blank one.
func nonEmpty(header, rest []string) []string {
	out := slices.Clone(header)
	for _, l := range rest {
		if strings.TrimSpace(l) == "" {
			break
		}
		out = append(out, l)
	}
	return out
}

// TestWarmCacheAnswersEventReason runs the FailedScheduling query through
// a warm cache: it answers as the command does without it, and the cache
// then holds the Events it read.
func TestWarmCacheAnswersEventReason(t *testing.T) {
	ns := pendingNamespace(t, "warm")
	runtime, err := os.MkdirTemp("", "events-xdg-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(runtime, 0o700); err != nil {
		t.Fatal(err)
	}
	env := []string{"XDG_RUNTIME_DIR=" + runtime, "KUBECACHEDIR=" + filepath.Join(runtime, "kubecache")}
	t.Cleanup(func() {
		framework.Run(t, framework.Cmd{Args: []string{"informer", "cache", "stop", "--all"}, Env: env})
		os.RemoveAll(runtime)
	})
	informer(t, env, "cache", "start")
	args := []string{"query", "pods", "-n", ns, "--index", "event.reason=FailedScheduling", "-o", "name"}
	warm := informer(t, env, args...)
	direct := informer(t, env, append(args, "--cache", "off")...)
	want := []string{"pod/pending-1", "pod/pending-2"}
	if got := lines(warm.Stdout); !slices.Equal(got, want) {
		t.Errorf("warm query %s = %q, want %q", strings.Join(args, " "), got, want)
	}
	if warm.Stdout != direct.Stdout {
		t.Errorf("the warm cache's answer differs from the direct one:\n--- warm:\n%s--- direct:\n%s", warm.Stdout, direct.Stdout)
	}
	status := informer(t, env, "cache", "status", "-o", "json")
	var caches []struct {
		Status *struct {
			Caches []struct {
				Type string `json:"type"`
			} `json:"caches"`
		} `json:"status"`
	}
	if err := json.Unmarshal([]byte(status.Stdout), &caches); err != nil {
		t.Fatalf("cache status -o json: %v\n%s", err, status.Stdout)
	}
	var types []string
	for _, c := range caches {
		if c.Status != nil {
			for _, tc := range c.Status.Caches {
				types = append(types, tc.Type)
			}
		}
	}
	if !slices.ContainsFunc(types, func(s string) bool { return strings.HasPrefix(s, "events") }) {
		t.Errorf("the warm cache holds %q after the query, want events among them", types)
	}
}
