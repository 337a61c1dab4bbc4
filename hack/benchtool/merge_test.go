package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestMergeReport(t *testing.T) {
	prevBytes, err := os.ReadFile("../../bench/RESULTS.md")
	if err != nil {
		t.Skip(err)
	}
	previous := string(prevBytes)
	fresh := "# Benchmark results\n\nWritten by `hack/bench` (issue 7) on 2030-01-02 03:04 UTC.\n\n" +
		"## Machine\n\nnew machine\n\n" +
		"## Queries (10 pods, median of 1 runs)\n\nnew queries\n\n" +
		"## Targets\n\n| target | measured |\n| --- | --- |\n| 1 (kubectl informer): new | 1 |\n\nThrough kubectl…\n\n" +
		"## Realistic data set: Deployments on simulated nodes (10 pods, median of 1 runs)\n\nnew realistic\n\n" +
		"## How each number was measured\n\nnew notes\n"
	ran := func(step string) bool { return step == "queries" || step == "realistic" }
	got := mergeReport(fresh, previous, ran)

	// The memory section is kept with the date of the run that wrote it:
	// the previous file's, or the one an earlier merge already noted.
	memoryDate := ""
	if m := writtenOn.FindStringSubmatch(previous); m != nil {
		memoryDate = m[1]
	}
	for _, sec := range splitSections(previous) {
		if sec.index < 0 || sec.index >= len(reportSections) || sectionName(reportSections[sec.index].heading) != "Memory per cached object" {
			continue
		}
		if _, rest, ok := strings.Cut(sec.text, keptNote); ok {
			memoryDate, _, _ = strings.Cut(rest, ": this run")
		}
	}

	for _, want := range []string{"new machine", "new queries", "new realistic", "new notes", "| 1 (kubectl informer): new | 1 |\n| (kept from an earlier run) 6 (churn at 50/s",
		"## Memory per cached object", "## Watch under churn", "## Go micro-benchmarks", keptNote + memoryDate + ": this run did not include the step `memory`"} {
		if !strings.Contains(got, want) {
			t.Errorf("merged report lacks %q", want)
		}
	}
	for _, gone := range []string{"## Queries (10000 pods", "| 1 (kubectl informer): wall ≤ 1.5×"} {
		if strings.Contains(got, gone) {
			t.Errorf("merged report still has %q from the previous one", gone)
		}
	}
	order := []string{"## Machine", "## Queries", "## Targets", "## Realistic", "## Memory", "## Watch", "## Scale", "## Profiles", "## Go micro", "## How each"}
	last := -1
	for _, h := range order {
		i := strings.Index(got, h)
		if i <= last {
			t.Errorf("%q out of order (at %d, after %d)", h, i, last)
		}
		last = i
	}
	// Merging again keeps one note per section and the same rows.
	again := mergeReport(fresh, got, ran)
	if n := strings.Count(again, keptNote); n != strings.Count(got, keptNote) {
		t.Errorf("kept notes: %d after merging twice, %d after once", n, strings.Count(got, keptNote))
	}
	if strings.Count(again, keptRow) != strings.Count(got, keptRow) || strings.Count(got, keptRow) == 0 {
		t.Errorf("kept target rows: %d after merging twice, %d after once", strings.Count(again, keptRow), strings.Count(got, keptRow))
	}
	if mergeReport(fresh, "", ran) != fresh {
		t.Error("with no previous report the fresh one should be unchanged")
	}
}

// TestMergeReportKeepsHandWrittenSections: a section hack/bench does not
// write is kept, once, however often the report is merged.
func TestMergeReportKeepsHandWrittenSections(t *testing.T) {
	previous := "# Benchmark results\n\nWritten by `hack/bench` (issue 7) on 2030-01-01 00:00 UTC.\n\n" +
		"## Machine\n\nold machine\n\n## Offline: `--from` a dump of 9 pods (median of 1 runs)\n\nold offline\n\n## How each number was measured\n\nold notes\n\n" +
		"## Pushdown (measured by hand)\n\nby hand\n"
	fresh := "# Benchmark results\n\nWritten by `hack/bench` (issue 7) on 2030-01-02 00:00 UTC.\n\n" +
		"## Machine\n\nnew machine\n\n## How each number was measured\n\nnew notes\n"
	ran := func(step string) bool { return step != "offline" }
	got := mergeReport(fresh, mergeReport(fresh, previous, ran), ran)
	for want, n := range map[string]int{"## Pushdown (measured by hand)\n\nby hand\n": 1, "old offline": 1, "new notes": 1, "old notes": 0} {
		if c := strings.Count(got, want); c != n {
			t.Errorf("merged twice, the report has %q %d times, want %d:\n%s", want, c, n, got)
		}
	}
	if !strings.HasSuffix(got, "by hand\n") {
		t.Errorf("the hand-written section is not last:\n%s", got)
	}
}

