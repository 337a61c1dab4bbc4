package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The fleet step: BENCH_FLEET_CLUSTERS control planes (hack/cluster fleet
// up), BENCH_FLEET_PODS pods seeded in each as the main cluster's are, and
// each fleet query (--context 'fleet-*') measured beside the same query run
// once per context, one context after another, and the raw LIST of each
// context.

// fleetEtcdQuota is etcd's default --quota-backend-bytes, which
// hack/cluster does not change.
const fleetEtcdQuota = 2 << 30

// fleetQuery is one query of the fleet step: its argv without --context,
// and how many lines it prints for one context and for the fleet.
type fleetQuery struct {
	key   string
	title string
	args  []string
	// lines is the expected output lines over contexts contexts.
	lines func(d dataSet, contexts int) int
}

func fleetQueries() []fleetQuery {
	return []fleetQuery{
		{"by-image", "a. pods by image (full objects; the index cannot be pushed to the server, so every pod is read)",
			[]string{"query", "pods", "-A", "--index", "image=" + queryImage, "-o", "name"},
			func(d dataSet, n int) int { return n * d.byImage }},
		{"by-context-node", "b. pods per context and node",
			[]string{"query", "pods", "-A", "--group-by", "context,node"},
			func(d dataSet, n int) int { return 1 + n*d.nodes }},
		{"cpu-by-node", "c. CPU requests per node, merged over the contexts",
			[]string{"query", "pods", "-A", "--group-by", "node", "--sum", "requests.cpu"},
			func(d dataSet, _ int) int { return 1 + d.nodes + 1 }}, // header, a row per node, TOTAL
	}
}

// fleetResult is what the fleet step measured.
type fleetResult struct {
	clusters, podsPer int
	runs              int
	upWall            time.Duration
	seedWall          time.Duration
	seedParallel      int
	seedLines         []string
	results           map[string]*result
	// memAvailable is MemAvailable in KiB at each named moment.
	memAvailable []fleetMoment
	// controlPlaneKiB is the summed RSS of every etcd and kube-apiserver
	// of the fleet after seeding; etcdDBMax the largest etcd database.
	controlPlaneKiB int64
	etcdDBMax       int64
	ports           int
	// memLowKiB is the lowest MemAvailable seen, polled every second
	// from before `fleet up` to after measuring.
	memLowKiB int64
	load      float64
	err       string
}

type fleetMoment struct {
	when string
	kib  int64
}

func (f *fleetResult) totalPods() int { return f.clusters * f.podsPer }

func fleetCaseID(q fleetQuery, ctx int) string {
	if ctx == 0 {
		return "fleet-" + q.key
	}
	return fmt.Sprintf("fleet-%s-ctx-%d", q.key, ctx)
}

func fleetRawID(ctx int) string { return fmt.Sprintf("fleet-raw-%d", ctx) }

// fleetContext is the kubeconfig context of cluster i (1-based), as
// hack/cluster fleet up names it.
func fleetContext(i int) string { return "fleet-" + strconv.Itoa(i) }

// fleet runs the fleet step. The fleet is stopped at its end whatever
// happens; hack/bench's trap and --owner-pid stop it should this process
// die first.
func (b *bench) fleet(ctx context.Context) error {
	n, podsPer := b.fleetClusters, b.fleetPods
	f := &fleetResult{clusters: n, podsPer: podsPer, runs: b.fleetRuns, seedParallel: min(b.fleetSeedParallel, n)}
	b.rep.fleet = f
	dir := filepath.Join(b.workDir, "fleet")
	f.mark("before `fleet up`")
	stopPoll := f.pollMemory()
	defer stopPoll()
	defer func() {
		down, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		if _, err := b.tool(down, "hack/cluster", "fleet", "down", dir); err != nil {
			b.logf("fleet: stopping the fleet: %v", err)
		}
	}()
	b.logf("fleet: starting %d control planes", n)
	start := time.Now()
	if _, err := b.tool(ctx, "hack/cluster", "fleet", "up", dir, "--clusters", strconv.Itoa(n),
		"--timeout", "5m", "--owner-pid", strconv.Itoa(os.Getpid())); err != nil {
		return err
	}
	f.upWall = time.Since(start)
	f.mark("after `fleet up`")
	b.write()

	if err := b.fleetSeed(ctx, f, dir); err != nil {
		return err
	}
	f.mark("after seeding")
	f.controlPlaneKiB, f.etcdDBMax, f.ports = fleetControlPlane(dir, n)
	b.write()

	cases := b.fleetCases(dir, f)
	f.load = loadavg1()
	results, err := b.measureRounds(ctx, cases, f.runs, true)
	if err != nil {
		return err
	}
	f.results = results
	f.mark("after measuring")
	return nil
}

// pollMemory polls MemAvailable until the returned func is called, which
// sets memLowKiB.
func (f *fleetResult) pollMemory() func() {
	low := memAvailableKiB()
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if v := memAvailableKiB(); v >= 0 {
					low = min(low, v)
				}
			}
		}
	}()
	return func() {
		close(done)
		<-stopped
		f.memLowKiB = low
	}
}

