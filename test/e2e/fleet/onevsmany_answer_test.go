package fleet

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"
)

// This file turns the printed answers of TestOneVersusMany into values that
// can be compared: an answer is lines of cells. A fleet's answer is split
// into the part of each context, without the context (the CONTEXT column,
// the CONTEXT/ or "CONTEXT " or "context CONTEXT: " prefix of a line, the
// contexts list beside a List's items, the context field of a watch
// event), and the part that belongs to no context (the TOTAL row of
// capacity, a grouped table), which must add up.

// ovmKind says how an output is read.
type ovmKind int

const (
	// kindTable: kubectl tables, separated by blank lines; a fleet's
	// first column CONTEXT says whose a row is.
	kindTable ovmKind = iota
	// kindLiveTable: query -w off a terminal: the table, then a row per
	// change, each aligned on its own; cells are split at two spaces.
	kindLiveTable
	// kindLines: -o name, watch text and name, cache messages: a fleet's
	// line starts with its context ("CONTEXT/", "CONTEXT " or "context
	// CONTEXT: "); a line without one continues the line before.
	kindLines
	// kindList: -o json or yaml of a v1 List; a fleet's List has the list
	// contexts beside items, the context of each item.
	kindList
	// kindContextItems: capacity -o json; a fleet's answer is a List whose
	// item i is the answer of contexts[i].
	kindContextItems
	// kindEventsJSON: watch -o json, an event per line; a fleet's events
	// have a field context.
	kindEventsJSON
	// kindConcat: -o jsonpath: the fleet's output is the contexts'
	// outputs one after the other.
	kindConcat
	// kindGroups: a grouped table (query --group-by, capacity
	// --group-by): across contexts, a group's numbers are the sums of the
	// contexts' numbers for that group.
	kindGroups
	// kindCapacity: the capacity table: node rows as kindTable, the TOTAL
	// row the sum of the contexts' TOTAL rows.
	kindCapacity
	// kindNotFound: an empty answer: nothing on stdout, the one-context
	// message on stderr.
	kindNotFound
)

// ovmAnswer is an answer as lines of cells. A cell that starts with
// ageMark is an age (an AGE or EVENT AGE column): two ages are equal when
// they are within a second or two of each other, as two commands run a
// moment apart print them.
type ovmAnswer [][]string

const ageMark = "\x00"

func (a ovmAnswer) String() string {
	var b strings.Builder
	for _, line := range a {
		b.WriteString("    " + strings.ReplaceAll(strings.Join(line, " | "), ageMark, "~") + "\n")
	}
	if len(a) == 0 {
		b.WriteString("    (nothing)\n")
	}
	return b.String()
}

// equal reports whether a and b have the same lines and cells, ages
// within their tolerance.
func (a ovmAnswer) equal(b ovmAnswer) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return false
		}
		for j := range a[i] {
			if !sameCell(a[i][j], b[i][j]) {
				return false
			}
		}
	}
	return true
}

func sameCell(a, b string) bool {
	if a == b {
		return true
	}
	if !strings.HasPrefix(a, ageMark) || !strings.HasPrefix(b, ageMark) {
		return false
	}
	da, pa, okA := parseAge(strings.TrimPrefix(a, ageMark))
	db, pb, okB := parseAge(strings.TrimPrefix(b, ageMark))
	if !okA || !okB {
		return false
	}
	diff := da - db
	if diff < 0 {
		diff = -diff
	}
	return diff <= 2*time.Second+max(pa, pb)
}

var ageComponent = regexp.MustCompile(`(\d+)([ydhms])`)

// parseAge reads an age as kubectl prints it (45s, 3m12s, 5m, 2d3h, 3y)
// and returns it with its precision, the unit of its last component.
func parseAge(s string) (time.Duration, time.Duration, bool) {
	units := map[string]time.Duration{"y": 365 * 24 * time.Hour, "d": 24 * time.Hour, "h": time.Hour, "m": time.Minute, "s": time.Second}
	parts := ageComponent.FindAllStringSubmatch(s, -1)
	if len(parts) == 0 || strings.Join(flatten(parts), "") != s {
		return 0, 0, false
	}
	var d, precision time.Duration
	for _, p := range parts {
		n, _ := strconv.Atoi(p[1])
		d += time.Duration(n) * units[p[2]]
		precision = units[p[2]]
	}
	if precision == time.Second {
		precision = 0
	}
	return d, precision, true
}

