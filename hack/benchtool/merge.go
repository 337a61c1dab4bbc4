package main

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// reportSections are the "## " sections of RESULTS.md in order, each by
// the format of its heading as the report writer prints it (without "## "
// and the newline), with the steps that write them. A heading is the
// section's only if it matches the whole format, a verb standing for any
// text: a hand-written note whose heading merely starts like a step's
// ("## Warm cache bytes per pod (…)") is not that step's section. A section
// whose steps all did not run this time is kept from the previous file,
// marked as such, so that a run of some steps (BENCH_STEPS) does not drop
// the others' results. Every heading the writer prints must be here
// (TestReportSectionsCoverEveryHeading).
var reportSections = []struct {
	heading string
	steps   []string
}{
	{"Machine", nil},
	{"Queries (%d pods, median of %d runs)", []string{"queries"}},
	{"Targets", []string{"queries", "watch"}},
	{"Warm cache (%d pods, median of %d runs)", []string{"warm"}},
	{"Start-up: a warm query's process beside the previous build (%d pods, median of %d runs)", []string{"startup"}},
	{"Many clients: %d concurrent warm queries (%d pods, %d rounds)", []string{"clients"}},
	{"Realistic data set: Deployments on simulated nodes (%d pods, median of %d runs)", []string{"realistic"}},
	{"Memory per cached object (%d pods)", []string{"memory"}},
	{"Watch under churn (`kubectl informer watch pods -n NS -o json` and `-o text`)", []string{"watch"}},
	{"Scale (BENCH_SCALE=1; median of %d runs)", []string{"scale"}},
	{"Watch under load (%d pods, %d watches through one warm cache)", []string{"load"}},
	{"Soak: watches through API server restarts (%d pods, %d watches through one warm cache, %s)", []string{"soak"}},
	{"Offline: `--from` a dump of %d pods (median of %d runs)", []string{"offline"}},
	{"Must-gather: `--from` a real one (median of %d runs)", []string{"mustgather"}},
	{"Recording: a busy hour of %d pods", []string{"recording"}},
	{"Fleet (%d clusters × %d pods, median of %d runs)", []string{"fleet"}},
	{"MCP: four questions an agent asks, beside kubernetes-mcp-server (%d pods, median of %d warm calls)", []string{"mcp"}},
	{"Usage grouped by workload (%d pods, median of %d runs)", []string{"usage"}},
	{"Profiles of the missed targets", []string{"profile"}},
	{"Go micro-benchmarks", []string{"micro"}},
	{"How each number was measured", nil},
}

// sectionName is the name a heading format gives its section in the note
// on kept sections: the heading up to its first " (" or ":".
func sectionName(format string) string {
	if i := strings.IndexAny(format, "(:"); i > 0 {
		return strings.TrimSpace(format[:i])
	}
	return format
}

// targetsIndex is the index of the targets section, whose rows two steps
// write.
var targetsIndex = sectionIndex("Targets")

// sectionHeadings are reportSections' headings as anchored patterns, in
// the same order.
var sectionHeadings = func() []*regexp.Regexp {
	out := make([]*regexp.Regexp, len(reportSections))
	for i, s := range reportSections {
		out[i] = headingPattern(s.heading)
	}
	return out
}()

// formatVerb is one fmt verb with its flags, width and precision.
var formatVerb = regexp.MustCompile(`%[-+# 0]*[0-9]*(\.[0-9]*)?[a-zA-Z]`)

