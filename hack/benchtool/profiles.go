package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// profileSummary is what one profiled run showed.
type profileSummary struct {
	title    string
	why      []string // the targets it missed
	command  string
	note     string
	sections []profileSection
}

type profileSection struct {
	title, text string
}

// profiles profiles the plugin where a target was missed: the query of the
// missed target in-process under benchtool profile (the plugin's own cobra
// command), or the watch under churn at the highest rate.
func (b *bench) profiles(ctx context.Context) error {
	missed := map[string][]string{}
	for _, t := range b.rep.targets {
		if !t.met {
			missed[t.group] = append(missed[t.group], t.name)
		}
	}
	dir := filepath.Join(b.workDir, "profiles")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b.rep.profileDir = dir
	for _, q := range []struct {
		id   string
		args []string
	}{{"q1", q1Args(b.seeded())}, {"q2", q2Args(b.seeded())}} {
		if len(missed[q.id]) == 0 {
			continue
		}
		p, err := b.profileQuery(ctx, dir, q.id, q.args)
		if err != nil {
			return err
		}
		p.why = missed[q.id]
		b.rep.profiles = append(b.rep.profiles, p)
		b.write()
	}
	if len(missed["watch"]) > 0 && len(b.watchRates) > 0 {
		p, err := b.profileWatch(ctx, dir)
		if err != nil {
			return err
		}
		p.why = missed["watch"]
		b.rep.profiles = append(b.rep.profiles, p)
	}
	return nil
}

func (b *bench) profileQuery(ctx context.Context, dir, id string, args []string) (profileSummary, error) {
	cpu := filepath.Join(dir, id+".cpu.pprof")
	heap := filepath.Join(dir, id+".heap.pprof")
	p := profileSummary{
		title:   "query " + id + ": kubectl-informer " + shellJoin(args),
		command: fmt.Sprintf("benchtool profile --repeat %d -- %s", b.profileRepeat, shellJoin(args)),
	}
	b.logf("profiling %s (%d runs in one process)", id, b.profileRepeat)
	c := benchCase{id: id + "-profile", argv: append([]string{b.self, "profile", "--cpu", cpu, "--heap", heap,
		"--repeat", strconv.Itoa(b.profileRepeat), "--"}, args...)}
	s, err := b.measure(ctx, c)
	if err != nil {
		return p, err
	}
	p.note = fmt.Sprintf("%d runs in %.2fs wall, %.2fs CPU", b.profileRepeat, s.wall.Seconds(), s.cpu.Seconds())
	// One run of the real binary with the GC trace on, for the heap sizes
	// behind its peak RSS.
	// /proc/PID/status is polled meanwhile for how much of the RSS is the
	// heap and stacks (anonymous) and how much is the binary's own pages
	// (file-backed).
	gc := benchCase{id: id + "-gctrace", argv: append([]string{b.plugin}, args...), env: []string{"GODEBUG=gctrace=1"}}
	var anon, file int64
	poll := func(pid int) {
		a, f := procRSS(pid)
		anon, file = max(anon, a), max(file, f)
	}
	if s, err := b.measureWatching(ctx, gc, poll); err == nil {
		p.note += "; " + gcSummary(s.stderr, s.rssKiB)
		p.note += fmt.Sprintf("; /proc/PID/status polled every 2ms: peak RssAnon %.1f MiB, peak RssFile %.1f MiB (the binary's mapped pages)",
			float64(anon)/1024, float64(file)/1024)
	}
	p.sections = append(p.sections,
		b.pprofTop("CPU, flat", "-top", "-nodecount=25", cpu),
		b.pprofTop("CPU, cumulative", "-top", "-cum", "-nodecount=60", cpu),
		b.pprofTop("allocated bytes (alloc_space), flat", "-top", "-sample_index=alloc_space", "-nodecount=15", heap),
		b.pprofTop("in use at the last GC (inuse_space), flat", "-top", "-sample_index=inuse_space", "-nodecount=15", heap),
	)
	return p, nil
}