func (f *fleetResult) mark(when string) {
	f.memAvailable = append(f.memAvailable, fleetMoment{when: when, kib: memAvailableKiB()})
}

// fleetSeed seeds podsPer pods in each cluster, seedParallel clusters at a
// time.
func (b *bench) fleetSeed(ctx context.Context, f *fleetResult, dir string) error {
	b.logf("fleet: seeding %d pods in each of %d clusters, %d at a time", f.podsPer, f.clusters, f.seedParallel)
	start := time.Now()
	lines := make([]string, f.clusters)
	errs := make([]error, f.clusters)
	sem := make(chan struct{}, f.seedParallel)
	var wg sync.WaitGroup
	for i := 1; i <= f.clusters; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				errs[i-1] = ctx.Err()
				return
			}
			defer func() { <-sem }()
			out, err := b.tool(ctx, "hack/seed", "pods",
				"--kubeconfig", filepath.Join(dir, fleetContext(i), "admin.kubeconfig"),
				"--count", strconv.Itoa(f.podsPer),
				"--namespaces", strconv.Itoa(seedNamespaces), "--nodes", strconv.Itoa(seedNodes),
				"--images", strconv.Itoa(seedImages), "--apps", strconv.Itoa(seedApps))
			if err != nil {
				errs[i-1] = fmt.Errorf("seeding %s: %w", fleetContext(i), err)
				return
			}
			lines[i-1] = fleetContext(i) + ": " + strings.TrimSpace(out)
		}()
	}
	wg.Wait()
	f.seedWall = time.Since(start)
	f.seedLines = lines
	return errors.Join(errs...)
}

// fleetCases are, for each fleet query, the fleet run through kubectl, the
// same query once per context, and (query a) the fleet run with the binary
// directly; then the raw protobuf LIST of all pods of each context.
func (b *bench) fleetCases(dir string, f *fleetResult) []benchCase {
	env := []string{"KUBECONFIG=" + filepath.Join(dir, "kubeconfig")}
	d := dataSetOf(f.podsPer)
	var cases []benchCase
	for qi, q := range fleetQueries() {
		args := append(append([]string(nil), q.args...), "--context", "fleet-*")
		c := b.kubectl(fleetCaseID(q, 0), "kubectl informer "+shellJoin(args), append([]string{"informer"}, args...)...)
		c.env, c.check = env, expectLines(q.lines(d, f.clusters))
		cases = append(cases, c)
		if qi == 0 {
			c := b.direct(fleetCaseID(q, 0)+"-direct", "kubectl-informer "+shellJoin(args)+" (binary run directly)", args...)
			c.env, c.check = env, expectLines(q.lines(d, f.clusters))
			cases = append(cases, c)
		}
		for i := 1; i <= f.clusters; i++ {
			args := append(append([]string(nil), q.args...), "--context", fleetContext(i))
			c := b.kubectl(fleetCaseID(q, i), "kubectl informer "+shellJoin(args), append([]string{"informer"}, args...)...)
			c.env, c.check = env, expectLines(q.lines(d, 1))
			cases = append(cases, c)
		}
	}
	for i := 1; i <= f.clusters; i++ {
		c := benchCase{id: fleetRawID(i), title: "raw protobuf LIST of all pods of " + fleetContext(i), check: expectRawList,
			argv: []string{b.rawlist, "--kubeconfig", filepath.Join(dir, fleetContext(i), "admin.kubeconfig"),
				"--path", "/api/v1/pods", "--accept", acceptProtobuf}}
		cases = append(cases, c)
	}
	return cases
}

