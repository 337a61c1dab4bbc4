package main

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The soak step's accounting (issue 41): what each watch printed around
// each outage of its API server, checked against churn's stamps and the
// server's states before and after. Everything here is pure; soak.go runs
// the step and collects its input.

// The lines a watch prints on stderr when its watch of pods breaks and
// when it has resumed (pkg/plugin's watchErrorReporter; through a warm
// cache the cache passes them on).
const (
	soakFailedLine  = "watch of pods failed"
	soakResumedLine = "watch of pods resumed; changes made meanwhile follow"
)

// soakStamp is one line of churn's --stamp file, in the file's order.
type soakStamp struct {
	at  time.Time
	op  string // label, annotation, status, create or delete
	key string // namespace/name
	rv  uint64 // 0 for a delete
}

// readSoakStamps reads churn's "<unix-nanos> <op> <ns>/<name> <rv>" lines,
// each kept with its time and op; a delete's resourceVersion is "-".
func readSoakStamps(path string) ([]soakStamp, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []soakStamp
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		fields := strings.Fields(sc.Text())
		if len(fields) != 4 {
			return out, fmt.Errorf("%s:%d: want 4 fields, got %q", path, n, sc.Text())
		}
		nanos, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return out, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		s := soakStamp{at: time.Unix(0, nanos), op: fields[1], key: fields[2]}
		if s.op != "delete" {
			if s.rv, err = strconv.ParseUint(fields[3], 10, 64); err != nil {
				return out, fmt.Errorf("%s:%d: resourceVersion: %w", path, n, err)
			}
		}
		out = append(out, s)
	}
	return out, sc.Err()
}

// soakOutage is one stop and start of the primary API server as the step
// made it.
type soakOutage struct {
	kill bool          // SIGKILL, else SIGTERM
	hold time.Duration // how long it stayed stopped before start-apiserver
	// stopAt is when stop-apiserver was run, stopped when it returned
	// (the server's process gone: after SIGTERM the server closes its
	// connections at once, but its process may take the tool's 10 s grace
	// and a SIGKILL), startAt when start-apiserver was run, readyAt when
	// it returned (the server answered /readyz).
	stopAt, stopped, startAt, readyAt time.Time
}

// timedLine is a line of a watch's stderr with its arrival.
type timedLine struct {
	at   time.Time
	text string
}

// soakWatchLog is what one watch printed: its events (stdout) and its
// stderr lines, each in arrival order.
type soakWatchLog struct {
	events []loadEvent
	stderr []timedLine
}

// soakInput is everything the accounting reads.
type soakInput struct {
	stamps []soakStamp
	// initial and final are every pod's resourceVersion by namespace/name,
	// listed through the second API server after the watches synced and
	// before churn, and after churn once every watch was quiet.
	initial, final map[string]uint64
	outages        []soakOutage
	watches        []soakWatchLog
	// end is when the last watch was stopped.
	end time.Time
}

// soakCount is one watch's count of each kind of fault, in one period.
type soakCount struct {
	// merged are stamped changes not printed because they were made
	// while the watch was blind (after the last event it printed before
	// the outage, before it said it resumed): the relist printed the
	// object's later state. coalesced are those a later event of the
	// object says it merged ("coalesced"); lost the others, and deletes
	// made while the watch was live that it never printed.
	merged, coalesced, lost int
	// doubled: a resourceVersion printed again for an object (or the one
	// it had when the watch synced); reordered: an object's
	// resourceVersion going back; invented: a state the server never had
	// for the object, or a DELETED beyond the deletes churn made.
	doubled, reordered, invented int
}

func (c *soakCount) add(o soakCount) {
	c.merged += o.merged
	c.coalesced += o.coalesced
	c.lost += o.lost
	c.doubled += o.doubled
	c.reordered += o.reordered
	c.invented += o.invented
}

// faults is what must be zero: lost, doubled, reordered and invented.
func (c soakCount) faults() int { return c.lost + c.doubled + c.reordered + c.invented }

// soakWatchOutage is one watch around one outage.
type soakWatchOutage struct {
	// failed is when the watch said its watch of pods failed, resumed
	// when it said it resumed; zero if it did not.
	failed, resumed time.Time
	// caughtUp is when the watch had printed, for every object changed
	// after the last event it printed before the outage and before the
	// server was ready again, that change or a later state; zero if it
	// never did, and then pending objects were never caught up.
	caughtUp time.Time
	pending  int
	// behind is how many objects had to be caught up.
	behind int
	// printedDown are the events printed while the server was down
	// (from when it went until it was back: ready, or the watch's resumed
	// line if that came first), printedCatchUp from then to caught up,
	// printedAfter from then to the next outage (or the end).
	printedDown, printedCatchUp, printedAfter int
}

