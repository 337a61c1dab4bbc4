package main

import (
	"os"
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
		"## Realistic data set: Deployments (10 pods)\n\nnew realistic\n\n" +
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
		if sec.index != sectionIndex("Memory per cached object") {
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
		"## Machine\n\nold machine\n\n## Offline: old\n\nold offline\n\n## How each number was measured\n\nold notes\n\n" +
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

// TestMergeReportKeepsLookalikeSections: a hand-written section whose
// heading starts like a written one's does not replace that one, in
// either case (its step ran or not).
func TestMergeReportKeepsLookalikeSections(t *testing.T) {
	previous := "# Benchmark results\n\nWritten by `hack/bench` (issue 7) on 2030-01-01 00:00 UTC.\n\n" +
		"## Machine\n\nold machine\n\n## Warm cache (10 pods)\n\nold warm\n\n## How each number was measured\n\nold notes\n\n" +
		"## Warm cache bytes per pod (measured by hand)\n\nby hand\n"
	fresh := "# Benchmark results\n\nWritten by `hack/bench` (issue 7) on 2030-01-02 00:00 UTC.\n\n" +
		"## Machine\n\nnew machine\n\n## How each number was measured\n\nnew notes\n"
	tests := []struct {
		name  string
		ran   func(string) bool
		fresh string
		want  map[string]int
	}{
		{"warm not run", func(step string) bool { return step != "warm" }, fresh,
			map[string]int{"old warm": 1, "by hand\n": 1, "new notes": 1}},
		{"warm run", func(string) bool { return true },
			strings.Replace(fresh, "## How each", "## Warm cache (20 pods)\n\nnew warm\n\n## How each", 1),
			map[string]int{"old warm": 0, "new warm": 1, "by hand\n": 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mergeReport(tt.fresh, mergeReport(tt.fresh, previous, tt.ran), tt.ran)
			for want, n := range tt.want {
				if c := strings.Count(got, want); c != n {
					t.Errorf("merged twice, the report has %q %d times, want %d:\n%s", want, c, n, got)
				}
			}
			if !strings.HasSuffix(got, "by hand\n") {
				t.Errorf("the hand-written section is not last:\n%s", got)
			}
		})
	}
}
