package main

import (
	"fmt"
	"strings"
	"time"
)

// soakSection is the report's "Soak" section: one row per outage, a row
// for the time before the first, and totals.
func (r *report) soakSection() string {
	s := r.soak
	if s == nil {
		return ""
	}
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("## Soak: watches through API server restarts (%d pods, %d watches through one warm cache, %s)\n\n", s.pods, s.clients, s.duration)
	p("Step `soak` (issue 41; only when named in BENCH_STEPS): a second kube-apiserver on the same etcd (`hack/cluster apiserver DIR second`); `kubectl informer cache start` and %d `kubectl informer watch pods -A -o json` through it, all talking to the primary API server; then `hack/seed churn --rate %d --duration %s` over every pod through the *second* API server, so the changes go on while the primary is down. "+
		"Every %s of the churn the primary is stopped (`hack/cluster stop-apiserver`, SIGKILL and SIGTERM in turn), held down %s (in turn) and started again (`hack/cluster start-apiserver`, which returns once it answers `/readyz`). "+
		"The pods' resourceVersions are listed through the second API server after the watches synced and after the churn, once every watch had been quiet for 2 s (the server's final state); each watch's lines and stderr are stamped as they arrive.\n\n",
		s.clients, s.rate, s.duration, s.every, joinDurations(s.holds))
	p("Per outage: the server *went* at the first `watch of pods failed` line of any watch after `hack/cluster stop-apiserver` was run (or when that returned, if sooner); *stop s* is from running it to then (the tool's own start, a build check, under load, and the signal); *down s* is from then to `start-apiserver` returning ready (it polls `/readyz` every 100 ms), of which *start s* is `start-apiserver`'s own time; *changes while down* are churn's stamped changes and deletes in that span. " +
		"*Resume* is from ready to each watch's `watch of pods resumed; changes made meanwhile follow` on its stderr (watch 1 / 2 / 3; one figure when all agree; below 0 it came before `/readyz` answered: the restarted server serves watches before every post-start hook has finished). " +
		"*Caught up* is from ready to when the slowest watch had printed, for every pod changed after the last line it printed before `stop-apiserver` returned and before ready (*behind*, pods), that change or a later state of the pod. " +
		"*Printed* counts one watch's lines while the primary was down (what it had sent before it went, still on its way), from its being *back* (ready, or the watch's resumed line if that came first) to caught up, and from then until the next outage's server went. " +
		"*Merged* are stamped changes a watch did not print because it was blind to them (made after the last line it printed before `stop-apiserver` returned — a watch stream is in resourceVersion order, so what came before that line was sent — and before it said it resumed): the relist printed a later state of the pod, which is what a relist may do. " +
		"The fault columns sum over the watches and must be 0: *lost* is a stamped change made while the watch was live (before that last line, or after it said it resumed) that it never printed and no later line's `coalesced` accounts for, or a delete made while it was live never printed DELETED; " +
		"*doubled* a resourceVersion printed twice for a pod (or the one it had when the watch synced); *reordered* a pod's resourceVersion going back; *invented* a state (resourceVersion) churn never stamped for the pod — but for the state a delete writes first (deletionTimestamp set, between the pod's stamp before the delete and the create after it) — or a DELETED of an incarnation of the pod (from one create's resourceVersion to the next's) that churn did not delete; a second DELETED of one incarnation counts as doubled. " +
		"A row's faults are those of changes stamped, or lines printed, from its outage's server going to the next one's. The final state: each pod's last printed state against the server's final list. The evidence stays in the work directory (`BENCH_KEEP=1`): each watch's lines (time, type, pod, resourceVersion) and stderr (`soak-watch-N.events`, `soak-watch-N.stderr`), churn's stamps (`soak-stamps.txt`), the outages' times (`soak-outages.txt`) and the server's lists (`soak-initial.txt`, `soak-final.txt`).\n\n")
	if s.churnLine != "" {
		p("- churn: `%s`; %d changes and %d deletes stamped.\n", s.churnLine, s.check.changes, s.check.deletes)
	}
	if s.churnErr != "" {
		p("- ⚠ churn: %s\n", s.churnErr)
	}
	p("- the cache listed %d pods for the first watch in %.1f s; the churn and its settling took %.0f s.\n", s.pods, s.sync.Seconds(), s.wall.Seconds())
	p("- load (1-minute average): %.2f when the step began, %.2f–%.2f during the churn (polled every 10 s), %.2f at its end.\n", s.load1, s.loadMin, s.loadMax, s.loadEnd)
	if s.err != "" {
		p("- ⚠ the step failed: %s\n", s.err)
	}
	p("\n")
	c := s.check
	if len(c.watches) == 0 {
		p("No account: the step ended before the watches were checked.\n\n")
		return b.String()
	}
	p("| outage | stop | stop s | down s | start s | changes while down | resume s | caught up s | behind | printed while down | printed back → caught up | printed after | merged | coalesced | lost | doubled | reordered | invented |\n")
	p("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	faults := func(period int) string {
		var t soakCount
		for _, w := range c.watches {
			t.add(w.periods[period])
		}
		return fmt.Sprintf("%s | %d | %d | %d | %d | %d", perWatch(c.watches, func(w soakWatchCheck) string { return fmt.Sprint(w.periods[period].merged) }),
			t.coalesced, t.lost, t.doubled, t.reordered, t.invented)
	}
	p("| before the first | – | – | – | – | – | – | – | – | – | – | – | %s |\n", faults(0))
	worstResume, worstCaught := time.Duration(-1<<62), time.Duration(-1<<62)
	never, neverResumed, neverCaught := 0, 0, 0
	for i, o := range s.outages {
		how := "SIGTERM"
		if o.kill {
			how = "SIGKILL"
		}
		resume := perWatch(c.watches, func(w soakWatchCheck) string {
			r := w.outages[i].resumed
			if r.IsZero() {
				neverResumed++
				return "never"
			}
			worstResume = max(worstResume, r.Sub(o.readyAt))
			return fmt.Sprintf("%.1f", r.Sub(o.readyAt).Seconds())
		})
		caught := time.Duration(-1 << 62)
		caughtCell := ""
		for _, w := range c.watches {
			wo := w.outages[i]
			if wo.caughtUp.IsZero() {
				caughtCell = fmt.Sprintf("never (%d pods)", wo.pending)
				neverCaught++
				break
			}
			caught = max(caught, wo.caughtUp.Sub(o.readyAt))
		}
		if caughtCell == "" {
			caughtCell = fmt.Sprintf("%.1f", caught.Seconds())
			worstCaught = max(worstCaught, caught)
		}
		p("| %d | %s | %.1f | %.1f | %.1f | %d | %s | %s | %s | %s | %s | %s | %s |\n", i+1, how, c.gone[i].Sub(o.stopAt).Seconds(), o.readyAt.Sub(c.gone[i]).Seconds(), o.readyAt.Sub(o.startAt).Seconds(), c.changesDown[i], resume, caughtCell,
			perWatch(c.watches, func(w soakWatchCheck) string { return fmt.Sprint(w.outages[i].behind) }),
			perWatch(c.watches, func(w soakWatchCheck) string { return fmt.Sprint(w.outages[i].printedDown) }),
			perWatch(c.watches, func(w soakWatchCheck) string { return fmt.Sprint(w.outages[i].printedCatchUp) }),
			perWatch(c.watches, func(w soakWatchCheck) string { return fmt.Sprint(w.outages[i].printedAfter) }),
			faults(i+1))
	}
	var total soakCount
	down := 0
	var downFor time.Duration
	for _, w := range c.watches {
		total.add(w.total())
	}
	for i, o := range s.outages {
		down += c.changesDown[i]
		downFor += o.readyAt.Sub(c.gone[i])
	}
	never = neverResumed + neverCaught
	worst := func(d time.Duration, nevers int) string {
		if nevers > 0 {
			return fmt.Sprintf("never %d times", nevers)
		}
		return fmt.Sprintf("≤ %.1f", d.Seconds())
	}
	p("| **all %d** | | | %.1f | | %d | %s | %s | | | | %s | %s | %d | %d | %d | %d | %d |\n", len(s.outages), downFor.Seconds(), down,
		worst(worstResume, neverResumed), worst(worstCaught, neverCaught),
		perWatch(c.watches, func(w soakWatchCheck) string { return fmt.Sprint(w.events) }),
		perWatch(c.watches, func(w soakWatchCheck) string { return fmt.Sprint(w.total().merged) }),
		total.coalesced, total.lost, total.doubled, total.reordered, total.invented)
	p("\nThe totals row's *printed after* column is every line each watch printed over the whole step.\n\n")
	finals := 0
	for i, w := range c.watches {
		finals += w.finalDiffs
		verdict := "every pod's last printed state is the server's final one"
		if w.finalDiffs > 0 {
			verdict = fmt.Sprintf("**%d pods' last printed states differ from the server's final ones**", w.finalDiffs)
		}
		p("- watch %d: %s; `%s` lines on its stderr: %d, for %d outages.\n", i+1, verdict, soakResumedLine, w.resumes, len(s.outages))
		for _, e := range w.examples {
			p("  - %s\n", e)
		}
	}
	verdict := "nothing lost, doubled, reordered or invented, and every final state printed"
	if total.faults() > 0 || finals > 0 || never > 0 {
		verdict = fmt.Sprintf("**%d lost, %d doubled, %d reordered, %d invented, %d final states differ, %d resumes and %d catch-ups never came**", total.lost, total.doubled, total.reordered, total.invented, finals, neverResumed, neverCaught)
	}
	p("- verdict: %s.\n\n", verdict)
	return b.String()
}

// perWatch is f of each watch, one figure when all agree, else "a / b / c".
func perWatch(ws []soakWatchCheck, f func(soakWatchCheck) string) string {
	var vals []string
	same := true
	for _, w := range ws {
		v := f(w)
		same = same && (len(vals) == 0 || v == vals[0])
		vals = append(vals, v)
	}
	if same && len(vals) > 0 {
		return vals[0]
	}
	return strings.Join(vals, " / ")
}

func joinDurations(ds []time.Duration) string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.String()
	}
	return strings.Join(out, ", ")
}
