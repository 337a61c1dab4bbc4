package main

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestReadSoakStamps(t *testing.T) {
	path := filepath.Join(t.TempDir(), "stamps")
	data := "1000000000 label ns/a 10\n" +
		"2000000000 delete ns/b -\n" +
		"3000000000 create ns/b 12\n"
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := readSoakStamps(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []soakStamp{
		{at: time.Unix(1, 0), op: "label", key: "ns/a", rv: 10},
		{at: time.Unix(2, 0), op: "delete", key: "ns/b"},
		{at: time.Unix(3, 0), op: "create", key: "ns/b", rv: 12},
	}
	if !slices.Equal(s, want) {
		t.Errorf("read %v, want %v", s, want)
	}
	if err := os.WriteFile(path, []byte("1 label ns/a x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := readSoakStamps(path); err == nil {
		t.Error("a resourceVersion that is not a number was read without an error")
	}
}

func TestSoakSchedule(t *testing.T) {
	tests := []struct {
		duration, every time.Duration
		want            int
		last            time.Duration
	}{
		{30 * time.Minute, 4 * time.Minute, 7, 28 * time.Minute},
		{6 * time.Minute, 2 * time.Minute, 2, 4 * time.Minute},
		{time.Minute, 2 * time.Minute, 0, 0},
	}
	for _, tt := range tests {
		got := soakSchedule(tt.duration, tt.every)
		if len(got) != tt.want || len(got) > 0 && got[len(got)-1] != tt.last {
			t.Errorf("soakSchedule(%s, %s) = %v, want %d outages, the last at %s", tt.duration, tt.every, got, tt.want, tt.last)
		}
	}
}

func TestEnvDurations(t *testing.T) {
	t.Setenv("BENCH_TEST_DURATIONS", "2s, 8s,14s")
	var errs []error
	got := envDurations("BENCH_TEST_DURATIONS", nil, &errs)
	if len(errs) > 0 || !slices.Equal(got, []time.Duration{2 * time.Second, 8 * time.Second, 14 * time.Second}) {
		t.Errorf("got %v, %v", got, errs)
	}
	t.Setenv("BENCH_TEST_DURATIONS", "2s,-1s")
	if envDurations("BENCH_TEST_DURATIONS", nil, &errs); len(errs) != 1 {
		t.Errorf("a negative duration gave errors %v", errs)
	}
}

// soakScenario is one outage (stopped at 100 s, ready at 110 s) around
// churn of pods a–h, a watch that prints it with one fault of each kind,
// and a watch that never resumed.
func soakScenario() soakInput {
	at := func(sec float64) time.Time { return time.Unix(0, 0).Add(time.Duration(sec * float64(time.Second))) }
	st := func(sec float64, op, key string, rv uint64) soakStamp {
		return soakStamp{at: at(sec), op: op, key: "ns/" + key, rv: rv}
	}
	ev := func(sec float64, typ, key string, rv uint64) loadEvent {
		return loadEvent{at: at(sec), typ: typ, key: "ns/" + key, rv: rv}
	}
	coalesced := ev(122.01, "MODIFIED", "h", 51)
	coalesced.coalesced = 1
	// The state b's delete writes first (19: after its 18, before its
	// create's 20) is the server's, though churn stamps no 19.
	deleting := ev(140.005, "MODIFIED", "b", 19)
	deleting.deleting = true
	events := []loadEvent{
		ev(10.01, "MODIFIED", "a", 10),
		ev(20.01, "MODIFIED", "b", 11),
		ev(50.01, "MODIFIED", "c", 12),
		// The relist after the outage: a's 14, d's 13 and e's recreate
		// (delete, create 17) merged.
		ev(111.5, "MODIFIED", "a", 16),
		ev(111.5, "MODIFIED", "d", 15),
		ev(111.6, "MODIFIED", "e", 17),
		ev(120.01, "MODIFIED", "b", 18),
		// c's 19 is never printed: lost.
		deleting,
		ev(140.01, "DELETED", "b", 19),
		ev(140.02, "ADDED", "b", 20),
		coalesced, // h's 50 merged into it
		ev(150.01, "MODIFIED", "f", 21),
		ev(150.02, "MODIFIED", "f", 21), // doubled
		ev(152, "MODIFIED", "a", 14),    // reordered
		ev(153, "MODIFIED", "g", 99),    // invented state
		ev(154, "DELETED", "c", 12),     // invented delete
	}
	outage := soakOutage{kill: true, hold: 2 * time.Second, stopAt: at(100), stopped: at(100.2), startAt: at(102.2), readyAt: at(110)}
	return soakInput{
		stamps: []soakStamp{
			st(10, "label", "a", 10), st(20, "label", "b", 11), st(50, "status", "c", 12),
			st(99, "label", "d", 13), st(102, "label", "a", 14), st(103, "annotation", "d", 15),
			st(105, "label", "a", 16), st(106, "delete", "e", 0), st(106, "create", "e", 17),
			st(120, "label", "b", 18), st(121, "label", "h", 50), st(122, "label", "h", 51),
			st(130, "label", "c", 19), st(140, "delete", "b", 0), st(140.01, "create", "b", 20),
			st(150, "status", "f", 21),
		},
		initial: map[string]uint64{"ns/a": 1, "ns/b": 2, "ns/c": 3, "ns/d": 4, "ns/e": 5, "ns/f": 6, "ns/h": 7},
		final:   map[string]uint64{"ns/a": 16, "ns/b": 20, "ns/c": 19, "ns/d": 15, "ns/e": 17, "ns/f": 21, "ns/h": 51},
		outages: []soakOutage{outage},
		watches: []soakWatchLog{
			{events: events, stderr: []timedLine{
				{at: at(1), text: "kubectl-informer: 7 pods; watching for changes"},
				{at: at(100.5), text: "warning: watch of pods failed (retrying): connection refused"},
				{at: at(111), text: soakResumedLine},
			}},
			{events: events[:3], stderr: []timedLine{{at: at(100.5), text: "warning: " + soakFailedLine + " (retrying): EOF"}}},
		},
		end: at(200),
	}
}

func TestCheckSoak(t *testing.T) {
	in := soakScenario()
	c := checkSoak(in)
	if c.changes != 14 || c.deletes != 2 || len(c.changesDown) != 1 || c.changesDown[0] != 5 {
		t.Errorf("changes %d, deletes %d, while down %v; want 14, 2, [5]", c.changes, c.deletes, c.changesDown)
	}
	w := c.watches[0]
	if w.events != 16 || w.resumes != 1 {
		t.Errorf("events %d, resumes %d; want 16, 1", w.events, w.resumes)
	}
	if w.periods[0] != (soakCount{}) {
		t.Errorf("before the outage: %+v, want nothing", w.periods[0])
	}
	want := soakCount{merged: 1, coalesced: 1, lost: 1, doubled: 1, reordered: 1, invented: 2}
	if w.periods[1] != want {
		t.Errorf("from the outage on: %+v, want %+v", w.periods[1], want)
	}
	if w.total().faults() != 5 {
		t.Errorf("faults %d, want 5", w.total().faults())
	}
	o := w.outages[0]
	if o.failed != in.watches[0].stderr[1].at || o.resumed != in.watches[0].stderr[2].at {
		t.Errorf("failed %s, resumed %s", clock(o.failed), clock(o.resumed))
	}
	if o.behind != 3 || o.pending != 0 || o.caughtUp != in.watches[0].events[5].at {
		t.Errorf("behind %d, pending %d, caught up %s; want 3, 0, at e's relist line", o.behind, o.pending, clock(o.caughtUp))
	}
	if o.printedDown != 0 || o.printedCatchUp != 3 || o.printedAfter != 10 {
		t.Errorf("printed %d / %d / %d, want 0 / 3 / 10", o.printedDown, o.printedCatchUp, o.printedAfter)
	}
	// a (14, not 16), c (DELETED, not 19), g (never on the server).
	if w.finalDiffs != 3 {
		t.Errorf("final diffs %d, want 3: %v", w.finalDiffs, w.examples)
	}
	for _, want := range []string{"ns/c: label at resourceVersion 19", "ns/g: MODIFIED at resourceVersion 99", "ns/c: DELETED at resourceVersion 12", "ns/f: MODIFIED at resourceVersion 21 printed again"} {
		if !slices.ContainsFunc(w.examples, func(e string) bool { return strings.HasPrefix(e, want) }) {
			t.Errorf("no example starts with %q: %q", want, w.examples)
		}
	}

	// The watch that never said it resumed never caught up; what it
	// missed from the stop on counts as merged (it was blind to the
	// end), and its final states differ.
	w2 := c.watches[1]
	if o := w2.outages[0]; !o.resumed.IsZero() || !o.caughtUp.IsZero() || o.pending != 3 {
		t.Errorf("the second watch: resumed %s, caught up %s, pending %d", clock(o.resumed), clock(o.caughtUp), o.pending)
	}
	if w2.total().lost != 0 || w2.finalDiffs != 7 {
		t.Errorf("the second watch: %+v, %d final diffs; want no loss, 7 final diffs", w2.total(), w2.finalDiffs)
	}
}

func TestCheckSoakDeletingState(t *testing.T) {
	in := soakScenario()
	in.watches = in.watches[:1]
	// A deletionTimestamp state after b's create is not its delete's.
	for i, ev := range in.watches[0].events {
		if ev.deleting {
			in.watches[0].events[i].rv = 25
		}
	}
	if got := checkSoak(in).watches[0].periods[1].invented; got != 3 {
		t.Errorf("invented %d, want 3", got)
	}
}

func TestCheckSoakDeletePrintedBeforeItsStamp(t *testing.T) {
	in := soakScenario()
	in.watches = in.watches[:1]
	// churn read the response to b's delete 3 s after the watch printed
	// it, and deleted b again later: each DELETED is its incarnation's.
	at := func(sec float64) time.Time { return time.Unix(0, 0).Add(time.Duration(sec * float64(time.Second))) }
	for i, s := range in.stamps {
		if s.key == "ns/b" && s.op == "delete" {
			in.stamps[i].at = at(143)
		}
	}
	in.stamps = append(in.stamps,
		soakStamp{at: at(160), op: "delete", key: "ns/b"}, soakStamp{at: at(160.01), op: "create", key: "ns/b", rv: 30})
	in.final["ns/b"] = 30
	in.watches[0].events = append(in.watches[0].events,
		loadEvent{at: at(160.001), typ: "DELETED", key: "ns/b", rv: 29},
		loadEvent{at: at(160.02), typ: "ADDED", key: "ns/b", rv: 30})
	w := checkSoak(in).watches[0]
	if p := w.periods[1]; p.lost != 1 || p.invented != 2 || p.doubled != 1 {
		t.Errorf("%+v, want only the scenario's faults (c's lost change, g's and c's invented states, f's doubled)", p)
	}
	// A second DELETED of one incarnation is doubled.
	in.watches[0].events = append(in.watches[0].events, loadEvent{at: at(161), typ: "DELETED", key: "ns/b", rv: 29})
	if got := checkSoak(in).watches[0].periods[1].doubled; got != 2 {
		t.Errorf("doubled %d, want 2", got)
	}
}

func TestCheckSoakDeleteWhileLive(t *testing.T) {
	in := soakScenario()
	in.watches = in.watches[:1]
	// Without b's DELETED line, its live delete is lost.
	var events []loadEvent
	for _, ev := range in.watches[0].events {
		if !(ev.key == "ns/b" && ev.typ == "DELETED") {
			events = append(events, ev)
		}
	}
	in.watches[0].events = events
	if got := checkSoak(in).watches[0].periods[1].lost; got != 2 {
		t.Errorf("lost %d, want 2 (c's change and b's delete)", got)
	}
}

func TestSoakSection(t *testing.T) {
	in := soakScenario()
	r := &report{soak: &soakResult{pods: 8, clients: 2, rate: 200, duration: 3 * time.Minute, every: time.Minute,
		holds: []time.Duration{2 * time.Second}, outages: in.outages, check: checkSoak(in), churnLine: "seed: churned 8 pods"}}
	md := r.soakSection()
	for _, want := range []string{
		"## Soak: watches through API server restarts (8 pods, 2 watches through one warm cache, 3m0s)\n",
		"| before the first | – | – | – | – | – | – | – | – | – | – | – | 0 | 0 | 0 | 0 | 0 | 0 |\n",
		"| 1 | SIGKILL | 0.2 | 9.8 | 7.8 | 5 | 1.0 / never | never (3 pods) | 3 | 0 | 3 / 0 | 10 / 0 | 1 / 11 | 1 | 1 | 1 | 1 | 2 |\n",
		"| **all 1** | | | 9.8 | | 5 | never 1 times | never 1 times | | | | 16 / 3 | 1 / 11 | 1 | 1 | 1 | 1 | 2 |\n",
		"- watch 1: **3 pods' last printed states differ from the server's final ones**; `watch of pods resumed; changes made meanwhile follow` lines on its stderr: 1, for 1 outages.\n",
		"**1 lost, 1 doubled, 1 reordered, 2 invented, 10 final states differ, 1 resumes and 1 catch-ups never came**",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the section lacks %q:\n%s", want, md)
		}
	}
	if i := sectionIndex(strings.TrimPrefix(strings.SplitN(md, "\n", 2)[0], "## ")); reportSections[i].steps[0] != "soak" {
		t.Errorf("the heading is taken for section %q", reportSections[i].heading)
	}
}

func TestPerWatch(t *testing.T) {
	ws := []soakWatchCheck{{events: 3}, {events: 3}}
	f := func(w soakWatchCheck) string { return strings.Repeat("x", w.events) }
	if got := perWatch(ws, f); got != "xxx" {
		t.Errorf("perWatch of equal figures = %q", got)
	}
	ws[1].events = 1
	if got := perWatch(ws, f); got != "xxx / x" {
		t.Errorf("perWatch of different figures = %q", got)
	}
}

func TestSoakGone(t *testing.T) {
	in := soakScenario()
	// The server went (both watches said so at 100.5 s) well before
	// stop-apiserver returned, as after a SIGTERM.
	in.outages[0].stopped = in.outages[0].stopAt.Add(12 * time.Second)
	c := checkSoak(in)
	if want := in.watches[0].stderr[1].at; !c.gone[0].Equal(want) {
		t.Errorf("gone at %s, want the first failed line's %s", clock(c.gone[0]), clock(want))
	}
	if c.changesDown[0] != 5 {
		t.Errorf("changes while down %d, want 5", c.changesDown[0])
	}
	// Without a failed line, it went when stop-apiserver returned.
	in.watches[0].stderr = in.watches[0].stderr[2:]
	in.watches[1].stderr = nil
	if c := checkSoak(in); !c.gone[0].Equal(in.outages[0].stopped) {
		t.Errorf("gone at %s, want stop-apiserver's return %s", clock(c.gone[0]), clock(in.outages[0].stopped))
	}
}

// TestReadSoakDir: what a run keeps reads back as the same input, so
// soak-check prints the run's account.
func TestReadSoakDir(t *testing.T) {
	in := soakScenario()
	dir := t.TempDir()
	var stamps strings.Builder
	for _, s := range in.stamps {
		rv := "-"
		if s.op != "delete" {
			rv = fmt.Sprint(s.rv)
		}
		fmt.Fprintf(&stamps, "%d %s %s %s\n", s.at.UnixNano(), s.op, s.key, rv)
	}
	if err := os.WriteFile(filepath.Join(dir, "soak-stamps.txt"), []byte(stamps.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := writeSoakState(dir, in); err != nil {
		t.Fatal(err)
	}
	for i, w := range in.watches {
		if err := writeSoakLog(dir, i+1, w); err != nil {
			t.Fatal(err)
		}
	}
	got, err := readSoakDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := checkSoak(in)
	// The kept files end with the last line; the run ended later.
	in.end = got.end
	if !reflect.DeepEqual(checkSoak(got), checkSoak(in)) {
		t.Errorf("read back, the account is\n%+v\nwant\n%+v", checkSoak(got), want)
	}
	if len(got.watches) != 2 || len(got.outages) != 1 || len(got.stamps) != len(in.stamps) || len(got.initial) != len(in.initial) {
		t.Errorf("read %d watches, %d outages, %d stamps, %d pods", len(got.watches), len(got.outages), len(got.stamps), len(got.initial))
	}
}