// dataSetOf is the seeded data set of pods pods.
func dataSetOf(pods int) dataSet {
	return dataSet{pods: pods, image: queryImage, byImage: matching(pods, seedImages, 3),
		app: queryApp, byApp: matching(pods, seedApps, 3), nodes: min(pods, seedNodes)}
}

// memAvailableKiB is MemAvailable from /proc/meminfo, or -1.
func memAvailableKiB() int64 {
	fh, err := os.Open("/proc/meminfo")
	if err != nil {
		return -1
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) >= 2 && f[0] == "MemAvailable:" {
			v, err := strconv.ParseInt(f[1], 10, 64)
			if err == nil {
				return v
			}
		}
	}
	return -1
}

// fleetControlPlane reads each cluster's cluster.json (written by
// hack/cluster up) for the pids and ports of its etcd and kube-apiserver:
// their summed RSS in KiB, the largest etcd database file and the number of
// distinct ports the fleet listens on.
func fleetControlPlane(dir string, n int) (rssKiB, dbMax int64, ports int) {
	seen := map[int]bool{}
	for i := 1; i <= n; i++ {
		cdir := filepath.Join(dir, fleetContext(i))
		data, err := os.ReadFile(filepath.Join(cdir, "cluster.json"))
		if err != nil {
			continue
		}
		var st struct {
			Etcd struct {
				ClientPort int `json:"clientPort"`
				PeerPort   int `json:"peerPort"`
				PID        int `json:"pid"`
			} `json:"etcd"`
			APIServers map[string]struct {
				Port int `json:"port"`
				PID  int `json:"pid"`
			} `json:"apiservers"`
		}
		if json.Unmarshal(data, &st) != nil {
			continue
		}
		pids := []int{st.Etcd.PID}
		seen[st.Etcd.ClientPort], seen[st.Etcd.PeerPort] = true, true
		for _, a := range st.APIServers {
			pids = append(pids, a.PID)
			seen[a.Port] = true
		}
		for _, pid := range pids {
			anon, file := procRSS(pid)
			rssKiB += anon + file
		}
		if fi, err := os.Stat(filepath.Join(cdir, "etcd", "member", "snap", "db")); err == nil {
			dbMax = max(dbMax, fi.Size())
		}
	}
	delete(seen, 0)
	return rssKiB, dbMax, len(seen)
}

// fleetSum is, over the rounds, the per-context runs of a query one after
// another: the median of the rounds' summed walls and CPU, their range, and
// the median of each round's largest peak RSS; anon and file are the
// largest polled RssAnon and RssFile of any context.
type fleetSum struct {
	wall, cpu, rssMiB float64
	lo, hi            float64
	anonKiB, fileKiB  int64
	ok                bool
}