func flatten(parts [][]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p[0])
	}
	return out
}

// ovmTable is one printed table: its header and rows of cells.
type ovmTable struct {
	header []string
	rows   [][]string
}

// parseTables reads kubectl tables separated by blank lines. Cells are cut
// at the columns where the header's words start (tables are aligned in
// runes), so an empty cell stays a cell; a cell keeps its leading spaces
// (a tree's indentation). Cells of AGE columns get ageMark.
func parseTables(out string) []ovmTable {
	var tables []ovmTable
	var cur *ovmTable
	var starts []int
	var ages []bool
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if strings.TrimSpace(line) == "" {
			cur = nil
			continue
		}
		runes := []rune(line)
		if cur == nil {
			tables = append(tables, ovmTable{})
			cur = &tables[len(tables)-1]
			starts, ages = nil, nil
			for _, loc := range regexp.MustCompile(`\S+( \S+)*`).FindAllStringIndex(line, -1) {
				starts = append(starts, len([]rune(line[:loc[0]])))
				word := line[loc[0]:loc[1]]
				cur.header = append(cur.header, word)
				ages = append(ages, word == "AGE" || strings.HasSuffix(word, " AGE"))
			}
			continue
		}
		row := make([]string, len(starts))
		for i, s := range starts {
			end := len(runes)
			if i+1 < len(starts) && starts[i+1] < end {
				end = starts[i+1]
			}
			if s < len(runes) && s < end {
				row[i] = strings.TrimRight(string(runes[s:end]), " ")
			}
			if ages[i] && row[i] != "" {
				row[i] = ageMark + row[i]
			}
		}
		cur.rows = append(cur.rows, row)
	}
	return tables
}

// parseLiveTable reads query -w's output: lines whose cells are separated
// by two spaces or more, the first line the header.
func parseLiveTable(out string) ovmTable {
	var t ovmTable
	split := regexp.MustCompile(` {2,}`)
	var ages []bool
	for i, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		cells := split.Split(strings.TrimSpace(line), -1)
		if i == 0 {
			t.header = cells
			for _, h := range cells {
				ages = append(ages, h == "AGE" || strings.HasSuffix(h, " AGE"))
			}
			continue
		}
		for j := range cells {
			if j < len(ages) && ages[j] {
				cells[j] = ageMark + cells[j]
			}
		}
		t.rows = append(t.rows, cells)
	}
	return t
}

// tableAnswer is tables as an answer: each header and its rows, a blank
// line between tables.
func tableAnswer(tables []ovmTable) ovmAnswer {
	var a ovmAnswer
	for i, t := range tables {
		if i > 0 {
			a = append(a, []string{})
		}
		a = append(a, t.header)
		a = append(a, t.rows...)
	}
	return a
}

// ovmSplit is a fleet's answer taken apart: the part of each context, and
// the part of none.
type ovmSplit struct {
	byContext map[string]ovmAnswer
	none      ovmAnswer
}

// splitTables splits tables by their CONTEXT column. A table without one,
// and a row whose CONTEXT is empty, belongs to no context, unless the
// form has one context only.
func splitTables(tables []ovmTable, contexts []string) ovmSplit {
	s := ovmSplit{byContext: map[string]ovmAnswer{}}
	own := map[string][]ovmTable{}
	var none []ovmTable
	for _, t := range tables {
		if len(t.header) == 0 || t.header[0] != "CONTEXT" {
			if len(contexts) == 1 {
				own[contexts[0]] = append(own[contexts[0]], t)
			} else {
				none = append(none, t)
			}
			continue
		}
		header := t.header[1:]
		parts := map[string]*ovmTable{}
		var noneRows [][]string
		for _, row := range t.rows {
			c := row[0]
			if c == "TOTAL" && len(row) > 1 && row[1] == "" {
				// A fleet prints the TOTAL row's label in the CONTEXT
				// column: it goes to the first column left.
				c, row = "", append([]string{"", "TOTAL"}, row[2:]...)
			}
			if c == "" && len(contexts) == 1 {
				c = contexts[0]
			}
			if c == "" {
				noneRows = append(noneRows, row[1:])
				continue
			}
			if parts[c] == nil {
				parts[c] = &ovmTable{header: header}
			}
			parts[c].rows = append(parts[c].rows, row[1:])
		}
		for c, p := range parts {
			own[c] = append(own[c], *p)
		}
		if len(noneRows) > 0 {
			none = append(none, ovmTable{header: header, rows: noneRows})
		}
	}
	for c, ts := range own {
		s.byContext[c] = tableAnswer(ts)
	}
	s.none = tableAnswer(none)
	return s
}

