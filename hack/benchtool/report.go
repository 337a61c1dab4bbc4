package main

import (
	"fmt"
	"runtime"
	"strings"
	"time"
)

// report is everything RESULTS.md shows.
type report struct {
	began     time.Time
	elapsed   time.Duration
	runs      int
	machine   machineInfo
	seedNotes []string

	queryPods int
	queries   map[string]*result
	watches   []watchResult
	targets   []targetResult

	memory     []memoryResult
	memoryLoad float64

	profiles   []profileSummary
	profileErr string
	profileDir string

	realistic *realisticResult
	warm      *warmResult
	// startup is the startup step's, nil when it did not run.
	startup *startupResult
	clients *clientsResult
	offline *offlineResult
	// mustGather is the must-gather step's, nil when it did not run.
	mustGather *mustGatherResult
	recording  *recordingResult
	fleet      *fleetResult
	// mcp is the mcp step's, nil when it did not run.
	mcp *mcpResult
	// usage is the usage step's, nil when it did not run.
	usage *usageResult

	micro     string
	microLoad float64
	scale     []scaleResult
	load      *loadResult
	soak      *soakResult

	loadWaits int
	loadEnd   float64
}

type scaleResult struct {
	pods    int
	results map[string]*result
	// warm is query 1 without and through a warm cache, nil until measured.
	warm *warmResult
	// served says, by case id, what the warm cache did with a probed run.
	served map[string]string
	// first are the warm cases of firstAfterSync, one run each right after
	// the cache synced.
	first map[string]*result
}

// targetResult is one target, met or missed.
type targetResult struct {
	group    string // q1, q2 or watch: what to profile when missed
	name     string
	measured string
	limit    string
	ratio    float64 // measured / limit; met when ≤ 1
	met      bool
	note     string
}

func (t targetResult) verdict() string {
	if t.met {
		return fmt.Sprintf("met (%.0f%% of the limit)", 100*t.ratio)
	}
	return fmt.Sprintf("**missed** by %.0f%% (%.2f× the limit)", 100*(t.ratio-1), t.ratio)
}

func newTarget(group, name string, measured, limit float64, unit string, format string) targetResult {
	t := targetResult{group: group, name: name, ratio: measured / limit}
	t.met = t.ratio <= 1
	t.measured = fmt.Sprintf(format, measured) + unit
	t.limit = fmt.Sprintf(format, limit) + unit
	return t
}

