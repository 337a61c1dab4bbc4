package main

import (
	"fmt"
	"strings"
	"time"
)

// Issue 28's limits for a watch under load.
const (
	loadLagLimit = 100 * time.Millisecond
	loadCPULimit = 20 * time.Microsecond
)

// perEvent is d over the stream's events (the floor watch's count: one
// line per event of the same stream), or 0.
func (l *loadResult) perEvent(d time.Duration) time.Duration {
	if l.floorEvents == 0 {
		return 0
	}
	return d / time.Duration(l.floorEvents)
}

// oneWatchCPU is what one watch costs per event: the cache's CPU (one
// informer decoding the stream, and for each watch its diff and output,
// which the cache renders) and every watch process's (reading the output
// off the socket and printing it), over the watches.
func (l *loadResult) oneWatchCPU() time.Duration {
	if len(l.watches) == 0 {
		return 0
	}
	total := l.cacheCPU
	for _, w := range l.watches {
		total += w.cpu
	}
	return l.perEvent(total / time.Duration(len(l.watches)))
}

// coresShare is the share of the machine's CPU time over the churn that
// the cache and every watch process took together.
func (l *loadResult) coresShare(cpus int) float64 {
	if l.wall <= 0 || cpus == 0 {
		return 0
	}
	total := l.cacheCPU
	for _, w := range l.watches {
		total += w.cpu
	}
	return total.Seconds() / l.wall.Seconds() / float64(cpus)
}

// loadTarget is one row of the load step's targets: a count that must be
// zero or a bound.
type loadTarget struct {
	name, measured, limit string
	met                   bool
	note                  string
}

// loadTargets checks issue 28's targets for a watch under load: nothing
// lost or reordered by any watch, the worst watch's lag p99 within
// loadLagLimit, and one watch's share of the CPU per event within
// loadCPULimit above the floor's.
func (l *loadResult) loadTargets() []loadTarget {
	var lost, reordered, duplicates int
	var worst time.Duration
	for _, w := range l.watches {
		lost += w.lost()
		reordered += w.reordered
		duplicates += w.duplicates
		worst = max(worst, w.p99)
	}
	above := l.oneWatchCPU() - l.perEvent(l.floorCPU)
	return []loadTarget{
		{name: "events lost (every watch)", measured: fmt.Sprint(lost), limit: "0", met: lost == 0,
			note: fmt.Sprintf("%d changes and %d deletes stamped by churn, per watch", len(l.stamps.changes), l.stamps.deleteCount())},
		{name: "events reordered or repeated (every watch)", measured: fmt.Sprint(reordered + duplicates), limit: "0", met: reordered+duplicates == 0,
			note: fmt.Sprintf("%d reordered, %d repeated", reordered, duplicates)},
		{name: "print lag p99 (the worst watch)", measured: ms(worst), limit: ms(loadLagLimit), met: worst <= loadLagLimit,
			note: fmt.Sprintf("reference watch p99 %s", ms(l.rawP99))},
		{name: "one watch's share of the CPU per event, above the floor's", measured: fmt.Sprintf("%.1f µs", us(above)), limit: fmt.Sprintf("%.0f µs", us(loadCPULimit)), met: above <= loadCPULimit,
			note: fmt.Sprintf("%.1f µs per event per watch: the cache's %.1f µs and the %d watch processes' %.1f µs per event, over %d watches; the floor's %.1f µs",
				us(l.oneWatchCPU()), us(l.perEvent(l.cacheCPU)), len(l.watches), us(l.oneWatchCPU()*time.Duration(len(l.watches))-l.perEvent(l.cacheCPU)), len(l.watches), us(l.perEvent(l.floorCPU)))},
	}
}

func (s churnStamps) deleteCount() int {
	n := 0
	for _, d := range s.deletes {
		n += d
	}
	return n
}