func (f *fleetResult) sum(ids []string) fleetSum {
	var walls, cpus, rsss []float64
	var s fleetSum
	for round := 0; round < f.runs; round++ {
		var w, c, r float64
		for _, id := range ids {
			res := f.results[id]
			if res == nil || len(res.samples) <= round {
				return fleetSum{}
			}
			smp := res.samples[round]
			w += smp.wall.Seconds()
			c += smp.cpu.Seconds()
			r = max(r, float64(smp.rssKiB)/1024)
		}
		walls, cpus, rsss = append(walls, w), append(cpus, c), append(rsss, r)
		if round == 0 || w < s.lo {
			s.lo = w
		}
		s.hi = max(s.hi, w)
	}
	for _, id := range ids {
		s.anonKiB = max(s.anonKiB, f.results[id].anonKiB)
		s.fileKiB = max(s.fileKiB, f.results[id].fileKiB)
	}
	s.wall, s.cpu, s.rssMiB, s.ok = median(walls), median(cpus), median(rsss), len(walls) > 0
	return s
}

func (f *fleetResult) perContextIDs(q fleetQuery) []string {
	var ids []string
	for i := 1; i <= f.clusters; i++ {
		ids = append(ids, fleetCaseID(q, i))
	}
	return ids
}

func (f *fleetResult) rawIDs() []string {
	var ids []string
	for i := 1; i <= f.clusters; i++ {
		ids = append(ids, fleetRawID(i))
	}
	return ids
}

// fleetTargets checks issue 25's targets: each fleet query's wall against
// 0.6× the sum of its per-context runs, and its peak memory per pod read
// against 2 KiB.
func (f *fleetResult) targets() []targetResult {
	if f == nil || f.results == nil {
		return nil
	}
	var ts []targetResult
	pods := float64(f.totalPods())
	for _, q := range fleetQueries() {
		for _, v := range []struct{ id, how string }{{fleetCaseID(q, 0), "kubectl informer"}, {fleetCaseID(q, 0) + "-direct", "binary directly"}} {
			res := f.results[v.id]
			if res == nil || len(res.samples) == 0 {
				continue
			}
			name := fmt.Sprintf("fleet %s (%s)", q.title[:1], v.how)
			if sum := f.sum(f.perContextIDs(q)); sum.ok && v.how == "kubectl informer" {
				t := newTarget("fleet", name+fmt.Sprintf(": wall ≤ 0.6× the sum of the %d per-context runs", f.clusters),
					res.wall()/sum.wall, 0.6, "×", "%.2f")
				t.note = fmt.Sprintf("fleet %.3f s, per-context sum %.3f s; CPU %.3f s vs. %.3f s (%.2f×)", res.wall(), sum.wall, res.cpu(), sum.cpu, res.cpu()/sum.cpu)
				if raw := f.sum(f.rawIDs()); raw.ok {
					t.note += fmt.Sprintf("; the raw protobuf LISTs of the %d contexts one after another took %.3f s", f.clusters, raw.wall)
				}
				ts = append(ts, t)
			}
			t := newTarget("fleet", fmt.Sprintf("%s: peak RSS (`ru_maxrss`) per pod read ≤ 2 KiB", name),
				res.rss()*1024/pods, 2, " KiB", "%.2f")
			t.note = fmt.Sprintf("%.1f MiB over %d pods", res.rss(), f.totalPods())
			ts = append(ts, t)
			if res.anonKiB > 0 {
				t := newTarget("fleet", fmt.Sprintf("%s: RssAnon per pod read ≤ 2 KiB", name),
					float64(res.anonKiB)/pods, 2, " KiB", "%.2f")
				t.note = fmt.Sprintf("%.1f MiB anonymous (heap, stacks) over %d pods, one polled run; the %.1f MiB of file-backed pages (the binary, shared with the page cache) left out",
					float64(res.anonKiB)/1024, f.totalPods(), float64(res.fileKiB)/1024)
				ts = append(ts, t)
			}
		}
	}
	return ts
}

// fleetCells are the cells after the command of one fleet table row.
func fleetCells(wall, lo, hi, cpu, rss float64, anonKiB, fileKiB int64, ratio string, load float64) string {
	loadCell := "–"
	if load >= 0 {
		loadCell = fmt.Sprintf("%.2f", load)
	}
	return fmt.Sprintf(" %.3f (%.3f–%.3f) | %.3f | %.1f | %.1f / %.1f | %s | %s |", wall, lo, hi, cpu, rss,
		float64(anonKiB)/1024, float64(fileKiB)/1024, ratio, loadCell)
}