// soakWatchCheck is one watch's whole account.
type soakWatchCheck struct {
	events  int
	outages []soakWatchOutage
	// periods[0] is before the first outage; periods[i] from outage i's
	// stop to the next one's.
	periods []soakCount
	// resumes counts the resumed lines in all; finalDiffs the pods whose
	// last printed state is not the server's final one.
	resumes    int
	finalDiffs int
	examples   []string
}

// total is the watch's counts over every period.
func (w soakWatchCheck) total() soakCount {
	var t soakCount
	for _, p := range w.periods {
		t.add(p)
	}
	return t
}

// soakCheck is the account of every watch, with what is the same for all.
type soakCheck struct {
	watches []soakWatchCheck
	// gone is when each outage's server went, as the watches saw it: the
	// first "watch of pods failed" line of any watch after stop-apiserver
	// was run, or when it returned if that came first. The outage's spans
	// start there.
	gone []time.Time
	// changesDown are the stamped changes and deletes made while the
	// server was down, per outage.
	changesDown []int
	changes     int // stamped changes (not deletes)
	deletes     int
}

const soakMaxExamples = 10

// checkSoak does the accounting of every watch.
func checkSoak(in soakInput) soakCheck {
	c := soakCheck{changesDown: make([]int, len(in.outages)), gone: soakGone(in)}
	for _, s := range in.stamps {
		if s.op == "delete" {
			c.deletes++
		} else {
			c.changes++
		}
		for i, o := range in.outages {
			if !s.at.Before(c.gone[i]) && s.at.Before(o.readyAt) {
				c.changesDown[i]++
			}
		}
	}
	for _, w := range in.watches {
		c.watches = append(c.watches, checkSoakWatch(in, c.gone, w))
	}
	return c
}

// soakGone is soakCheck.gone.
func soakGone(in soakInput) []time.Time {
	gone := make([]time.Time, len(in.outages))
	for i, o := range in.outages {
		gone[i] = o.stopped
		for _, w := range in.watches {
			for _, l := range w.stderr {
				if !l.at.Before(o.stopAt) && l.at.Before(gone[i]) && strings.Contains(l.text, soakFailedLine) {
					gone[i] = l.at
				}
			}
		}
	}
	return gone
}

// stampsByKey are one key's stamps in the file's order (the order churn's
// one worker per pod got its responses).
func stampsByKey(stamps []soakStamp) map[string][]soakStamp {
	by := map[string][]soakStamp{}
	for _, s := range stamps {
		by[s.key] = append(by[s.key], s)
	}
	return by
}