// loadSection is the report's "Watch under load" section.
func (r *report) loadSection() string {
	l := r.load
	if l == nil {
		return ""
	}
	var s strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&s, format, args...) }
	p("## Watch under load (%d pods, %d watches through one warm cache)\n\n", l.pods, l.clients)
	p("Step `load` (issue 28, with BENCH_SCALE=1, at the last BENCH_SCALE_PODS count): `kubectl informer cache start`, then %d `kubectl informer watch pods -A -o json` started one after another (the first makes the cache list every pod; the others share its informer — the step fails unless the cache runs all %d), a reference metadata watch in the harness and `benchtool/floor watch --all-namespaces` beside them; then `hack/seed churn --rate %d --duration %s` over every seeded pod (labels, annotations, status, 5%% delete-and-recreate), stamping each response's resourceVersion. "+
		"Each watch's lines are read as they arrive and checked against the stamps: every stamped change must be printed (ADDED/MODIFIED with its resourceVersion) or be counted in a `coalesced` field, every stamped delete must be a DELETED event of that object, and no object's resourceVersion may go back or repeat. *Lag* is a line's arrival minus its change's stamp. CPU is user+system from `/proc/PID/stat` from just before churn to one quiet second of every watch after it; *per event* divides by the events of the stream (the floor watch's count). RSS of the cache is polled every second.\n\n",
		l.clients, l.clients, l.rate, l.duration)
	p("- churn: `%s`; %d changes and %d deletes stamped; load %.2f when the step began.\n", l.churnLine, len(l.stamps.changes), l.stamps.deleteCount(), l.load1)
	p("- the cache: listed %d pods for the first watch in %.1f s; RSS %.0f MiB started, %.0f MiB with the watches synced (%.2f KiB per object over %d objects: a watch's informer keeps the managedFields that name who changed what), %.0f MiB at the peak under churn, %.0f MiB after; CPU %.1f s over %.0f s, %.1f µs per event (one decode of the stream, and each watch's diff and `-o json` rendering, which the cache does for the watch).\n",
		l.pods, l.sync.Seconds(), mib(l.rssEmpty), mib(l.rssBefore), float64(l.rssBefore-l.rssEmpty)/1024/float64(max(l.objects, 1)), l.objects, mib(l.rssPeak), mib(l.rssAfter), l.cacheCPU.Seconds(), l.wall.Seconds(), us(l.perEvent(l.cacheCPU)))
	p("- the floor: %d events, %.1f µs CPU per event; the reference watch matched %d stamps, lag p50 %s, p99 %s.\n",
		l.floorEvents, us(l.perEvent(l.floorCPU)), l.rawMatched, ms(l.rawP50), ms(l.rawP99))
	p("- the cache and the %d watch processes together took %.0f%% of the machine's CPU time during the churn.\n\n", l.clients, 100*l.coresShare(r.machine.nproc))
	p("| watch | events printed | changes matched | missing / coalesced | deletes seen | lost | reordered / repeated | lag p50 | lag p99 | lag max | CPU s | CPU per event | peak RSS MiB |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for i, w := range l.watches {
		p("| %d | %d | %d | %d / %d | %d | %d | %d / %d | %s | %s | %s | %.1f | %.1f µs | %.0f |\n", i+1, w.events, w.matched, w.missing, w.coalesced,
			w.deletes, w.lost(), w.reordered, w.duplicates, ms(w.p50), ms(w.p99), ms(w.max), w.cpu.Seconds(), us(l.perEvent(w.cpu)), float64(w.rssKiB)/1024)
	}
	p("\n")
	for i, w := range l.watches {
		if len(w.warnings) > 0 {
			p("- watch %d stderr: %q\n", i+1, tail(strings.Join(w.warnings, " | "), 300))
		}
	}
	p("### Load targets (issue 28)\n\n| target | measured | limit | verdict | note |\n| --- | --- | --- | --- | --- |\n")
	for _, t := range l.loadTargets() {
		verdict := "met"
		if !t.met {
			verdict = "**missed**"
		}
		p("| %s | %s | %s | %s | %s |\n", t.name, t.measured, t.limit, verdict, t.note)
	}
	p("\n")
	return s.String()
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }
