package main

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The clients step (issue 28, "many clients"): one warm cache answering
// BENCH_CLIENTS concurrent kubectl-informer processes of mixed query kinds,
// in BENCH_CLIENTS_ROUNDS rounds, each answer compared with the same
// query's direct (--cache off) answer; the single-client warm figures of
// each kind beside the targets; the cache process's RSS and CPU.

// clientKind is one query kind of the mix.
type clientKind struct {
	id, label string
	args      []string
	// target is the warm target for the kind at 150,000 pods
	// (0: none), measured here at the seeded count.
	target time.Duration
}

// clientKinds are the mix, over the seeded pods (see the constants in
// run.go): pod i is on node-<i%50>, in seed-<i%10>, with label
// tier=<tiers[(i/10)%4]>, and uses its namespace's default ServiceAccount.
func clientKinds() []clientKind {
	return []clientKind{
		{id: "c-lookup", label: "index lookup -o name (200 names)", target: 50 * time.Millisecond,
			args: []string{"query", "pods", "-A", "--index", "node=node-3", "-o", "name"}},
		{id: "c-group-by", label: "--group-by node (50 rows)", target: 150 * time.Millisecond,
			args: []string{"query", "pods", "-A", "--group-by", "node"}},
		{id: "c-indexer", label: "--indexer lookup -o name (500 names)", target: 100 * time.Millisecond,
			args: []string{"query", "pods", "-A", "--indexer", "img={.spec.containers[0].image}", "--index", "img=" + queryImage, "-o", "name"}},
		{id: "c-uses", label: "relationship lookup, uses (1,000 names)", target: 100 * time.Millisecond,
			args: []string{"query", "pods", "-n", "seed-3", "--index", "uses=ServiceAccount/default", "-o", "name"}},
		{id: "c-large", label: "large answer -o name (5,000 names)", target: 50 * time.Millisecond,
			args: []string{"query", "pods", "-A", "--index", "label:tier in (frontend,backend)", "-o", "name"}},
		{id: "c-table", label: "table (1,000 rows)",
			args: []string{"query", "pods", "-A", "--index", "label:app=" + queryApp}},
	}
}

// clientCPURuns is how many runs of a kind in a row give the cache's CPU
// per answer: /proc counts CPU in ticks of 10 ms.
const clientCPURuns = 20

// clientsResult is what the clients step measured.
type clientsResult struct {
	pods, clients, rounds int
	kinds                 []clientKind
	// single are the kinds measured one at a time (BENCH_RUNS rounds,
	// through the runner, after one warm-up run each).
	single map[string]*result
	// walls are the concurrent runs' wall times, by kind id.
	walls map[string][]time.Duration
	// failures are the concurrent runs that failed, by kind id, and the
	// first few reasons.
	failures map[string]int
	reasons  []string
	// roundWalls is each round's wall time, from the first start to the
	// last exit.
	roundWalls []time.Duration
	// cacheCPUPer is the cache process's CPU per answer of each kind, run
	// alone, by kind id.
	cacheCPUPer map[string]time.Duration
	// clientCPU is the concurrent clients' CPU (user+system) summed.
	clientCPU time.Duration
	// The cache process: its RSS before the concurrent rounds, after each
	// round, and settleDelay after the last; its CPU over the rounds; the
	// Runs it answered and declined over the rounds.
	rssBefore   int64
	rssRounds   []int64
	rssSettled  int64
	settleDelay time.Duration
	cacheCPU    time.Duration
	answered    int64
	declined    int64
	objects     int
	load        float64
}

// cacheState is what the step reads of cache status -o json.
type cacheState struct {
	pid       int
	rss       int64
	objects   int
	answered  int64
	declined  int64
	indexList []string
}

func (b *bench) cacheState(ctx context.Context, env []string) (cacheState, error) {
	s, err := b.cacheStatus(ctx, env)
	if err != nil {
		return cacheState{}, err
	}
	cs := cacheState{pid: s.Pid, rss: s.RSSBytes, answered: s.Answered, declined: s.Declined}
	for _, c := range s.Caches {
		if c.Type == "pods" {
			cs.objects += c.Objects
		}
		cs.indexList = append(cs.indexList, c.Type+": "+strings.Join(c.Indexes, ","))
	}
	return cs, nil
}

