package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/kubectl-informer/kubectl-informer/internal/realdump"
)

// The must-gather step (issue 40): the questions support engineers ask of
// a must-gather, --from the real one kept in internal/realdump (an
// OpenShift 4.8 cluster's: 6 nodes, 239 pods, 5,373 events, 3,526 files),
// beside omc (gmeghnag/omc, the must-gather client OpenShift support uses)
// where BENCH_OMC names its binary, and beside reading every file the
// layout holds objects in.
const (
	mustGatherPods   = 239
	mustGatherEvents = 5373
)

// mustGatherResult is the must-gather step.
type mustGatherResult struct {
	files   int
	bytes   int64
	omc     string // BENCH_OMC, "" when not measured
	results map[string]*result
	load    float64
	runs    int
}

// mustGatherRows are the rows of the must-gather section.
var mustGatherRows = []queryRow{
	{label: "`query pods -A`", id: "mg-pods", baselines: []string{"mg-omc-pods", "mg-read"}},
	{label: "`omc get pods -A`", id: "mg-omc-pods"},
	{label: "`query events -A`", id: "mg-events", baselines: []string{"mg-omc-events", "mg-read"}},
	{label: "`omc get events -A`", id: "mg-omc-events"},
	{label: "`query events -A -o name`", id: "mg-events-names", baselines: []string{"mg-events", "mg-read"}},
	{label: "`query pods -A --group-by node`", id: "mg-group", baselines: []string{"mg-read"}},
	{label: "`capacity`", id: "mg-capacity", baselines: []string{"mg-read"}},
	{label: "`tree deploy/apiserver -n openshift-apiserver`", id: "mg-tree", baselines: []string{"mg-read"}},
	{label: "reading every YAML and JSON file (`find … -exec cat {} +`)", id: "mg-read"},
}

// mustGather unpacks the must-gather into the work directory and measures
// the plugin's answers from it (the binary run directly, no kubeconfig).
func (b *bench) mustGather(ctx context.Context) error {
	dir := filepath.Join(b.workDir, "must-gather")
	b.logf("must-gather: unpacking %s into %s", realdump.Archive(), dir)
	root, err := realdump.Unpack(dir)
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	m := &mustGatherResult{omc: os.Getenv("BENCH_OMC"), load: loadavg1(), runs: b.runs}
	err = filepath.WalkDir(root, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		if info, err := e.Info(); err == nil {
			m.files++
			m.bytes += info.Size()
		}
		return nil
	})
	if err != nil {
		return err
	}
	noCluster := []string{"KUBECONFIG=" + filepath.Join(b.workDir, "no-such-kubeconfig")}
	from := []string{"--from", root}
	plugin := func(id, title string, args ...string) benchCase {
		c := b.direct(id, "kubectl-informer "+title+" --from DIR", append(args, from...)...)
		c.env = noCluster
		return c
	}
	pods := plugin("mg-pods", "query pods -A", "query", "pods", "-A")
	pods.check = expectLines(mustGatherPods + 1)
	events := plugin("mg-events", "query events -A", "query", "events", "-A")
	events.check = expectLines(mustGatherEvents + 1)
	// The same read without a table: what the table costs.
	eventNames := plugin("mg-events-names", "query events -A -o name", "query", "events", "-A", "-o", "name")
	eventNames.check = expectLines(mustGatherEvents)
	cases := []benchCase{
		pods, events, eventNames,
		plugin("mg-group", "query pods -A --group-by node", "query", "pods", "-A", "--group-by", "node"),
		plugin("mg-capacity", "capacity", "capacity"),
		plugin("mg-tree", "tree deploy/apiserver -n openshift-apiserver", "tree", "deploy/apiserver", "-n", "openshift-apiserver"),
		{id: "mg-read", title: "find DIR -name '*.yaml' -o -name '*.json' -exec cat {} +", argv: []string{"sh", "-c",
			`find "$1" \( -name '*.yaml' -o -name '*.yml' -o -name '*.json' \) -exec cat {} + >/dev/null`, "sh", root}},
	}
	if m.omc != "" {
		// omc keeps the must-gather it reads in $HOME/.omc: a home of
		// the step's own.
		home := filepath.Join(b.workDir, "omc-home")
		if err := os.MkdirAll(home, 0o755); err != nil {
			return err
		}
		use := exec.CommandContext(ctx, m.omc, "use", root)
		use.Env = append(os.Environ(), "HOME="+home)
		if out, err := use.CombinedOutput(); err != nil {
			return fmt.Errorf("omc use %s: %w: %s", root, err, out)
		}
		omcPods := benchCase{id: "mg-omc-pods", title: "omc get pods -A", argv: []string{m.omc, "get", "pods", "-A"}, env: []string{"HOME=" + home}}
		omcPods.check = expectLines(mustGatherPods + 1)
		omcEvents := benchCase{id: "mg-omc-events", title: "omc get events -A", argv: []string{m.omc, "get", "events", "-A"}, env: []string{"HOME=" + home}}
		omcEvents.check = expectLines(mustGatherEvents + 1)
		cases = append(cases, omcPods, omcEvents)
	}
	if m.results, err = b.measureRounds(ctx, cases, m.runs, true); err != nil {
		return err
	}
	b.rep.mustGather = m
	return nil
}

// mustGatherSection is the report's "Must-gather" section.
func (r *report) mustGatherSection() string {
	m := r.mustGather
	if m == nil {
		return ""
	}
	var s strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&s, format, args...) }
	p("## Must-gather: `--from` a real one (median of %d runs)\n\n", m.runs)
	p("The must-gather in `internal/realdump` (an OpenShift 4.8 cluster's, from openshift/must-gather-clean: 6 nodes, 239 pods, 5,373 events; %d files, %.1f MB unpacked), the plugin's binary run directly with KUBECONFIG naming a file that does not exist, one warm-up run of each command, the rounds in turn. ", m.files, float64(m.bytes)/1e6)
	if m.omc != "" {
		p("omc (gmeghnag/omc, `%s`, after `omc use DIR` with a HOME of the step's own) answers the same questions.", m.omc)
	} else {
		p("omc was not measured (BENCH_OMC names an omc binary).")
	}
	p(" Load %.2f when the step began.\n\n", m.load)
	p("| row | command | wall s (min–max) | CPU s | peak RSS MiB | RssAnon / RssFile MiB | ratios to baselines (wall; RSS) | load |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, row := range mustGatherRows {
		if res := m.results[row.id]; res != nil {
			p("| %s | %s |%s\n", row.label, res.c.title, r.resultCells(m.results, row))
		}
	}
	p("\n")
	for _, row := range mustGatherRows {
		if res := m.results[row.id]; res != nil && res.warn != "" {
			p("- ⚠ %s: %s\n", row.id, res.warn)
		}
	}
	for _, q := range []struct{ ours, theirs, what string }{{"mg-pods", "mg-omc-pods", "query pods -A"}, {"mg-events", "mg-omc-events", "query events -A"}} {
		ours, theirs := m.results[q.ours], m.results[q.theirs]
		if ours == nil || theirs == nil || len(ours.samples) == 0 || len(theirs.samples) == 0 {
			continue
		}
		t := newTarget("must-gather", "`"+q.what+"` at most half of omc's wall", ours.wall()/theirs.wall(), 0.5, "×", "%.2f")
		p("Target (issue 40): %s: %s, limit %s: %s.\n", t.name, t.measured, t.limit, t.verdict())
	}
	p("\n")
	return s.String()
}
