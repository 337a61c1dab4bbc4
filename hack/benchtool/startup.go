package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// The startup step (issue 40): a warm answer is mostly the plugin's own
// start, so this step measures the process of a warm query, and the
// commands around it, beside the build of BENCH_STARTUP_BASE (no release
// is tagged yet: by default the last build whose warm cache ran the whole
// command and streamed its printed text back, the "before" of the warm
// queries asked as data).
const defaultStartupBase = "1027518"

// Issue 40's targets for a warm query's process.
const (
	startupWallTarget = 0.015 // seconds
	startupRSSTarget  = 25.0  // MiB
)

// startupResult is the startup step.
type startupResult struct {
	base string // the previous build's commit
	// baseErr says why the previous build was not measured, "" when it
	// was.
	baseErr string
	pods    int
	results map[string]*result
	load    float64
	runs    int
}

// startupCommands are the step's commands, each run by both builds: id
// is the row's, args the plugin's arguments, lines what a run prints
// (0: not checked).
type startupCommand struct {
	id, label string
	args      []string
	lines     func(d dataSet) int
}

var startupCommands = []startupCommand{
	{id: "st-version", label: "`version`", args: []string{"version"}},
	{id: "st-help", label: "`--help`", args: []string{"--help"}},
	{id: "st-lookup", label: "warm `query pods -A --index node=node-3 -o name`", args: []string{"query", "pods", "-A", "--index", "node=node-3", "-o", "name"},
		lines: func(d dataSet) int { return matching(d.pods, seedNodes, 3) }},
	{id: "st-group", label: "warm `query pods -A --group-by node`", args: []string{"query", "pods", "-A", "--group-by", "node"},
		lines: func(d dataSet) int { return 1 + d.nodes }},
	{id: "st-cold", label: "cold `query pods -A --index node=node-3 -o name --cache off`", args: []string{"query", "pods", "-A", "--index", "node=node-3", "-o", "name", "--cache", "off"},
		lines: func(d dataSet) int { return matching(d.pods, seedNodes, 3) }},
}

// startup builds the previous build, copies both binaries into the work
// directory (as an install writes them: a binary the linker wrote itself
// can map its pages as huge pages, which counts many more of them in RSS),
// starts a warm cache of each build, and measures startupCommands run by
// each, the binaries run directly, in interleaved rounds.
func (b *bench) startup(ctx context.Context) error {
	dir := filepath.Join(b.workDir, "startup")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	s := &startupResult{base: envString("BENCH_STARTUP_BASE", defaultStartupBase), pods: b.pods, load: loadavg1(), runs: b.runs}
	head := filepath.Join(dir, "kubectl-informer")
	if err := copyFile(b.plugin, head); err != nil {
		return err
	}
	builds := []struct{ suffix, binary string }{{"", head}}
	if base, err := b.buildBase(ctx, dir, s.base); err != nil {
		s.baseErr = err.Error()
		b.logf("startup: not measuring the previous build: %v", err)
	} else {
		builds = append(builds, struct{ suffix, binary string }{"-base", base})
	}
	var cases []benchCase
	for _, c := range startupCommands {
		shortName[c.id+"-base"] = s.base
	}
	for _, build := range builds {
		env, stop, err := b.startCacheOf(ctx, build.binary, filepath.Join(dir, "xdg"+build.suffix))
		if err != nil {
			return err
		}
		defer stop()
		for _, c := range startupCommands {
			bc := benchCase{id: c.id + build.suffix, title: "kubectl-informer " + strings.Join(c.args, " "), argv: append([]string{build.binary}, c.args...), env: env}
			if c.lines != nil {
				bc.check = expectLines(c.lines(b.seeded()))
			}
			cases = append(cases, bc)
		}
	}
	var err error
	if s.results, err = b.measureRounds(ctx, cases, s.runs, true); err != nil {
		return err
	}
	b.rep.startup = s
	return nil
}