// splitLines splits lines by the context each starts with.
func splitLines(out string, contexts []string) ovmSplit {
	s := ovmSplit{byContext: map[string]ovmAnswer{}}
	last := ""
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if line == "" {
			continue
		}
		owner := ""
		for _, c := range contexts {
			for _, prefix := range []string{"context " + c + ": ", c + "/", c + " "} {
				if strings.HasPrefix(line, prefix) {
					owner, line = c, strings.TrimPrefix(line, prefix)
					break
				}
			}
			if owner != "" {
				break
			}
		}
		if owner == "" {
			owner = last
		}
		if owner == "" && len(contexts) == 1 {
			owner = contexts[0]
		}
		// A fleet pads the type of event after the context less than
		// one context does: compare words.
		cells := []string{strings.Join(strings.Fields(line), " ")}
		if owner == "" {
			s.none = append(s.none, cells)
			continue
		}
		last = owner
		s.byContext[owner] = append(s.byContext[owner], cells)
	}
	return s
}

// linesAnswer is the lines of out as an answer, a cell each, spaces
// between words collapsed.
func linesAnswer(out string) ovmAnswer {
	var a ovmAnswer
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if line != "" {
			a = append(a, []string{strings.Join(strings.Fields(line), " ")})
		}
	}
	return a
}

// jsonAnswer is a JSON value as an answer: its indented form, keys sorted,
// a line per cell.
func jsonAnswer(v interface{}) ovmAnswer {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return ovmAnswer{{"marshalling: " + err.Error()}}
	}
	var a ovmAnswer
	for _, line := range strings.Split(string(b), "\n") {
		a = append(a, []string{line})
	}
	return a
}

// decode reads JSON or YAML into a generic value.
func decode(out string) (map[string]interface{}, error) {
	j, err := yaml.YAMLToJSON([]byte(out))
	if err != nil {
		return nil, err
	}
	var m map[string]interface{}
	if err := json.Unmarshal(j, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// splitList splits a fleet's List by its contexts list: each context's
// List has its items, in order, and no contexts. With perItem, item i is
// the whole answer of contexts[i] (capacity -o json).
func splitList(out string, contexts []string, perItem bool) (ovmSplit, error) {
	s := ovmSplit{byContext: map[string]ovmAnswer{}}
	m, err := decode(out)
	if err != nil {
		return s, fmt.Errorf("reading the answer: %w", err)
	}
	names, ok := m["contexts"].([]interface{})
	if !ok {
		if len(contexts) == 1 {
			s.byContext[contexts[0]] = jsonAnswer(m)
		} else {
			s.none = jsonAnswer(m)
		}
		return s, nil
	}
	items, _ := m["items"].([]interface{})
	if len(items) != len(names) {
		return s, fmt.Errorf("the List has %d items and %d contexts", len(items), len(names))
	}
	delete(m, "contexts")
	byContext := map[string][]interface{}{}
	for i, n := range names {
		c := fmt.Sprint(n)
		if perItem {
			s.byContext[c] = jsonAnswer(items[i])
			continue
		}
		byContext[c] = append(byContext[c], items[i])
	}
	if perItem {
		return s, nil
	}
	for c, its := range byContext {
		list := map[string]interface{}{}
		for k, v := range m {
			list[k] = v
		}
		list["items"] = its
		s.byContext[c] = jsonAnswer(list)
	}
	return s, nil
}

// splitEvents reads watch -o json's events, one per line, each as one
// cell of sorted compact JSON; a fleet's events are split by their field
// context, which is dropped.
func splitEvents(out string, contexts []string) (ovmSplit, error) {
	s := ovmSplit{byContext: map[string]ovmAnswer{}}
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if line == "" {
			continue
		}
		var ev map[string]interface{}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			return s, fmt.Errorf("event %q: %w", line, err)
		}
		c, _ := ev["context"].(string)
		delete(ev, "context")
		if c == "" && len(contexts) == 1 {
			c = contexts[0]
		}
		b, _ := json.Marshal(ev)
		if c == "" {
			s.none = append(s.none, []string{string(b)})
			continue
		}
		s.byContext[c] = append(s.byContext[c], []string{string(b)})
	}
	return s, nil
}