// blankAge removes a table's AGE column, from where its header begins to
// where the next one begins (each output's own widths), so that two runs a
// minute boundary apart compare equal.
func blankAge(out string) string {
	lines := strings.Split(out, "\n")
	header := " " + lines[0] + " "
	i := strings.Index(header, " AGE ")
	if i < 0 {
		return out
	}
	from := i // in lines[0]: header[i+1] is its 'A'
	to := len(lines[0])
	if j := strings.IndexFunc(header[i+5:], func(r rune) bool { return r != ' ' }); j >= 0 {
		to = i + 4 + j
	}
	for n, l := range lines {
		if len(l) > from {
			lines[n] = l[:from] + l[min(to, len(l)):]
		}
	}
	return strings.Join(lines, "\n")
}

// sameAnswer is a check that stdout is want, AGE aside.
func sameAnswer(want string) func(string) error {
	want = blankAge(want)
	return func(out string) error {
		if got := blankAge(out); got != want {
			return fmt.Errorf("the answer differs from the direct (--cache off) one: %d lines, want %d", countLines(got), countLines(want))
		}
		return nil
	}
}

// clients is the clients step.
func (b *bench) clients(ctx context.Context) error {
	var errs []error
	n := envInt("BENCH_CLIENTS", 50, &errs)
	rounds := envInt("BENCH_CLIENTS_ROUNDS", 4, &errs)
	if len(errs) > 0 || n < 1 || rounds < 1 {
		return fmt.Errorf("BENCH_CLIENTS and BENCH_CLIENTS_ROUNDS must be positive integers")
	}
	kinds := clientKinds()
	// The direct answers first, without a cache: the reference of every
	// warm answer.
	direct := map[string]string{}
	for _, k := range kinds {
		b.logf("clients: the direct answer of %s", k.id)
		out, err := b.pluginCmd(ctx, nil, append(slices.Clone(k.args), "--cache", "off")...)
		if err != nil {
			return err
		}
		if countLines(out) == 0 {
			return fmt.Errorf("%s: the direct answer is empty", k.id)
		}
		direct[k.id] = out
	}

	env, stop, err := b.startWarmCache(ctx, "clients-xdg")
	if err != nil {
		return err
	}
	defer stop()
	res := &clientsResult{pods: b.pods, clients: n, rounds: rounds, kinds: kinds, load: loadavg1(),
		walls: map[string][]time.Duration{}, failures: map[string]int{}, settleDelay: 5 * time.Second}

	// One at a time: the warm-up run of each kind fills the cache, then
	// BENCH_RUNS interleaved rounds.
	var cases []benchCase
	for _, k := range kinds {
		c := b.direct(k.id, "kubectl-informer "+shellJoin(k.args), k.args...)
		c.env = env
		c.check = sameAnswer(direct[k.id])
		cases = append(cases, c)
	}
	before, err := b.cacheState(ctx, env)
	if err != nil {
		return err
	}
	if res.single, err = b.measureCases(ctx, cases); err != nil {
		return err
	}
	st, err := b.cacheState(ctx, env)
	if err != nil {
		return err
	}
	if st.declined != before.declined {
		for _, r := range res.single {
			r.warn = strings.TrimPrefix(r.warn+"; ", "; ") + fmt.Sprintf("the cache declined %d of the single-client runs: they ran directly", st.declined-before.declined)
		}
	}
	res.objects = st.objects
	// The cache's own CPU per answer of each kind: clientCPURuns runs of
	// it in a row, the cache process's CPU before and after.
	res.cacheCPUPer = map[string]time.Duration{}
	for _, k := range kinds {
		c0, err := procCPU(st.pid)
		if err != nil {
			return err
		}
		for range clientCPURuns {
			if _, err := b.pluginCmd(ctx, env, k.args...); err != nil {
				return err
			}
		}
		c1, err := procCPU(st.pid)
		if err != nil {
			return err
		}
		res.cacheCPUPer[k.id] = (c1 - c0) / clientCPURuns
	}
	if st, err = b.cacheState(ctx, env); err != nil {
		return err
	}
	b.logf("clients: the cache holds %s", strings.Join(st.indexList, "; "))

	// Concurrent rounds: every client starts at once, client c running
	// kind (c+round) mod len(kinds).
	res.rssBefore = st.rss
	cpu0, _ := procCPU(st.pid)
	b.waitForLoad(ctx)
	for round := 0; round < rounds; round++ {
		b.logf("clients: round %d/%d, %d clients (load %.2f)", round+1, rounds, n, loadavg1())
		if err := b.clientRound(ctx, env, res, direct, round); err != nil {
			return err
		}
		s, err := b.cacheState(ctx, env)
		if err != nil {
			return err
		}
		res.rssRounds = append(res.rssRounds, s.rss)
	}
	cpu1, _ := procCPU(st.pid)
	res.cacheCPU = cpu1 - cpu0
	time.Sleep(res.settleDelay)
	after, err := b.cacheState(ctx, env)
	if err != nil {
		return err
	}
	res.rssSettled = after.rss
	res.answered, res.declined = after.answered-st.answered, after.declined-st.declined
	b.rep.clients = res
	return nil
}