// headingPattern matches a whole heading printed with format, each verb
// standing for any text (at least one character) and %% for itself.
func headingPattern(format string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("^")
	for _, lit := range strings.Split(format, "%%") {
		if b.Len() > 1 {
			b.WriteString("%")
		}
		last := 0
		for _, m := range formatVerb.FindAllStringIndex(lit, -1) {
			b.WriteString(regexp.QuoteMeta(lit[last:m[0]]))
			b.WriteString(".+?")
			last = m[1]
		}
		b.WriteString(regexp.QuoteMeta(lit[last:]))
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

// keptNote starts the line that marks a section kept from an earlier run;
// keptRow starts a target row kept so.
const (
	keptNote = "*Kept from the run of "
	keptRow  = "(kept from an earlier run) "
)

var writtenOn = regexp.MustCompile(`on (\d{4}-\d\d-\d\d \d\d:\d\d [A-Z]+)`)

// section is one "## " section: its heading's index in reportSections
// (-1 for the text before the first) and its text.
type section struct {
	index int
	text  string
}

func splitSections(md string) []section {
	var out []section
	cur := section{index: -1}
	for _, line := range strings.SplitAfter(md, "\n") {
		if strings.HasPrefix(line, "## ") {
			if cur.text != "" {
				out = append(out, cur)
			}
			cur = section{index: sectionIndex(strings.TrimPrefix(line, "## ")), text: ""}
		}
		cur.text += line
	}
	if cur.text != "" {
		out = append(out, cur)
	}
	return out
}

// sectionIndex is the index in reportSections of the section whose
// heading format matches heading (without "## "; a trailing newline is
// ignored), or len(reportSections) for a heading the writer does not print.
func sectionIndex(heading string) int {
	heading = strings.TrimRight(heading, "\r\n")
	for i, p := range sectionHeadings {
		if p.MatchString(heading) {
			return i
		}
	}
	return len(reportSections) // unknown: last
}

// mergeReport is fresh with the sections of previous whose steps did not
// run (ran says which did) put back in their place, each marked with the
// date of the run that wrote it. Of the targets, which two steps share, the
// rows of the step that did not run are kept, and so are the sections of
// previous that hack/bench does not write. previous may be empty.
func mergeReport(fresh, previous string, ran func(step string) bool) string {
	if previous == "" {
		return fresh
	}
	date := "an earlier run"
	if m := writtenOn.FindStringSubmatch(previous); m != nil {
		date = m[1]
	}
	prev := previousSections(previous)
	old := map[int]section{}
	for _, s := range prev {
		old[s.index] = s
	}
	secs := splitSections(fresh)
	have := map[int]bool{}
	for _, s := range secs {
		have[s.index] = true
	}
	var kept []string
	for i, rs := range reportSections {
		o, ok := old[i]
		if !ok || len(rs.steps) == 0 || slices.ContainsFunc(rs.steps, ran) {
			continue
		}
		if !strings.Contains(o.text, keptNote) {
			heading, body, _ := strings.Cut(o.text, "\n")
			o.text = fmt.Sprintf("%s\n\n%s%s: this run did not include the step `%s` (BENCH_STEPS), so these figures are older than the rest of this file and may be of an older plugin.*\n%s",
				heading, keptNote, date, strings.Join(rs.steps, "` or `"), body)
		}
		secs = append(secs, o)
		kept = append(kept, sectionName(rs.heading))
	}
	// A section hack/bench does not write (notes measured by hand) stays
	// as it was, after the others.
	for _, o := range prev {
		if heading, _, _ := strings.Cut(o.text, "\n"); o.index == len(reportSections) && !strings.Contains(fresh, heading+"\n") {
			secs = append(secs, o)
		}
	}
	slices.SortStableFunc(secs, func(a, b section) int { return a.index - b.index })
	// Targets: the rows of the step that did not run.
	for i := range secs {
		if secs[i].index != targetsIndex || !have[targetsIndex] {
			continue
		}
		var prefixes []string
		what := ""
		if !ran("queries") {
			prefixes, what = []string{"| 1 (", "| 2 ("}, "the query targets"
		}
		if !ran("watch") {
			prefixes, what = []string{"| 6 ("}, "the watch targets"
		}
		var rows []string
		for _, line := range strings.Split(old[targetsIndex].text, "\n") {
			line = strings.Replace(line, "| "+keptRow, "| ", 1)
			for _, p := range prefixes {
				if strings.HasPrefix(line, p) {
					rows = append(rows, strings.Replace(line, "| ", "| "+keptRow, 1))
				}
			}
		}
		if len(rows) > 0 {
			secs[i].text = insertAfterTable(secs[i].text, rows)
			kept = append(kept, what)
		}
	}
	var b strings.Builder
	for i, s := range secs {
		if i == 0 && s.index == -1 && len(kept) > 0 {
			fmt.Fprintf(&b, "%s", s.text)
			fmt.Fprintf(&b, "Not rerun this time, and kept from the previous file (written on %s, or earlier where marked): %s, each marked where it begins.\n\n", date, strings.Join(kept, ", "))
			continue
		}
		b.WriteString(s.text)
	}
	return b.String()
}

// previousSections is splitSections of a previous report, where a section
// whose heading starts as an earlier one's of the same step (a note measured
// by hand, "## Warm cache bytes per pod (…)" after "## Warm cache (…)") is
// taken for a section hack/bench does not write, not for the step's own.
func previousSections(md string) []section {
	secs := splitSections(md)
	seen := map[int]bool{}
	for i, s := range secs {
		if s.index >= 0 && s.index < len(reportSections) && seen[s.index] {
			secs[i].index = len(reportSections)
		}
		seen[s.index] = true
	}
	return secs
}

// insertAfterTable adds rows after the last row of the first table in text.
func insertAfterTable(text string, rows []string) string {
	lines := strings.Split(text, "\n")
	last := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "| ") {
			last = i
		} else if last >= 0 {
			break
		}
	}
	if last < 0 {
		return text
	}
	return strings.Join(slices.Insert(lines, last+1, rows...), "\n")
}