// evaluate checks the targets of the issue against the medians.
func (b *bench) evaluate() []targetResult {
	q := b.rep.queries
	var ts []targetResult
	has := func(ids ...string) bool {
		for _, id := range ids {
			if r := q[id]; r == nil || len(r.samples) == 0 {
				return false
			}
		}
		return true
	}
	for _, v := range []struct{ id, how string }{{"q1", "kubectl informer"}, {"q1-direct", "binary directly"}} {
		if has(v.id, "raw-pb") {
			t := newTarget("q1", fmt.Sprintf("1 (%s): wall ≤ 1.5× raw protobuf LIST", v.how),
				q[v.id].wall()/q["raw-pb"].wall(), 1.5, "×", "%.2f")
			if has("decode-pb") {
				t.note = fmt.Sprintf("decoding the same LIST into []v1.Pod alone (client-go, no informer) takes %.2f× the raw LIST; this is %.2f× that",
					q["decode-pb"].wall()/q["raw-pb"].wall(), q[v.id].wall()/q["decode-pb"].wall())
			}
			ts = append(ts, t)
		}
		if has(v.id, "kubectl-get") {
			ts = append(ts, newTarget("q1", fmt.Sprintf("1 (%s): wall ≤ 0.1× kubectl get -o jsonpath", v.how),
				q[v.id].wall()/q["kubectl-get"].wall(), 0.1, "×", "%.3f"))
		}
		if has(v.id) {
			t := newTarget("q1", fmt.Sprintf("1 (%s): peak RSS ≤ 100 MiB", v.how), q[v.id].rss(), 100, " MiB", "%.1f")
			t.note = q[v.id].rssSplit()
			ts = append(ts, t)
		}
	}
	for _, v := range []struct{ id, how string }{{"q2", "kubectl informer"}, {"q2-direct", "binary directly"}} {
		if has(v.id, "raw-meta") {
			t := newTarget("q2", fmt.Sprintf("2 (%s): wall ≤ 3× raw metadata LIST", v.how),
				q[v.id].wall()/q["raw-meta"].wall(), 3, "×", "%.2f")
			if has("decode-meta") {
				t.note = fmt.Sprintf("decoding the same LIST alone (client-go's metadata client) takes %.2f× the raw LIST; this is %.2f× that",
					q["decode-meta"].wall()/q["raw-meta"].wall(), q[v.id].wall()/q["decode-meta"].wall())
			}
			ts = append(ts, t)
		}
		if has(v.id) {
			t := newTarget("q2", fmt.Sprintf("2 (%s): peak RSS ≤ 50 MiB", v.how), q[v.id].rss(), 50, " MiB", "%.1f")
			t.note = q[v.id].rssSplit()
			ts = append(ts, t)
		}
	}
	for _, w := range b.rep.watches {
		if w.events == 0 {
			continue
		}
		if w.output == "text" {
			t := newTarget("watch", fmt.Sprintf("6 (churn at %d/s, -o text): CPU ≤ 50 µs per compact-diffed update", w.rate),
				us(w.cpuPerEvent()), 50, " µs", "%.0f")
			if w.floorEvents > 0 {
				t.note = fmt.Sprintf("a client-go watch that only decodes and prints each event (the floor) used %.0f µs per event beside it; the plugin adds %.0f µs",
					us(w.floorCPUPerEvent()), us(w.cpuPerEvent())-us(w.floorCPUPerEvent()))
			}
			ts = append(ts, t)
			continue
		}
		ts = append(ts, newTarget("watch", fmt.Sprintf("6 (churn at %d/s, -o json): lag p99 ≤ 50 ms", w.rate),
			float64(w.p99.Microseconds())/1e3, 50, " ms", "%.1f"))
		ts[len(ts)-1].note = fmt.Sprintf("a metadata watch in the harness saw p99 %s; the plugin's own share (its arrival − the reference's) p99 %s",
			ms(w.rawP99), ms(w.addedP99))
	}
	return ts
}

// us is d in microseconds.
func us(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }

// queryRow is one line of the query table.
type queryRow struct {
	label     string
	id        string
	baselines []string
}