func (r *report) fleetSection() string {
	f := r.fleet
	if f == nil {
		return ""
	}
	var s strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&s, format, args...) }
	p("## Fleet (%d clusters × %d pods, median of %d runs)\n\n", f.clusters, f.podsPer, f.runs)
	p("`hack/cluster fleet up DIR --clusters %d` started %d control planes (each its own etcd and kube-apiserver, as `hack/cluster up`), in parallel, in **%.1f s**; `hack/seed pods --count %d` (10 namespaces, 50 nodes, 20 images, 10 apps, as the main cluster's pods) then seeded each, %d clusters at a time, in **%.1f s** in all (%.0f pods/s over the fleet). The fleet was stopped at the end of the step. The commands run with the fleet's kubeconfig (contexts fleet-1..fleet-%d); after one unmeasured warm-up run of each, %d rounds ran every command once, interleaved as in the query table, so the per-context runs of a query ran one after another within a round. *Per-context sum* is, per round, the sum of the %d per-context runs' walls (and CPU), and the median over the rounds; its peak RSS is the largest of the round, and RssAnon / RssFile the largest of any context's polled run. *Fleet ÷* compares the fleet's median wall and CPU with it.\n\n",
		f.clusters, f.clusters, f.upWall.Seconds(), f.podsPer, f.seedParallel, f.seedWall.Seconds(),
		float64(f.totalPods())/max(f.seedWall.Seconds(), 1e-9), f.clusters, f.runs, f.clusters)
	if f.err != "" {
		p("**The step failed**: %s\n\n", f.err)
	}
	if len(f.seedLines) > 0 {
		p("<details><summary>seeding, per cluster</summary>\n\n")
		for _, l := range f.seedLines {
			if l != "" {
				p("- %s\n", l)
			}
		}
		p("\n</details>\n\n")
	}
	p("%s", f.machineNote())
	if f.results == nil {
		return s.String()
	}
	p("| query | command | wall s (min–max) | CPU s | peak RSS MiB | RssAnon / RssFile MiB | fleet ÷ this (wall ; CPU) | load |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n")
	raw := f.sum(f.rawIDs())
	for _, q := range fleetQueries() {
		fleet := f.results[fleetCaseID(q, 0)]
		if fleet == nil || len(fleet.samples) == 0 {
			continue
		}
		sum := f.sum(f.perContextIDs(q))
		title := q.title
		for _, id := range []string{fleetCaseID(q, 0), fleetCaseID(q, 0) + "-direct"} {
			res := f.results[id]
			if res == nil || len(res.samples) == 0 {
				continue
			}
			lo, hi := res.wallRange()
			label := "`kubectl informer " + shellJoin(append(append([]string(nil), q.args...), "--context", "fleet-*")) + "`"
			if strings.HasSuffix(id, "-direct") {
				label = "the same, plugin binary run directly"
			}
			p("| %s | %s |%s\n", title, label, fleetCells(res.wall(), lo, hi, res.cpu(), res.rss(), res.anonKiB, res.fileKiB, "–", res.load()))
			title = ""
		}
		if sum.ok {
			label := fmt.Sprintf("the same with `--context fleet-I`, for I = 1..%d one after another: **per-context sum**", f.clusters)
			ratio := fmt.Sprintf("**%.2f×** ; %.2f×", fleet.wall()/sum.wall, fleet.cpu()/sum.cpu)
			p("| | %s |%s\n", label, fleetCells(sum.wall, sum.lo, sum.hi, sum.cpu, sum.rssMiB, sum.anonKiB, sum.fileKiB, ratio, -1))
		}
		if raw.ok {
			p("| | floor: the raw protobuf LISTs of all pods, one per context, one after another (sum) | – | – | – | – | %.2f× ; %.2f× | – |\n",
				fleet.wall()/raw.wall, fleet.cpu()/raw.cpu)
		}
	}
	if raw.ok {
		body := bodyBytes(f.results[fleetRawID(1)])
		label := "floor: raw protobuf LIST of all pods of each context, one after another (sum)"
		if body > 0 {
			label += fmt.Sprintf(" (body %.1f MB per context)", float64(body)/1e6)
		}
		p("| floor | %s |%s\n", label, fleetCells(raw.wall, raw.lo, raw.hi, raw.cpu, raw.rssMiB, raw.anonKiB, raw.fileKiB, "baseline", -1))
	}
	p("\n")
	var warns []string
	for _, res := range f.results {
		if res.warn != "" {
			warns = append(warns, fmt.Sprintf("- ⚠ %s: %s\n", res.c.id, res.warn))
		}
	}
	if len(warns) > 0 {
		slices.Sort(warns)
		p("%s\n", strings.Join(warns, ""))
	}
	p("One context alone, median over the contexts of their medians: ")
	var parts []string
	for _, q := range fleetQueries() {
		var w, m []float64
		for _, id := range f.perContextIDs(q) {
			if res := f.results[id]; res != nil && len(res.samples) > 0 {
				w, m = append(w, res.wall()), append(m, res.rss())
			}
		}
		if len(w) > 0 {
			parts = append(parts, fmt.Sprintf("%s %.3f s and %.1f MiB", q.title[:1], median(w), median(m)))
		}
	}
	p("%s.\n\n", strings.Join(parts, "; "))

	if ts := f.targets(); len(ts) > 0 {
		p("### Fleet targets (issue 25)\n\n| target | measured | limit | verdict | note |\n| --- | --- | --- | --- | --- |\n")
		for _, t := range ts {
			p("| %s | %s | %s | %s | %s |\n", t.name, t.measured, t.limit, t.verdict(), t.note)
		}
		p("\n*Pods read* = %d clusters × %d pods = %d: every pod of every context, which each of these queries lists. Through `kubectl informer`, peak RSS is the larger of kubectl's own peak before it execs the plugin (same pid) and the plugin's.\n\n",
			f.clusters, f.podsPer, f.totalPods())
	}
	return s.String()
}