// TestMergeReportHandWrittenSectionNamedLikeAStep: a hand-written section
// whose heading starts as a step's (## Offline memory … after ## Offline: …)
// neither replaces the step's section nor is marked as kept from a run; the
// fleet section is kept when its step did not run and replaced when it did.
func TestMergeReportHandWrittenSectionNamedLikeAStep(t *testing.T) {
	previous := "# Benchmark results\n\nWritten by `hack/bench` (issue 7) on 2030-01-01 00:00 UTC.\n\n" +
		"## Machine\n\nold machine\n\n## Offline: `--from` a dump of 9 pods (median of 1 runs)\n\nold offline\n\n## Fleet (2 clusters × 9 pods, median of 1 runs)\n\nold fleet\n\n" +
		"## How each number was measured\n\nold notes\n\n" +
		"## Offline memory (measured by hand)\n\nhand figures\n"
	fresh := "# Benchmark results\n\nWritten by `hack/bench` (issue 7) on 2030-01-02 00:00 UTC.\n\n" +
		"## Machine\n\nnew machine\n\n## How each number was measured\n\nnew notes\n"
	freshFleet := strings.Replace(fresh, "## How", "## Fleet (10 clusters × 9 pods, median of 1 runs)\n\nnew fleet\n\n## How", 1)
	tests := []struct {
		name  string
		fresh string
		ran   func(string) bool
		want  map[string]int
	}{
		{"fleet not run", fresh, func(step string) bool { return step == "queries" },
			map[string]int{"old offline": 1, "hand figures": 1, "old fleet": 1, "new fleet": 0, keptNote: 2}},
		{"fleet run", freshFleet, func(step string) bool { return step == "fleet" },
			map[string]int{"old offline": 1, "hand figures": 1, "old fleet": 0, "new fleet": 1, keptNote: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mergeReport(tt.fresh, mergeReport(tt.fresh, previous, tt.ran), tt.ran)
			for want, n := range tt.want {
				if c := strings.Count(got, want); c != n {
					t.Errorf("merged twice, the report has %q %d times, want %d:\n%s", want, c, n, got)
				}
			}
			if !strings.HasSuffix(got, "## Offline memory (measured by hand)\n\nhand figures\n") {
				t.Errorf("the hand-written section is not last, unmarked:\n%s", got)
			}
			if i, j := strings.Index(got, "## Offline: `--from` a dump of 9 pods"), strings.Index(got, "## How each"); i < 0 || i > j {
				t.Errorf("the offline step's section is not in its place:\n%s", got)
			}
		})
	}
}

// writerHeadings are the "## " headings the report writer can print, as
// their format strings without "## ": the first line of every string
// literal in this package's non-test sources that starts with "## " and
// has more.
func writerHeadings(t *testing.T) []string {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				t.Fatalf("%s: %v", fset.Position(lit.Pos()), err)
			}
			// "## " alone is the section parser's prefix, not a heading.
			if rest, ok := strings.CutPrefix(s, "## "); ok && rest != "" {
				line, _, _ := strings.Cut(rest, "\n")
				out = append(out, line)
			}
			return true
		})
	}
	if len(out) < 10 {
		t.Fatalf("found only %d headings in the sources: %q", len(out), out)
	}
	return out
}

// renderHeading prints a heading format with each verb replaced by a number.
func renderHeading(format string) string {
	return strings.ReplaceAll(formatVerb.ReplaceAllString(format, "7"), "%%", "%")
}