var queryGroups = []struct {
	title string
	rows  []queryRow
}{
	{"1. pods by image (full objects)", []queryRow{
		{"`kubectl informer query pods -A --index image=… -o name`", "q1", []string{"raw-pb", "decode-pb", "kubectl-get"}},
		{"the same, plugin binary run directly", "q1-direct", []string{"raw-pb", "decode-pb", "kubectl-get"}},
		{"floor: raw protobuf LIST of all pods", "raw-pb", nil},
		{"floor: the same LIST decoded into []v1.Pod (`benchtool/floor list`, client-go typed client)", "decode-pb", []string{"raw-pb"}},
		{"the raw LIST uncompressed (`rawlist --no-gzip`)", "raw-pb-plain", []string{"raw-pb"}},
		{"the raw LIST as JSON (what a dynamic informer reads)", "raw-json-pods", []string{"raw-pb"}},
		{"today: `kubectl get pods -A -o jsonpath=…`", "kubectl-get", []string{"raw-pb"}},
	}},
	{"2. pods by label (metadata only)", []queryRow{
		{"`kubectl informer query pods -A --index label:app=… -o name`", "q2", []string{"raw-meta", "decode-meta"}},
		{"the same, plugin binary run directly", "q2-direct", []string{"raw-meta", "decode-meta"}},
		{"floor: raw metadata-only protobuf LIST", "raw-meta", nil},
		{"floor: the same LIST decoded (`benchtool/floor list --metadata`, client-go metadata client)", "decode-meta", []string{"raw-meta"}},
	}},
	{"3. pods per node", []queryRow{
		{"`kubectl informer query pods -A --group-by node`", "q3", []string{"raw-pb", "decode-pb"}},
	}},
	{"4. widgets by a JSONPath index (CRD, dynamic JSON)", []queryRow{
		{"`kubectl informer query widgets -A --indexer color='{.spec.color}' --index color=red -o name`", "q4", []string{"raw-json-widgets"}},
		{"floor: raw JSON LIST of all widgets", "raw-json-widgets", nil},
	}},
	{"5. query 1 without streaming WatchList", []queryRow{
		{"`KUBE_FEATURE_WatchListClient=false kubectl informer query pods -A --index image=… -o name`", "q5", []string{"q1", "raw-pb"}},
	}},
	{"6. capacity: pods joined to nodes (realistic set only; kube-capacity took 1.29 s and 280 MiB on 10,000 real pods on 60 nodes, measured elsewhere)", []queryRow{
		{"`kubectl informer capacity`", "capacity", []string{"raw-pb", "raw-nodes"}},
		{"floor: raw protobuf LIST of all nodes", "raw-nodes", nil},
	}},
	{"start-up only (no requests)", []queryRow{
		{"`kubectl-informer version` (the plugin's start-up floor)", "plugin-version", nil},
		{"`kubectl version --client` (kubectl before it execs a plugin)", "kubectl-version", nil},
	}},
}

var shortName = map[string]string{
	"q1": "query 1", "q1-direct": "query 1 direct", "q2": "query 2", "raw-pb": "raw LIST",
	"raw-meta": "raw metadata LIST", "raw-json-widgets": "raw JSON LIST", "kubectl-get": "kubectl get",
	"decode-pb": "LIST+decode", "decode-meta": "metadata LIST+decode",
	"w-q1-cold-direct": "cold", "w-q1-warm-direct": "warm direct", "w-q3-cold": "cold", "w-plugin-version": "plugin start", "w-kubectl-plugin-version": "kubectl exec",
	"q2-direct": "query 2 direct", "q3": "query 3", "q5": "query 5",
	"raw-pb-plain": "uncompressed LIST", "raw-json-pods": "JSON LIST",
	"capacity": "capacity", "raw-nodes": "raw nodes LIST",
	"off-decode": "plain decode", "off-decode-typed": "typed decode", "off-read": "file read",
	"mg-omc-pods": "omc", "mg-omc-events": "omc", "mg-read": "every file read",
}