// buildBase builds the plugin at commit into dir from `git archive`, with
// the Makefile's flags, and returns its binary.
func (b *bench) buildBase(ctx context.Context, dir, commit string) (string, error) {
	src := filepath.Join(dir, "src-"+commit)
	if err := os.MkdirAll(src, 0o755); err != nil {
		return "", err
	}
	unpack := exec.CommandContext(ctx, "bash", "-c", `set -o pipefail; git -C "$1" archive "$2" | tar -x -C "$3"`, "bash", b.root, commit, src)
	if out, err := unpack.CombinedOutput(); err != nil {
		return "", fmt.Errorf("git archive %s: %w: %s", commit, err, out)
	}
	built := filepath.Join(src, "kubectl-informer")
	b.logf("startup: building %s", commit)
	build := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags",
		"-s -w -X github.com/kubectl-informer/kubectl-informer/internal/version.Version="+commit, "-o", built, "./cmd/kubectl-informer")
	build.Dir = src
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building %s: %w: %s", commit, err, out)
	}
	binary := filepath.Join(dir, "kubectl-informer-"+commit)
	if err := copyFile(built, binary); err != nil {
		return "", err
	}
	return binary, os.RemoveAll(src)
}

// copyFile writes a copy of the executable src at dst.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// startCacheOf starts a warm cache of binary (no idle timeout) with
// $XDG_RUNTIME_DIR xdg, and returns the environment that reaches it and a
// func that stops it.
func (b *bench) startCacheOf(ctx context.Context, binary, xdg string) (env []string, stop func(), err error) {
	if err := os.MkdirAll(xdg, 0o700); err != nil {
		return nil, nil, err
	}
	env = []string{"XDG_RUNTIME_DIR=" + xdg}
	run := func(ctx context.Context, args ...string) error {
		cmd := exec.CommandContext(ctx, binary, args...)
		cmd.Env = append(b.cmdEnv(), env...)
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("%s %s: %w", binary, strings.Join(args, " "), err)
		}
		return nil
	}
	if err := run(ctx, "cache", "start", "--idle-timeout", "0"); err != nil {
		return nil, nil, err
	}
	return env, func() {
		if err := run(context.WithoutCancel(ctx), "cache", "stop", "--all"); err != nil {
			b.logf("stopping the warm cache: %v", err)
		}
	}, nil
}

// startupSection is the report's "Start-up" section.
func (r *report) startupSection() string {
	st := r.startup
	if st == nil {
		return ""
	}
	var s strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&s, format, args...) }
	p("## Start-up: a warm query's process beside the previous build (%d pods, median of %d runs)\n\n", st.pods, st.runs)
	p("Step `startup` (issue 40): this build and the build of %s (`BENCH_STARTUP_BASE`, built from `git archive` with the Makefile's flags), each copied into the work directory as an install writes it, each with a warm cache of its own (`cache start --idle-timeout 0`, its own `$XDG_RUNTIME_DIR`); the binaries run directly, one warm-up run of each command (it fills the cache), then the rounds in turn. Load %.2f when the step began.", st.base, st.load)
	if st.baseErr != "" {
		p(" The previous build was not measured: %s.", st.baseErr)
	}
	p("\n\n| row | command | wall s (min–max) | CPU s | peak RSS MiB | RssAnon / RssFile MiB | ratios to baselines (wall; RSS) | load |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, c := range startupCommands {
		for _, row := range []queryRow{
			{label: c.label, id: c.id, baselines: []string{c.id + "-base"}},
			{label: c.label + ", " + st.base, id: c.id + "-base"},
		} {
			if res := st.results[row.id]; res != nil {
				p("| %s | %s |%s\n", row.label, res.c.title, r.resultCells(st.results, row))
			}
		}
	}
	p("\n")
	for _, c := range startupCommands {
		for _, id := range []string{c.id, c.id + "-base"} {
			if res := st.results[id]; res != nil && res.warn != "" {
				p("- ⚠ %s: %s\n", id, res.warn)
			}
		}
	}
	if res := st.results["st-lookup"]; res != nil && len(res.samples) > 0 {
		for _, t := range []targetResult{
			newTarget("startup", "a warm lookup's process, wall", res.wall()*1000, startupWallTarget*1000, " ms", "%.1f"),
			newTarget("startup", "a warm lookup's process, peak RSS", res.rss(), startupRSSTarget, " MiB", "%.1f"),
		} {
			p("Target (issue 40): %s: %s, limit %s: %s.\n", t.name, t.measured, t.limit, t.verdict())
		}
	}
	p("\n")
	return s.String()
}