// machineNote says whether the machine coped with the fleet: memory
// available at each moment, the control planes' RSS, etcd's database
// against its quota, and the ports.
func (f *fleetResult) machineNote() string {
	var parts []string
	for _, m := range f.memAvailable {
		if m.kib >= 0 {
			parts = append(parts, fmt.Sprintf("%.1f GiB %s", float64(m.kib)/(1<<20), m.when))
		}
	}
	note := "Did the machine cope? MemAvailable (`/proc/meminfo`, the whole machine, other work included): " + strings.Join(parts, ", ")
	if f.memLowKiB > 0 {
		note += fmt.Sprintf("; its lowest, polled every second through the step, %.1f GiB", float64(f.memLowKiB)/(1<<20))
	}
	note += "."
	if f.controlPlaneKiB > 0 {
		note += fmt.Sprintf(" After seeding, the fleet's %d etcd and kube-apiserver processes held %.2f GiB resident in all (%.0f MiB per cluster).",
			2*f.clusters, float64(f.controlPlaneKiB)/(1<<20), float64(f.controlPlaneKiB)/1024/float64(f.clusters))
	}
	if f.etcdDBMax > 0 {
		note += fmt.Sprintf(" The largest etcd database was %.1f MiB, %.1f%% of etcd's default 2 GiB quota (`--quota-backend-bytes`, which hack/cluster leaves as is).",
			float64(f.etcdDBMax)/(1<<20), 100*float64(f.etcdDBMax)/fleetEtcdQuota)
	}
	if f.ports > 0 {
		note += fmt.Sprintf(" Ports: each cluster picks free loopback ports when it starts; the fleet listened on %d distinct ports (etcd client and peer, kube-apiserver).", f.ports)
	}
	return note + "\n\n"
}