func (r *report) markdown() string {
	var s strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&s, format, args...) }
	m := r.machine
	p("# Benchmark results\n\n")
	p("Written by `hack/bench` (issue 7) on %s; the whole run took %s. See `bench/README.md` for how to run it and what each number means.\n\n",
		r.began.UTC().Format("2006-01-02 15:04 MST"), r.elapsed.Round(time.Second))
	p("## Machine\n\n| | |\n| --- | --- |\n")
	p("| CPUs (nproc) | %d (GOMAXPROCS %d) |\n| CPU | %s |\n| memory | %s |\n| kernel | %s |\n", m.nproc, runtime.GOMAXPROCS(0), m.cpuModel, m.memory, m.kernel)
	p("| kube-apiserver | %s, with etcd, started by `hack/cluster up` on the same machine |\n", m.apiserver)
	p("| kubectl | %s |\n| go | %s |\n| plugin | %s |\n", m.kubectl, m.goVersion, m.pluginVersion)
	p("| load average (1, 5, 15 min) | %s at the start; %.2f at the end |\n\n", m.load, r.loadEnd)
	if r.loadWaits > 0 {
		p("The machine was shared: before %d of the rounds the 1-minute load average was above BENCH_MAX_LOAD and the bench waited (at most BENCH_LOAD_WAIT) before going on. Every result shows the median load it ran under; wall times under load above the CPU count are inflated, CPU times much less so.\n\n", r.loadWaits)
	}
	p("Data: %s.\n\n", strings.Join(r.seedNotes, "; "))

	if len(r.queries) > 0 {
		p("## Queries (%d pods, median of %d runs)\n\n", r.queryPods, r.runs)
		p("Each command is a separate process; wall time is from fork to exit, CPU is user+system and peak RSS is `ru_maxrss`, all from `wait4` (through `hack/benchtool/runner`, see below). One unmeasured warm-up run of each command comes first (it also fills the discovery cache). *RssAnon / RssFile* are the peaks of `/proc/PID/status` polled every 2 ms in one extra run: anonymous memory (heap, stacks) and file-backed pages (mostly the program's own binary, shared with the page cache); `ru_maxrss` counts both.\n\n")
		p("%s", r.queryTable(r.queries))
	}

	if len(r.targets) > 0 {
		p("## Targets\n\n| target | measured | limit | verdict | note |\n| --- | --- | --- | --- | --- |\n")
		for _, t := range r.targets {
			p("| %s | %s | %s | %s | %s |\n", t.name, t.measured, t.limit, t.verdict(), t.note)
		}
		p("\nThrough `kubectl informer`, peak RSS is the larger of kubectl's own peak before it execs the plugin (same pid) and the plugin's; the \"binary directly\" rows are the plugin alone.\n\n")
	}

	p("%s", r.warmSection())
	p("%s", r.startupSection())
	p("%s", r.clientsSection())
	p("%s", r.realisticSection())

	if len(r.memory) > 0 {
		p("## Memory per cached object (%d pods)\n\n", r.memory[0].Objects)
		p("`benchtool memory`: one informer of the plugin's engine (`pkg/engine`) over all pods, in a process of its own per row; the live heap (`HeapAlloc`) and the heap in use (`HeapInuse`) after a forced GC with the cache synced, minus the same before the sync, over the number of cached pods. It counts the objects as the informer keeps them (after the engine's transform), the store and its namespace index. Load %.2f when it began.\n\n", r.memoryLoad)
		p("| informer kind | managedFields | pods | live heap per pod | heap in use per pod | vs. wire size | sync s |\n| --- | --- | --- | --- | --- | --- | --- |\n")
		for _, m := range r.memory {
			p("| %s | %s | %d | %.0f B | %.0f B | %s | %.2f |\n", m.Kind, m.ManagedFields, m.Objects, m.livePerObject(), m.inusePerObject(), r.wireRatio(m), m.Sync.Seconds())
		}
		p("\n*typed* decodes protobuf into client-go's Go types (what the plugin uses for built-in types when it needs whole objects); *dynamic* decodes JSON into unstructured maps (custom resources, or any type when the API server source has no typed client, as the benchmark's --kind dynamic sets it); *metadata* keeps PartialObjectMetadata (metadata-only indexes). *drop* is the engine's default transform, *summarize* keeps each managedFields entry without its field set, *intern* keeps the field sets with identical ones shared (what watch uses, to name who changed an object by field ownership), *keep* caches them as sent. *vs. wire size* compares the live heap per pod with the body of the raw LIST of the same kind (protobuf, metadata-only protobuf, or JSON per pod as the dynamic client receives it) divided by the pods.\n\n")
	}

	if len(r.watches) > 0 {
		p("## Watch under churn (`kubectl informer watch pods -n NS -o json` and `-o text`)\n\n")
		p("Each row is one watch of the churned namespace; beside it, during the same churn, `benchtool/floor watch` (a client-go protobuf watch of the same pods that decodes each event and prints one line, without informer or diff) is the floor of *CPU per event*.\n\n")
		p("| -o | churn target/s | achieved/s | updates stamped | events printed | events/s | CPU per event | floor CPU per event | CPU (watch phase / whole run) | peak RSS MiB | lag p50 | lag p99 | lag max | reference watch lag p50 / p99 | added by the plugin p50 / p99 / max | load |\n")
		p("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
		for _, w := range r.watches {
			lag := fmt.Sprintf("%s | %s | %s | %s / %s | %s / %s / %s", ms(w.p50), ms(w.p99), ms(w.maxLag), ms(w.rawP50), ms(w.rawP99), ms(w.addedP50), ms(w.addedP99), ms(w.addedMax))
			if w.output != "json" {
				lag = "– | – | – | – | –"
			}
			p("| %s | %d | %.1f | %d | %d | %.1f | %.0f µs | %.0f µs (%d events) | %.2fs / %.2fs | %.1f | %s | %.2f |\n",
				w.output, w.rate, w.achieved, w.updates, w.events, w.eventRate, us(w.cpuPerEvent()), us(w.floorCPUPerEvent()), w.floorEvents,
				w.watchCPU.Seconds(), w.totalCPU.Seconds(), float64(w.rssKiB)/1024, lag, w.load1)
		}
		p("\n")
		for _, w := range r.watches {
			if w.output != "json" {
				if len(w.warnings) > 0 {
					p("- -o %s, %d/s: plugin stderr: %q\n", w.output, w.rate, tail(strings.Join(w.warnings, " | "), 300))
				}
				continue
			}
			p("- %d/s: `%s`; %d events matched to a stamp, %d stamps seen by the reference watch", w.rate, w.churnLine, w.matched, w.rawMatched)
			if len(w.unmatchedBy) > 0 {
				p("; not matched to a stamp: %v", w.unmatchedBy)
			}
			if w.negative > 0 {
				p("; %d events arrived before churn had read its own response (negative lag)", w.negative)
			}
			if len(w.warnings) > 0 {
				p("; plugin stderr: %q", tail(strings.Join(w.warnings, " | "), 300))
			}
			p("\n")
		}
		p("\n")
	}

	if len(r.scale) > 0 {
		p("## Scale (BENCH_SCALE=1; median of %d runs)\n\n", r.runs)
		p("At each pod count: queries 1 and 2 and their floors; then `kubectl informer cache start`, query 1 without the cache (`--cache off`) and through it, directly and through kubectl, interleaved with the start-up rows (the unmeasured warm-up run of each fills the cache), the cache process's memory, and `cache stop`.\n\n")
		p("%s", scaleIntro)
		p("| pods | command | wall s (min–max) | CPU s | peak RSS MiB | RssAnon / RssFile MiB | ratios to baselines (wall; RSS) | load |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n")
		for _, sc := range r.scale {
			for _, g := range queryGroups[:2] {
				for _, row := range g.rows {
					if sc.results[row.id] == nil {
						continue
					}
					p("| %d | %s%s |%s\n", sc.pods, row.label, bodySize(sc.results[row.id]), r.resultCells(sc.results, row))
				}
			}
			for _, row := range scaleRows {
				if res := sc.results[row.id]; res != nil {
					p("| %d | %s: %s%s |%s\n", sc.pods, row.label, res.c.title, bodySize(res), r.resultCells(sc.results, row))
				}
			}
			for _, res := range sc.results {
				if res.warn != "" {
					p("| %d | ⚠ %s: %s | | | | | | |\n", sc.pods, res.c.id, res.warn)
				}
			}
			if sc.warm != nil {
				for _, row := range append(append(append([]queryRow(nil), warmQ1Rows...), scaleWarmRows...), warmStartRows...) {
					if res := sc.warm.results[row.id]; res != nil {
						p("| %d | %s: %s |%s\n", sc.pods, row.label, res.c.title, r.resultCells(sc.warm.results, row))
						if res.warn != "" {
							p("| %d | ⚠ %s: %s | | | | | | |\n", sc.pods, res.c.id, res.warn)
						}
					}
				}
			}
		}
		p("\n")
		for _, sc := range r.scale {
			if sc.warm == nil {
				continue
			}
			if note := sc.warm.memoryNote("the pods once, for every warm row, and the types `uses` reads"); note != "" {
				p("At %d pods (load %.2f when its warm rows began): %s\n\n", sc.pods, sc.warm.load, note)
			} else {
				p("At %d pods: the warm cache held no objects after its rows; they were not warm.\n\n", sc.pods)
			}
		}
		p("%s", r.scaleTargetsSection())
	}
	p("%s", r.loadSection())
	p("%s", r.soakSection())

	p("%s", r.offlineSection())
	p("%s", r.mustGatherSection())
	p("%s", r.recordingSection())
	p("%s", r.fleetSection())
	p("%s", r.mcpSection())
	p("%s", r.usageSection())

	if len(r.profiles) > 0 || r.profileErr != "" {
		p("## Profiles of the missed targets\n\n")
		p("The plugin's own cobra command (`pkg/plugin.NewCmdRoot`) run in-process by `hack/benchtool profile` with `runtime/pprof`; the profiles were in `%s` (removed with the bench's temp dir unless BENCH_KEEP=1).\n\n", r.profileDir)
		if r.profileErr != "" {
			p("Profiling failed: %s\n\n", r.profileErr)
		}
		for _, pr := range r.profiles {
			p("### %s\n\nMissed: %s.\n\n`%s`: %s.\n\n", pr.title, strings.Join(pr.why, "; "), pr.command, pr.note)
			for _, sec := range pr.sections {
				p("%s:\n\n```text\n%s\n```\n\n", sec.title, sec.text)
			}
		}
	}

	if r.micro != "" {
		p("## Go micro-benchmarks\n\n`go test -run='^$' -bench=. -benchmem -count=N ./pkg/...` (load %.2f when it began); the output is as `go test` printed it, ready for `benchstat`.\n\n```text\n%s```\n\n", r.microLoad, r.micro)
	}
	p("%s", methodNotes)
	return s.String()
}