// oneAnswer reads the answer of one context (no context to take out).
func oneAnswer(kind ovmKind, out string) (ovmAnswer, error) {
	switch kind {
	case kindTable, kindGroups, kindCapacity:
		return tableAnswer(parseTables(out)), nil
	case kindLiveTable:
		return tableAnswer([]ovmTable{parseLiveTable(out)}), nil
	case kindList, kindContextItems:
		m, err := decode(out)
		if err != nil {
			return nil, fmt.Errorf("reading the answer: %w", err)
		}
		return jsonAnswer(m), nil
	case kindEventsJSON:
		s, err := splitEvents(out, []string{"one"})
		return s.byContext["one"], err
	}
	return linesAnswer(out), nil
}

// fleetSplit reads a fleet's answer and splits it by context.
func fleetSplit(kind ovmKind, out string, contexts []string) (ovmSplit, error) {
	switch kind {
	case kindTable, kindGroups, kindCapacity:
		return splitTables(parseTables(out), contexts), nil
	case kindLiveTable:
		return splitTables([]ovmTable{parseLiveTable(out)}, contexts), nil
	case kindList:
		return splitList(out, contexts, false)
	case kindContextItems:
		return splitList(out, contexts, true)
	case kindEventsJSON:
		return splitEvents(out, contexts)
	case kindConcat:
		s := ovmSplit{byContext: map[string]ovmAnswer{}}
		if len(contexts) == 1 {
			s.byContext[contexts[0]] = linesAnswer(out)
		} else {
			s.none = linesAnswer(out)
		}
		return s, nil
	}
	return splitLines(out, contexts), nil
}

// groupSums adds up grouped tables (each with its TOTAL row) by the first
// cell of each row: counts and quantities are summed, "used/allocatable"
// both parts summed; a percentage in parentheses is left out (the
// percentage of a sum is not the sum of percentages). Other cells must be
// equal; a difference is kept as "a≠b".
func groupSums(tables []ovmTable) map[string][]string {
	sums := map[string][]string{}
	for _, t := range tables {
		for _, row := range t.rows {
			key := strings.TrimSpace(row[0])
			prev, ok := sums[key]
			if !ok {
				prev = make([]string, len(row)-1)
				for i := range prev {
					prev[i] = "0"
				}
			}
			for i, cell := range row[1:] {
				if i < len(prev) {
					prev[i] = addCells(prev[i], cell)
				}
			}
			sums[key] = prev
		}
	}
	return sums
}

var (
	fractionCell = regexp.MustCompile(`^(\d+)/(\d+)( \(\d+%\))?$`)
	percentTail  = regexp.MustCompile(` \(\d+%\)$`)
)

// addCells adds cell to the sum so far, both in the canonical forms
// groupSums makes.
func addCells(sum, cell string) string {
	cell = strings.TrimPrefix(strings.TrimSpace(cell), ageMark)
	if m := fractionCell.FindStringSubmatch(cell); m != nil {
		a, _ := strconv.Atoi(m[1])
		b, _ := strconv.Atoi(m[2])
		var sa, sb int
		if sum != "0" {
			fmt.Sscanf(sum, "%d/%d", &sa, &sb)
		}
		return fmt.Sprintf("%d/%d", sa+a, sb+b)
	}
	cell = percentTail.ReplaceAllString(cell, "")
	q, err := resource.ParseQuantity(cell)
	if err != nil {
		if sum == "0" || sum == cell {
			return cell
		}
		return sum + "≠" + cell
	}
	s, err := resource.ParseQuantity(sum)
	if err != nil {
		return sum + "≠" + cell
	}
	q.Add(s)
	return decimal(q)
}