func checkSoakWatch(in soakInput, gone []time.Time, log soakWatchLog) soakWatchCheck {
	w := soakWatchCheck{events: len(log.events), periods: make([]soakCount, len(in.outages)+1), outages: make([]soakWatchOutage, len(in.outages))}
	// Every example is kept (up to a bound), then sorted and cut to
	// soakMaxExamples, so that which are shown does not depend on map
	// order.
	example := func(format string, args ...any) {
		if len(w.examples) < 100*soakMaxExamples {
			w.examples = append(w.examples, fmt.Sprintf(format, args...))
		}
	}
	// period is the row of a change or a line at t: 0 before the first
	// outage's server went, i from outage i's to the next one's.
	period := func(t time.Time) int {
		p := 0
		for i := range in.outages {
			if !t.Before(gone[i]) {
				p = i + 1
			}
		}
		return p
	}
	// The stderr lines of each outage: from its stop-apiserver (a watch
	// may see the server go before that returns) to the next one's.
	for _, l := range log.stderr {
		if strings.Contains(l.text, soakResumedLine) {
			w.resumes++
		}
		p := 0
		for i, o := range in.outages {
			if !l.at.Before(o.stopAt) {
				p = i + 1
			}
		}
		if p == 0 {
			continue
		}
		o := &w.outages[p-1]
		switch {
		case strings.Contains(l.text, soakFailedLine) && o.failed.IsZero():
			o.failed = l.at
		case strings.Contains(l.text, soakResumedLine) && o.resumed.IsZero():
			o.resumed = l.at
		}
	}
	// before[i] is the highest resourceVersion printed before outage i's
	// stop-apiserver returned: what the server had sent by then (a watch
	// stream is in resourceVersion order; lines printed after the server
	// went are of what it sent before).
	before := make([]uint64, len(in.outages))
	var high uint64
	next := 0
	for _, ev := range log.events {
		for next < len(in.outages) && !ev.at.Before(in.outages[next].stopped) {
			before[next] = high
			next++
		}
		if ev.typ != "DELETED" {
			high = max(high, ev.rv)
		}
	}
	for ; next < len(in.outages); next++ {
		before[next] = high
	}
	resumedBy := func(i int) time.Time {
		if r := w.outages[i].resumed; !r.IsZero() {
			return r
		}
		return in.end // never resumed: blind to the end
	}
	// blindIn is the outage whose blind span holds a change of
	// resourceVersion rv made at at, or -1: made after the last event
	// printed before the outage and before the watch said it resumed.
	blindIn := func(at time.Time, rv uint64) int {
		for i := range in.outages {
			if rv > before[i] && at.Before(resumedBy(i)) {
				return i
			}
		}
		return -1
	}

	byKey := map[string][]int{}
	for i, ev := range log.events {
		byKey[ev.key] = append(byKey[ev.key], i)
	}
	stamps := stampsByKey(in.stamps)
	valid := map[string]map[uint64]bool{}
	for key, ss := range stamps {
		valid[key] = map[uint64]bool{}
		for _, s := range ss {
			if s.op != "delete" {
				valid[key][s.rv] = true
			}
		}
	}
	// deleting reports whether rv can be the state a delete of churn's
	// wrote before removing the pod (deletionTimestamp set): after the
	// pod's stamp before that delete, before the create after it.
	deleting := func(key string, rv uint64) bool {
		ss := stamps[key]
		for j, s := range ss {
			if s.op != "delete" {
				continue
			}
			prev, ok := in.initial[key]
			if j > 0 {
				prev, ok = ss[j-1].rv, true
			}
			if ok && rv > prev && (j+1 == len(ss) || rv < ss[j+1].rv) {
				return true
			}
		}
		return false
	}

	// Each object's printed events: doubled, reordered, invented states.
	for key, idx := range byKey {
		last, synced := in.initial[key]
		seen := map[uint64]bool{}
		if synced {
			seen[last] = true
		}
		for _, i := range idx {
			ev := log.events[i]
			p := period(ev.at)
			if ev.typ == "DELETED" {
				if ev.rv < last {
					w.periods[p].reordered++
					example("%s: DELETED at resourceVersion %d after %d (printed %s)", key, ev.rv, last, clock(ev.at))
				}
				continue
			}
			switch {
			case seen[ev.rv]:
				w.periods[p].doubled++
				example("%s: %s at resourceVersion %d printed again (%s)", key, ev.typ, ev.rv, clock(ev.at))
			case ev.rv < last:
				w.periods[p].reordered++
				example("%s: %s at resourceVersion %d after %d (printed %s)", key, ev.typ, ev.rv, last, clock(ev.at))
			}
			if !valid[key][ev.rv] && !(synced && ev.rv == in.initial[key]) && !(ev.deleting && deleting(key, ev.rv)) {
				w.periods[p].invented++
				example("%s: %s at resourceVersion %d, a state churn never stamped for it (printed %s)", key, ev.typ, ev.rv, clock(ev.at))
			}
			seen[ev.rv] = true
			last = max(last, ev.rv)
		}
	}

	// Each stamped change not printed: coalesced, merged or lost.
	for key, ss := range stamps {
		idx := byKey[key]
		printed := map[uint64]bool{}
		budget := map[int]int{} // event index → coalesced left
		for _, i := range idx {
			if ev := log.events[i]; ev.typ != "DELETED" {
				printed[ev.rv] = true
				budget[i] = ev.coalesced
			}
		}
		for _, s := range ss {
			if s.op == "delete" || printed[s.rv] {
				continue
			}
			// The object's next printed state after this change.
			later := -1
			for _, i := range idx {
				if ev := log.events[i]; ev.typ != "DELETED" && ev.rv > s.rv {
					later = i
					break
				}
			}
			switch o := blindIn(s.at, s.rv); {
			case later >= 0 && budget[later] > 0:
				budget[later]--
				w.periods[period(s.at)].coalesced++
			case o >= 0:
				w.periods[o+1].merged++
			default:
				w.periods[period(s.at)].lost++
				example("%s: %s at resourceVersion %d (stamped %s) never printed", key, s.op, s.rv, clock(s.at))
			}
		}
	}

	// Deletes, by the object's incarnations: churn's recreate deletes a
	// pod and creates it anew, so each create's resourceVersion starts an
	// incarnation, and a DELETED line belongs to the one its
	// resourceVersion falls in (the last state's or the delete's, both
	// before the next create's). Each delete made while the watch was live
	// must be a DELETED line of its incarnation; one made while it was
	// blind may be merged into the relist (the object replaced by the
	// recreated one). A DELETED line of an incarnation churn did not
	// delete is invented; a second one of the same, doubled.
	deleteKeys := map[string]bool{}
	for key, idx := range byKey {
		for _, i := range idx {
			if log.events[i].typ == "DELETED" {
				deleteKeys[key] = true
			}
		}
	}
	for key, ss := range stamps {
		for _, s := range ss {
			if s.op == "delete" {
				deleteKeys[key] = true
			}
		}
	}
	for key := range deleteKeys {
		ss := stamps[key]
		// ends[k] is the resourceVersion that ends incarnation k (the
		// next create's; the last never ends), deletes[k] its delete.
		var ends []uint64
		var dels []*soakStamp
		for j := range ss {
			if ss[j].op == "create" {
				ends = append(ends, ss[j].rv)
				if len(dels) < len(ends) {
					dels = append(dels, nil)
				}
			}
			if ss[j].op == "delete" {
				dels = append(dels, &ss[j])
			}
		}
		ends = append(ends, 1<<64-1)
		for len(dels) < len(ends) {
			dels = append(dels, nil)
		}
		printed := make([]int, len(ends))
		for _, i := range byKey[key] {
			ev := log.events[i]
			if ev.typ != "DELETED" {
				continue
			}
			k := sort.Search(len(ends), func(k int) bool { return ev.rv < ends[k] })
			printed[k]++
			switch {
			case dels[k] == nil:
				w.periods[period(ev.at)].invented++
				example("%s: DELETED at resourceVersion %d (printed %s), but churn did not delete it", key, ev.rv, clock(ev.at))
			case printed[k] > 1:
				w.periods[period(ev.at)].doubled++
				example("%s: DELETED at resourceVersion %d (printed %s) again", key, ev.rv, clock(ev.at))
			}
		}
		for k, d := range dels {
			if d == nil || printed[k] > 0 {
				continue
			}
			// A delete's place in the server's history is just before
			// the create that ends its incarnation.
			if blindIn(d.at, ends[k]) >= 0 {
				continue
			}
			w.periods[period(d.at)].lost++
			example("%s: deleted (stamped %s) while the watch was live, never printed DELETED", key, clock(d.at))
		}
	}

	// Catching up after each outage.
	for i, o := range in.outages {
		wo := &w.outages[i]
		// target: every object changed after the last event printed
		// before the stop and before ready, at its last such change.
		target := map[string]uint64{}
		for _, s := range in.stamps {
			if s.op != "delete" && s.rv > before[i] && s.at.Before(o.readyAt) {
				target[s.key] = max(target[s.key], s.rv)
			}
		}
		wo.behind = len(target)
		caught := wo.resumed
		for key, rv := range target {
			var at time.Time
			for _, j := range byKey[key] {
				ev := log.events[j]
				if !ev.at.Before(gone[i]) && (ev.typ == "DELETED" || ev.rv >= rv) {
					at = ev.at
					break
				}
			}
			if at.IsZero() {
				wo.pending++
				continue
			}
			if at.After(caught) {
				caught = at
			}
		}
		if wo.pending == 0 && !wo.resumed.IsZero() {
			wo.caughtUp = caught
		}
		end := in.end
		if i+1 < len(in.outages) {
			end = gone[i+1]
		}
		upTo := wo.caughtUp
		if upTo.IsZero() {
			upTo = end
		}
		back := o.readyAt
		if !wo.resumed.IsZero() && wo.resumed.Before(back) {
			back = wo.resumed
		}
		for _, ev := range log.events {
			switch {
			case ev.at.Before(gone[i]) || !ev.at.Before(end):
			case ev.at.Before(back):
				wo.printedDown++
			case !ev.at.After(upTo):
				wo.printedCatchUp++
			default:
				wo.printedAfter++
			}
		}
	}

	// The final state: each pod's last printed state is the server's.
	last := map[string]loadEvent{}
	for _, ev := range log.events {
		last[ev.key] = ev
	}
	keys := map[string]bool{}
	for k := range in.final {
		keys[k] = true
	}
	for k := range last {
		keys[k] = true
	}
	for k := range in.initial {
		keys[k] = true
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	for _, k := range sorted {
		want, live := in.final[k]
		ev, printed := last[k]
		gotLive, got := false, uint64(0)
		switch {
		case printed:
			gotLive, got = ev.typ != "DELETED", ev.rv
		default:
			got, gotLive = in.initial[k]
		}
		switch {
		case live && !gotLive:
			w.finalDiffs++
			example("%s: live on the server at resourceVersion %d, last printed DELETED or never", k, want)
		case !live && gotLive:
			w.finalDiffs++
			example("%s: gone from the server, last printed live at resourceVersion %d", k, got)
		case live && got != want:
			w.finalDiffs++
			example("%s: the server's final resourceVersion is %d, the last printed %d", k, want, got)
		}
	}
	slices.Sort(w.examples)
	if len(w.examples) > soakMaxExamples {
		w.examples = w.examples[:soakMaxExamples]
	}
	return w
}

// clock is t as the report's time of day, in UTC.
func clock(t time.Time) string { return t.UTC().Format("15:04:05.000") }