// queryTable is the table of the query groups' rows that have results,
// then a line for each failed check.
func (r *report) queryTable(results map[string]*result) string {
	var s strings.Builder
	s.WriteString("| query | command | wall s (min–max) | CPU s | peak RSS MiB | RssAnon / RssFile MiB | ratios to baselines (wall; RSS) | load |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, g := range queryGroups {
		title := g.title
		for _, row := range g.rows {
			if results[row.id] == nil {
				continue
			}
			fmt.Fprintf(&s, "| %s | %s%s |%s\n", title, row.label, bodySize(results[row.id]), r.resultCells(results, row))
			title = ""
		}
	}
	s.WriteString("\n")
	for _, g := range queryGroups {
		for _, row := range g.rows {
			if res := results[row.id]; res != nil && res.warn != "" {
				fmt.Fprintf(&s, "- ⚠ %s: %s\n", row.id, res.warn)
			}
		}
	}
	return s.String()
}

func (r *report) resultCells(results map[string]*result, row queryRow) string {
	res := results[row.id]
	if res == nil || len(res.samples) == 0 {
		return " – | – | – | – | – | – |"
	}
	lo, hi := res.wallRange()
	var ratios []string
	for _, base := range row.baselines {
		bres := results[base]
		if bres == nil || len(bres.samples) == 0 {
			continue
		}
		ratios = append(ratios, fmt.Sprintf("%.2f× ; %.2f× %s", res.wall()/bres.wall(), res.rss()/bres.rss(), shortName[base]))
	}
	ratio := strings.Join(ratios, "<br>")
	if ratio == "" {
		ratio = "baseline"
	}
	return fmt.Sprintf(" %.3f (%.3f–%.3f) | %.3f | %.1f | %.1f / %.1f | %s | %.2f |", res.wall(), lo, hi, res.cpu(), res.rss(),
		float64(res.anonKiB)/1024, float64(res.fileKiB)/1024, ratio, res.load())
}