// decimal is q as a plain decimal without trailing zeros, so that sums
// whose parts had other scales compare equal ("4", not "4.000").
func decimal(q resource.Quantity) string {
	d := q.AsDec().String()
	if strings.Contains(d, ".") {
		d = strings.TrimRight(strings.TrimRight(d, "0"), ".")
	}
	return d
}

// groupsAnswer is sums as an answer, rows in key order.
func groupsAnswer(sums map[string][]string) ovmAnswer {
	keys := make([]string, 0, len(sums))
	for k := range sums {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var a ovmAnswer
	for _, k := range keys {
		a = append(a, append([]string{k}, sums[k]...))
	}
	return a
}

// TestOneVersusManyReading checks, without a cluster, how
// TestOneVersusMany reads answers: ages within their tolerance, empty
// cells and a tree's indentation kept, a fleet's rows split by context
// with capacity's TOTAL row apart, and sums of grouped rows.
func TestOneVersusManyReading(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"5s", "6s", true}, {"5s", "9s", false}, {"2m5s", "2m6s", true}, {"5m", "6m", true},
		{"5m", "8m", false}, {"3h", "3h", true}, {"<none>", "5s", false}, {"1/110", "1/110", true},
	} {
		if got := sameCell(ageMark+tc.a, ageMark+tc.b); got != tc.want {
			t.Errorf("sameCell(age %s, age %s) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
	if sameCell("100m", "101m") {
		t.Errorf("sameCell(100m, 101m) = true for cells that are not ages, want false")
	}

	tree := "NAMESPACE   NAME                    READY   STATUS    AGE\n" +
		"onevsmany   Deployment/web          0/0               17s\n" +
		"onevsmany   └─ReplicaSet/web-6d4b   0                 17s\n" +
		"onevsmany     └─Pod/web-6d4b-1      0/1     Pending   16s\n"
	got := parseTables(tree)
	want := []ovmTable{{
		header: []string{"NAMESPACE", "NAME", "READY", "STATUS", "AGE"},
		rows: [][]string{
			{"onevsmany", "Deployment/web", "0/0", "", ageMark + "17s"},
			{"onevsmany", "└─ReplicaSet/web-6d4b", "0", "", ageMark + "17s"},
			{"onevsmany", "  └─Pod/web-6d4b-1", "0/1", "Pending", ageMark + "16s"},
		},
	}}
	if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
		t.Errorf("parseTables(tree) = %q, want %q", got, want)
	}

	capacity := "CONTEXT   NODE      PODS         CPU REQUESTS\n" +
		"fleet-1   ovm-1-a   1/110 (0%)   100m (3%)\n" +
		"fleet-2   ovm-2-a   2/110 (1%)   400m (10%)\n" +
		"TOTAL               3/220 (1%)   500m (7%)\n"
	s := splitTables(parseTables(capacity), []string{"fleet-1", "fleet-2"})
	if got, want := s.byContext["fleet-2"], (ovmAnswer{{"NODE", "PODS", "CPU REQUESTS"}, {"ovm-2-a", "2/110 (1%)", "400m (10%)"}}); !got.equal(want) {
		t.Errorf("splitTables(capacity): fleet-2's part\n%swant\n%s", got, want)
	}
	if got, want := s.none, (ovmAnswer{{"NODE", "PODS", "CPU REQUESTS"}, {"TOTAL", "3/220 (1%)", "500m (7%)"}}); !got.equal(want) {
		t.Errorf("splitTables(capacity): the part of no context\n%swant\n%s", got, want)
	}

	// Sums compare as decimals whatever the scale of their parts: 4000m
	// summed is "4", as one table's "4".
	if got := addCells(addCells("0", "1500m"), "2.5"); got != "4" {
		t.Errorf("1500m + 2.5 = %q, want 4", got)
	}
	groups := []ovmTable{
		{rows: [][]string{{"web", "2", "300m"}, {"TOTAL", "2", "300m"}}},
		{rows: [][]string{{"web", "3", "0.6"}, {"solo", "1", "50m"}, {"TOTAL", "4", "650m"}}},
	}
	if got, want := groupsAnswer(groupSums(groups)), (ovmAnswer{{"TOTAL", "6", "0.95"}, {"solo", "1", "0.05"}, {"web", "5", "0.9"}}); !got.equal(want) {
		t.Errorf("groupSums:\n%swant\n%s", got, want)
	}
}