// clientRound runs one round of n concurrent clients and records their
// walls and failures in res.
func (b *bench) clientRound(ctx context.Context, env []string, res *clientsResult, direct map[string]string, round int) error {
	type outcome struct {
		kind string
		wall time.Duration
		cpu  time.Duration
		err  error
	}
	outs := make([]outcome, res.clients)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for c := range res.clients {
		k := res.kinds[(c+round)%len(res.kinds)]
		cmd := exec.CommandContext(ctx, b.plugin, k.args...)
		cmd.Env = append(b.cmdEnv(), env...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		wg.Go(func() {
			<-start
			began := time.Now()
			err := cmd.Run()
			o := outcome{kind: k.id, wall: time.Since(began), err: err}
			if cmd.ProcessState != nil {
				if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
					o.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
				}
			}
			switch {
			case err != nil:
				o.err = fmt.Errorf("%s: %w: %s", k.id, err, tail(strings.TrimSpace(stderr.String()), 300))
			case stderr.Len() > 0:
				o.err = fmt.Errorf("%s: stderr: %s", k.id, tail(strings.TrimSpace(stderr.String()), 300))
			default:
				if err := sameAnswer(direct[k.id])(stdout.String()); err != nil {
					o.err = fmt.Errorf("%s: %w", k.id, err)
				}
			}
			outs[c] = o
		})
	}
	began := time.Now()
	close(start)
	wg.Wait()
	res.roundWalls = append(res.roundWalls, time.Since(began))
	if ctx.Err() != nil {
		return ctx.Err()
	}
	for _, o := range outs {
		res.clientCPU += o.cpu
		if o.err != nil {
			res.failures[o.kind]++
			if len(res.reasons) < 5 {
				res.reasons = append(res.reasons, o.err.Error())
			}
			b.logf("clients: %v", o.err)
			continue
		}
		res.walls[o.kind] = append(res.walls[o.kind], o.wall)
	}
	return nil
}