// rssSplit says how much of the peak RSS was heap and how much the
// binary's pages.
func (r *result) rssSplit() string {
	if r.anonKiB == 0 && r.fileKiB == 0 {
		return ""
	}
	return fmt.Sprintf("of which at most %.1f MiB anonymous (heap, stacks) and %.1f MiB the binary's file-backed pages (one polled run)",
		float64(r.anonKiB)/1024, float64(r.fileKiB)/1024)
}

// bodySize is ", N MB body" for a rawlist result.
func bodySize(res *result) string {
	if n := bodyBytes(res); n > 0 {
		return fmt.Sprintf(" (body %.1f MB)", float64(n)/1e6)
	}
	return ""
}

// bodyBytes is the body size a rawlist result printed, or 0.
func bodyBytes(res *result) int64 {
	if res == nil || len(res.samples) == 0 || !strings.HasPrefix(res.c.id, "raw-") {
		return 0
	}
	var n int64
	if _, err := fmt.Sscanf(res.samples[0].stdout, "%d bytes", &n); err != nil {
		return 0
	}
	return n
}

// wireRatio compares a memory row's live heap per pod with the wire size
// per pod of the raw LIST its informer kind reads.
func (r *report) wireRatio(m memoryResult) string {
	id, what := "raw-pb", "protobuf"
	switch m.Kind {
	case "metadata":
		id, what = "raw-meta", "metadata protobuf"
	case "dynamic":
		id, what = "raw-json-pods", "JSON"
	}
	n := bodyBytes(r.queries[id])
	if n == 0 || r.queryPods == 0 {
		return "–"
	}
	perPod := float64(n) / float64(r.queryPods)
	return fmt.Sprintf("%.1f× the %.0f B of %s", m.livePerObject()/perPod, perPod, what)
}