// TestReportSectionsCoverEveryHeading: every heading the writer prints is a
// section of reportSections, found by its own rendering, and every section
// there is printed by the writer.
func TestReportSectionsCoverEveryHeading(t *testing.T) {
	written := writerHeadings(t)
	for _, h := range written {
		i := sectionIndex(renderHeading(h))
		if i == len(reportSections) {
			t.Errorf("the writer's heading %q is not in reportSections: a partial run would not keep its section in place", h)
			continue
		}
		if reportSections[i].heading != h {
			t.Errorf("the writer's heading %q is taken for reportSections' %q", h, reportSections[i].heading)
		}
	}
	for _, s := range reportSections {
		if !slices.Contains(written, s.heading) {
			t.Errorf("reportSections has %q, which the writer never prints", s.heading)
		}
	}
}

// TestMergeReportKeepsLookalikeSections: a full report with every section
// of reportSections (which TestReportSectionsCoverEveryHeading checks are
// the writer's), and hand-written sections whose headings start like them,
// merged with a partial report of each step in turn (twice, as
// successive partial runs do), loses none of them, duplicates none and keeps
// the writer's order.
func TestMergeReportKeepsLookalikeSections(t *testing.T) {
	body := func(heading, run string) string { return "body of " + heading + " from " + run }
	var previous strings.Builder
	previous.WriteString("# Benchmark results\n\nWritten by `hack/bench` (issue 7) on 2030-01-01 00:00 UTC.\n\n")
	// Each section's lookalikes come before it, where a match by the
	// start of the heading would take them for the section itself.
	var lookalikes []string
	for _, s := range reportSections {
		name := sectionName(s.heading)
		for _, l := range []string{name + " bytes per pod (measured by hand)", name + ": measured by hand", name + " (measured by hand)"} {
			if slices.ContainsFunc(reportSections, func(w struct {
				heading string
				steps   []string
			}) bool {
				return headingPattern(w.heading).MatchString(l)
			}) {
				continue // a heading that matches the writer's format is the writer's
			}
			lookalikes = append(lookalikes, l)
			fmt.Fprintf(&previous, "## %s\n\nhand-written %s\n\n", l, l)
		}
		fmt.Fprintf(&previous, "## %s\n\n%s\n\n", renderHeading(s.heading), body(s.heading, "old"))
	}
	if len(lookalikes) < len(reportSections) {
		t.Fatalf("only %d lookalike headings: %q", len(lookalikes), lookalikes)
	}
	steps := map[string]bool{}
	for _, s := range reportSections {
		for _, step := range s.steps {
			steps[step] = true
		}
	}
	if !steps["clients"] {
		t.Fatalf("no section is the clients step's: %v", steps)
	}
	for _, step := range slices.Sorted(maps.Keys(steps)) {
		t.Run(step, func(t *testing.T) {
			ran := func(s string) bool { return s == step }
			var fresh strings.Builder
			fresh.WriteString("# Benchmark results\n\nWritten by `hack/bench` (issue 7) on 2030-01-02 00:00 UTC.\n\n")
			for _, s := range reportSections {
				if s.steps == nil || slices.ContainsFunc(s.steps, ran) {
					fmt.Fprintf(&fresh, "## %s\n\n%s\n\n", renderHeading(s.heading), body(s.heading, "new"))
				}
			}
			got := mergeReport(fresh.String(), mergeReport(fresh.String(), previous.String(), ran), ran)
			last := -1
			for _, s := range reportSections {
				want, gone := body(s.heading, "old"), body(s.heading, "new")
				if s.steps == nil || slices.ContainsFunc(s.steps, ran) {
					want, gone = gone, want
				}
				if n := strings.Count(got, want); n != 1 {
					t.Errorf("the merged report has %q %d times, want 1", want, n)
				}
				if n := strings.Count(got, gone); n != 0 {
					t.Errorf("the merged report has %q %d times, want 0", gone, n)
				}
				heading := "## " + renderHeading(s.heading) + "\n"
				if n := strings.Count(got, heading); n != 1 {
					t.Errorf("the merged report has the heading %q %d times, want 1", heading, n)
				}
				i := strings.Index(got, heading)
				if i < last {
					t.Errorf("%q is out of the writer's order", heading)
				}
				last = i
			}
			for _, l := range lookalikes {
				if n := strings.Count(got, "## "+l+"\n\nhand-written "+l+"\n"); n != 1 {
					t.Errorf("the merged report has the hand-written section %q %d times, want 1", l, n)
				}
				if i := strings.Index(got, "## "+l+"\n"); i < last {
					t.Errorf("the hand-written section %q is not after the writer's sections", l)
				}
			}
			if t.Failed() {
				t.Logf("merged report:\n%s", got)
			}
		})
	}
}