// clientsSection is the report's "Many clients" section.
func (r *report) clientsSection() string {
	c := r.clients
	if c == nil {
		return ""
	}
	var s strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&s, format, args...) }
	total := c.clients * c.rounds
	failed := 0
	for _, f := range c.failures {
		failed += f
	}
	p("## Many clients: %d concurrent warm queries (%d pods, %d rounds)\n\n", c.clients, c.pods, c.rounds)
	p("Step `clients` (issue 28): `kubectl informer cache start`, each kind's answer without the cache (`--cache off`) as the reference, then each kind alone through the cache (the binary run directly; one warm-up run, which fills the cache, then %d rounds through the runner), then %d rounds of %d `kubectl-informer` processes started at once, client *c* of round *r* running kind (*c*+*r*) mod %d, each answer compared with the direct one (a pod table's AGE column aside). *The cache's CPU per answer* is the cache process's user+system time (`/proc/PID/stat`) over %d runs of the kind in a row, one at a time, over the runs: the share of a warm answer that is the cache's, apart from the client process's start. A concurrent wall is from each process's start to its exit as the harness saw it, so it includes the %d processes' start-up competing for the CPUs.\n\n",
		r.runs, c.rounds, c.clients, len(c.kinds), clientCPURuns, c.clients)
	p("| kind | command | alone: wall s (min–max) | alone: CPU s | alone: the cache's CPU per answer | target (at 150,000 pods) | concurrent: answers | p50 | p99 | max | failures |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, k := range c.kinds {
		single := " – | – "
		verdict := "–"
		if res := c.single[k.id]; res != nil && len(res.samples) > 0 {
			lo, hi := res.wallRange()
			single = fmt.Sprintf(" %.3f (%.3f–%.3f) | %.3f ", res.wall(), lo, hi, res.cpu())
			if k.target > 0 {
				met := "met"
				if res.wall() > k.target.Seconds() {
					met = "**missed**"
				}
				verdict = fmt.Sprintf("≤ %d ms: %s", k.target.Milliseconds(), met)
			}
		}
		w := slices.Sorted(slices.Values(c.walls[k.id]))
		conc := "– | – | – | –"
		if len(w) > 0 {
			conc = fmt.Sprintf("%d | %s | %s | %s", len(w), ms(percentile(w, 0.5)), ms(percentile(w, 0.99)), ms(w[len(w)-1]))
		}
		cacheCPU := "–"
		if d, ok := c.cacheCPUPer[k.id]; ok {
			cacheCPU = ms(d)
		}
		p("| %s | `kubectl-informer %s` |%s| %s | %s | %s | %d |\n", k.label, shellJoin(k.args), single, cacheCPU, verdict, conc, c.failures[k.id])
	}
	all := []time.Duration{}
	for _, w := range c.walls {
		all = append(all, w...)
	}
	slices.Sort(all)
	if len(all) > 0 {
		p("| all kinds | | | | | | %d | %s | %s | %s | %d |\n", len(all), ms(percentile(all, 0.5)), ms(percentile(all, 0.99)), ms(all[len(all)-1]), failed)
	}
	p("\n")
	for _, k := range c.kinds {
		if res := c.single[k.id]; res != nil && res.warn != "" {
			p("- ⚠ %s alone: %s\n", k.id, res.warn)
		}
	}
	for _, reason := range c.reasons {
		p("- ⚠ failed: %s\n", reason)
	}
	var rounds []string
	for _, w := range c.roundWalls {
		rounds = append(rounds, fmt.Sprintf("%.2f", w.Seconds()))
	}
	p("%d of %d concurrent answers were right (%d failed); the cache answered %d Runs and declined %d over the rounds (a declined query runs directly in the client, which would not be a warm answer). Each round, from the first start to the last exit: %s s. The clients' CPU summed: %.1f s (%.0f ms each); the cache process's over the rounds: %.2f s (%.1f ms per answer).\n\n",
		total-failed, total, failed, c.answered, c.declined, strings.Join(rounds, ", "), c.clientCPU.Seconds(), float64(c.clientCPU.Milliseconds())/float64(max(total, 1)),
		c.cacheCPU.Seconds(), float64(c.cacheCPU.Microseconds())/1e3/float64(max(c.answered, 1)))
	var rss []string
	for _, v := range c.rssRounds {
		rss = append(rss, fmt.Sprintf("%.1f", float64(v)/(1<<20)))
	}
	p("The cache process's RSS (`cache status`), holding %d pods: %.1f MiB after the single-client rows, before the concurrent rounds; after each round %s MiB; %s after the last %.1f MiB. *Flat* is measured as the RSS right after the last round and %s later against the RSS before the rounds (%+.1f MiB and %+.1f MiB), and the RSS after each round, which grows round by round if the cache keeps something per request. Load %.2f when the step began.\n\n",
		c.objects, float64(c.rssBefore)/(1<<20), strings.Join(rss, ", "), c.settleDelay, float64(c.rssSettled)/(1<<20), c.settleDelay,
		float64(c.rssRounds[len(c.rssRounds)-1]-c.rssBefore)/(1<<20), float64(c.rssSettled-c.rssBefore)/(1<<20), c.load)
	return s.String()
}