func ms(d time.Duration) string {
	return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1e3)
}

const methodNotes = `## How each number was measured

- **Control plane**: ` + "`hack/cluster up`" + ` (one etcd, one kube-apiserver with RBAC and a Metadata-level audit log) in a temp dir, stopped by a trap in ` + "`hack/bench`" + ` on any exit. Pods: ` + "`hack/seed pods --namespaces 10 --nodes 50 --images 20 --apps 10`" + `; widgets: ` + "`hack/seed widgets`" + `.
- **Wall, CPU, peak RSS**: every command is its own process, started by ` + "`hack/benchtool/runner`" + ` (a few-MiB Go program) which reports the command's wall time (start to ` + "`wait4`" + `), CPU (user+system) and peak RSS (` + "`ru_maxrss`" + `) from ` + "`wait4`" + `. The runner is there because Go starts children with ` + "`clone(CLONE_VM|CLONE_VFORK)`" + ` and the kernel folds the high-water RSS of the shared memory into the child's ` + "`ru_maxrss`" + ` at exec: started by the harness itself, every command showed at least the harness's ~66 MiB. Stdout and stderr go to files, not pipes. Median of BENCH_RUNS runs after one warm-up run; runs are interleaved round-robin, each round starting one command later, so background load drifts spread evenly. Every run's output is checked (expected number of names or rows).
- **Through kubectl**: ` + "`kubectl informer …`" + ` is the real kubectl finding ` + "`bin/kubectl-informer`" + ` on PATH; kubectl execs the plugin in the same process, so wall, CPU and peak RSS include kubectl's own start-up. The *binary directly* rows run ` + "`bin/kubectl-informer`" + ` without kubectl.
- **Raw LIST floors**: ` + "`benchtool rawlist`" + ` as its own process: client-go's transport (TLS, HTTP/2, gzip as the plugin gets it), one unpaginated GET, the body read to the end and discarded, nothing decoded. Protobuf: ` + "`Accept: application/vnd.kubernetes.protobuf`" + `; metadata: ` + "`application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1`" + `; widgets: ` + "`application/json`" + `. One row repeats the pod LIST with ` + "`--no-gzip`" + `, one as JSON.
- **LIST-and-decode floors**: ` + "`benchtool/floor list`" + ` as its own process: the same unpaginated LIST through client-go's typed client (protobuf) into a ` + "`[]v1.Pod`" + `, or with ` + "`--metadata`" + ` through the metadata client into a PartialObjectMetadataList. What a query costs beyond it is the plugin's own (informer, transform, indexes, printing).
- **Realistic data set**: a second cluster, ` + "`hack/cluster up DIR --nodes N`" + ` (kube-controller-manager, kube-scheduler and N nodes simulated by kwok besides etcd and kube-apiserver), stopped at the end of its step; Deployments with realistic pod templates rolled out on it. *Pods per minute* = pods over the time from the first Deployment's create until the Deployments' readyReplicas (polled every second) count every pod, confirmed by a LIST finding every pod Running. *Pod size* = a raw LIST's body over the pods it held. The same pod rows are measured on it as on the seeded set, in rounds of their own; each row's ratio is to the raw protobuf LIST of its own cluster.
- **Memory per cached object**: ` + "`benchtool memory`" + `, one process per row, builds the plugin's engine (` + "`pkg/engine.New`" + `) with one informer of the given kind over all pods, resolves and connects first, and compares ` + "`runtime.ReadMemStats`" + ` after a forced GC (and ` + "`debug.FreeOSMemory`" + `) before and after the sync, the engine still referenced.
- **kubectl get**: ` + "`kubectl get pods -A -o jsonpath='{range .items[?(@.spec.containers[0].image==\"…\")]}{.metadata.name}{\"\\n\"}{end}'`" + `, what users do today.
- **Query 5**: query 1 with ` + "`KUBE_FEATURE_WatchListClient=false`" + `, so the reflector does a paginated LIST (500 per page) and a watch instead of one streaming watch with initial events.
- **Watch**: ` + "`kubectl informer watch pods -n NS -o json`" + ` with its stdout on a pipe read by the harness, which stamps each line with the time it read it. After the plugin prints its synced line, ` + "`hack/seed churn --rate R --duration D --namespace NS --stamp FILE`" + ` runs (labels, annotations, status and a few delete-and-recreates); the stamp file has the time churn got each response and its resourceVersion. *Lag* = time the line was read − stamp time of the event's ` + "`metadata.resourceVersion`" + ` (ADDED and MODIFIED only: a delete prints the last state, whose resourceVersion belongs to an earlier change); it can be slightly negative, since the watch event can beat the PATCH response to the harness. *CPU per event* = the plugin's user+system time from ` + "`/proc/PID/stat`" + ` (10 ms ticks) between its synced line and one quiet second after churn ended, divided by events printed; the whole run's rusage is shown too. *events/s* is events printed over the span from the first to the last. *Reference watch*: a metadata-only protobuf watch of the same namespace inside the harness (client-go, from the current resourceVersion), stamping events as they arrive; its lag is what the apiserver and the shared machine add, and *added by the plugin* is, per resourceVersion, the plugin's line arrival minus the reference's arrival. Each rate runs twice, ` + "`-o json`" + ` (lag) and ` + "`-o text`" + ` (the compact diff of the CPU target; events are its unindented lines). *Floor*: ` + "`benchtool/floor watch`" + `, a client-go protobuf watch of the same namespace (uncompressed, as the plugin's watch asks) that decodes each event and prints one line, runs beside the plugin during the same churn; its CPU per event over the same span is what a client-go watch costs before any informer or diff.
- **Load**: the 1-minute load average when each run began (median shown). On this 2-core machine other builds run at the same time; CPU seconds are the steadier number when the load is high.
- **Profiles**: only where a target is missed, ` + "`benchtool profile`" + ` runs ` + "`pkg/plugin.NewCmdRoot`" + ` in-process under ` + "`runtime/pprof`" + ` (queries: BENCH_PROFILE_REPEAT runs in one profile; watch: one run under churn at the highest rate), summarized with ` + "`go tool pprof -top`" + `. A ` + "`GODEBUG=gctrace=1`" + ` run of the real binary gives the heap sizes behind the peak RSS.
`
