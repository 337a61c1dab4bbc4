package main

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// reportSections are the "## " sections of RESULTS.md in order, by the
// start of their heading, with the steps that write them. A section whose
// steps all did not run this time is kept from the previous file, marked as
// such, so that a run of some steps (BENCH_STEPS) does not drop the others'
// results.
var reportSections = []struct {
	key   string
	steps []string
}{
	{"Machine", nil},
	{"Queries", []string{"queries"}},
	{"Targets", []string{"queries", "watch"}},
	{"Warm cache", []string{"warm"}},
	{"Many clients", []string{"clients"}},
	{"Realistic data set", []string{"realistic"}},
	{"Memory per cached object", []string{"memory"}},
	{"Watch under churn", []string{"watch"}},
	{"Scale", []string{"scale"}},
	{"Offline", []string{"offline"}},
	{"Recording", []string{"recording"}},
	{"Profiles of the missed targets", []string{"profile"}},
	{"Go micro-benchmarks", []string{"micro"}},
	{"How each number was measured", nil},
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

func sectionIndex(heading string) int {
	for i, s := range reportSections {
		if strings.HasPrefix(heading, s.key) {
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
	// A section whose heading merely starts like a written one ("Warm
	// cache bytes per pod (measured by hand)") comes after it: the first of
	// an index is the written one, a later one is kept as hand-written.
	prevSecs := splitSections(previous)
	old := map[int]section{}
	for i, s := range prevSecs {
		if _, dup := old[s.index]; dup && s.index >= 0 {
			prevSecs[i].index = len(reportSections)
			continue
		}
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
		kept = append(kept, rs.key)
	}
	// A section hack/bench does not write (notes measured by hand) stays
	// as it was, after the others.
	for _, o := range prevSecs {
		if heading, _, _ := strings.Cut(o.text, "\n"); o.index == len(reportSections) && !strings.Contains(fresh, heading+"\n") {
			secs = append(secs, o)
		}
	}
	slices.SortStableFunc(secs, func(a, b section) int { return a.index - b.index })
	// Targets: the rows of the step that did not run.
	for i := range secs {
		if secs[i].index != 2 || !have[2] {
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
		for _, line := range strings.Split(old[2].text, "\n") {
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