func (b *bench) profileWatch(ctx context.Context, dir string) (profileSummary, error) {
	rate := b.watchRates[len(b.watchRates)-1]
	cpu := filepath.Join(dir, "watch.cpu.pprof")
	heap := filepath.Join(dir, "watch.heap.pprof")
	p := profileSummary{
		title:   fmt.Sprintf("watch pods -n %s -o text (compact diff) under churn at %d/s", b.watchNS, rate),
		command: fmt.Sprintf("benchtool profile -- watch pods -n %s -o text", b.watchNS),
	}
	b.logf("profiling the watch at %d/s", rate)
	w, err := b.watch(ctx, rate, "text", []string{"--cpu", cpu, "--heap", heap, "--"})
	if err != nil {
		return p, err
	}
	p.note = fmt.Sprintf("under the profiler: %d events, %.0f µs CPU/event (the floor watch beside it: %.0f µs); the profile includes the initial sync of %s",
		w.events, float64(w.cpuPerEvent().Nanoseconds())/1e3, float64(w.floorCPUPerEvent().Nanoseconds())/1e3, b.watchNS)
	p.sections = append(p.sections,
		b.pprofTop("CPU, flat", "-top", "-nodecount=25", cpu),
		b.pprofTop("CPU, cumulative", "-top", "-cum", "-nodecount=60", cpu),
		b.pprofTop("allocated bytes (alloc_space), flat", "-top", "-sample_index=alloc_space", "-nodecount=15", heap),
	)
	return p, nil
}

// pprofTop runs go tool pprof and keeps its table, without the file and
// time header lines.
func (b *bench) pprofTop(title string, args ...string) profileSection {
	cmd := exec.Command("go", append([]string{"tool", "pprof"}, args...)...)
	cmd.Dir = b.root
	out, err := cmd.CombinedOutput()
	if err != nil {
		return profileSection{title: title, text: fmt.Sprintf("go tool pprof failed: %v\n%s", err, out)}
	}
	var keep []string
	rows, dropped := 0, 0
	for _, l := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		if strings.HasPrefix(l, "File:") || strings.HasPrefix(l, "Build ID:") || strings.HasPrefix(l, "Time:") {
			continue
		}
		if isRow := strings.Contains(l, "%"); isRow && !strings.HasPrefix(l, "Showing") && !strings.HasPrefix(l, "Duration") {
			if boilerplate.MatchString(l) {
				dropped++
				continue
			}
			if rows++; rows > 30 {
				continue
			}
		}
		keep = append(keep, l)
	}
	if dropped > 0 {
		keep = append(keep, fmt.Sprintf("(%d frames of process, cobra, scheduler and retry-loop plumbing left out)", dropped))
	}
	return profileSection{title: title, text: strings.Join(keep, "\n")}
}

// boilerplate matches the frames that only say "this ran in a goroutine
// of the program", which -cum ranks at the top.
var boilerplate = regexp.MustCompile(`\s(runtime\.(main|goexit|systemstack|mcall|park_m|schedule|findRunnable)|main\.|github\.com/spf13/cobra\.|.*NewCmd(Watch|Query)\.func1|k8s\.io/apimachinery/pkg/util/wait\.)`)

var gcLine = regexp.MustCompile(`^gc \d+ .* (\d+)->(\d+)->(\d+) MB, (\d+) MB goal`)

// gcSummary condenses a GODEBUG=gctrace=1 log.
func gcSummary(stderr string, rssKiB int64) string {
	n, maxStart, maxLive, lastGoal := 0, 0, 0, 0
	for _, l := range strings.Split(stderr, "\n") {
		m := gcLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		n++
		start, _ := strconv.Atoi(m[1])
		live, _ := strconv.Atoi(m[3])
		goal, _ := strconv.Atoi(m[4])
		maxStart, maxLive, lastGoal = max(maxStart, start), max(maxLive, live), goal
	}
	return fmt.Sprintf("GODEBUG=gctrace=1 run: %d GCs, largest heap at a GC start %d MB, largest live heap after a GC %d MB, last heap goal %d MB, peak RSS %.0f MiB",
		n, maxStart, maxLive, lastGoal, float64(rssKiB)/1024)
}
