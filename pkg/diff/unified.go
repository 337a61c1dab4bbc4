package diff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"sigs.k8s.io/yaml"

	"github.com/kubectl-informer/kubectl-informer/pkg/terminal"
)

// hiddenChanged replaces a redacted value on the new side of Unified when it
// differs from the old one, so the diff still shows that it changed.
const hiddenChanged = "(hidden, changed)"

// Limits on the line diff of Unified. Beyond them, the lines between the
// common head and tail are shown as one block removed and one block added,
// which is correct but not minimal.
const (
	maxDiffEdits = 1000    // most lines the diff will add plus remove
	maxDiffWork  = 1 << 25 // most steps the diff will take
)

// Unified writes a unified diff, like diff -u, of old and new rendered as
// YAML (with sigs.k8s.io/yaml, so map keys are sorted; as indented JSON in
// the rare case the YAML library refuses an object), headed by
// "--- oldLabel" and "+++ newLabel", with context lines of context around
// each change (a negative context counts as 0). It writes nothing when the
// renderings are equal.
//
// Before rendering, both sides are filtered with opts: Ignore paths are left
// out, and, if Only is set, everything outside the Only paths. Under Redact
// paths every value is replaced with "(hidden)" — on the new side with
// "(hidden, changed)" when it differs from the old value — so the keys show
// but not the values. Every line is passed through terminal.SanitizeText.
//
// The line diff is Myers' algorithm on the lines between the common head and
// tail; past 1000 changed lines (a rewrite of the object, say) it shows that
// whole middle as removed and added, so time and memory stay bounded.
//
// A line longer than MaxLineBytes (a big single-line value: minified JSON, a
// certificate bundle) is shortened to about MaxLineBytes: its start, and,
// for a changed line, a window around the first byte where the block's
// first removed and first added lines differ, with "…" where bytes are left
// out, followed by " (N bytes)". So the output is bounded by the number of
// changed lines, not by the size of the values; such a diff is for reading
// and no longer applies with patch(1).
func Unified(w io.Writer, oldLabel, newLabel string, old, new map[string]interface{}, opts Options, context int, color bool) error {
	if context < 0 {
		context = 0
	}
	o := filtered(old, opts)
	n := filtered(new, opts)
	if len(opts.Redact) > 0 {
		var rw walker
		rw.init(Options{Redact: opts.Redact}, true)
		root := rw.rootState()
		o, n = rw.redactPair(0, o, true, n, true, root)
	}
	oy, ny, err := render(o, n)
	if err != nil {
		return err
	}
	return writeUnified(w, oldLabel, newLabel, splitLines(oy), splitLines(ny), context, color)
}

// writeUnified writes the unified diff of the lines a and b.
func writeUnified(w io.Writer, oldLabel, newLabel string, a, b []string, context int, color bool) error {
	edits := diffLines(a, b)
	hunks := groupHunks(edits, context)
	if len(hunks) == 0 {
		return nil
	}
	var buf []byte
	header := func(prefix, label string) {
		if color {
			buf = append(buf, terminal.Bold...)
		}
		buf = append(buf, prefix...)
		buf = terminal.AppendSanitized(buf, label)
		if color {
			buf = append(buf, terminal.Reset...)
		}
		buf = append(buf, '\n')
	}
	header("--- ", oldLabel)
	header("+++ ", newLabel)
	for _, h := range hunks {
		if color {
			buf = append(buf, terminal.Cyan...)
		}
		buf = append(buf, "@@ -"...)
		buf = appendRange(buf, h.aStart, h.aCount)
		buf = append(buf, " +"...)
		buf = appendRange(buf, h.bStart, h.bCount)
		buf = append(buf, " @@"...)
		if color {
			buf = append(buf, terminal.Reset...)
		}
		buf = append(buf, '\n')
		at := 0 // where the lines of the current block of changes differ
		for j, e := range edits[h.first:h.last] {
			var line, c string
			var mark byte
			if e.kind != editEqual && (j == 0 || edits[h.first+j-1].kind == editEqual) {
				at = firstDifference(a, b, edits[h.first+j:h.last])
			}
			switch e.kind {
			case editEqual:
				line, mark = a[e.a], ' '
			case editDelete:
				line, mark, c = a[e.a], '-', terminal.Red
			case editInsert:
				line, mark, c = b[e.b], '+', terminal.Green
			}
			if color && c != "" {
				buf = append(buf, c...)
			}
			buf = append(buf, mark)
			if e.kind == editEqual {
				buf = terminal.AppendSanitized(buf, shortLine(line, 0))
			} else {
				buf = terminal.AppendSanitized(buf, shortLine(line, at))
			}
			if color && c != "" {
				buf = append(buf, terminal.Reset...)
			}
			buf = append(buf, '\n')
			if len(buf) >= flushBytes {
				if _, err := w.Write(buf); err != nil {
					return fmt.Errorf("writing diff: %w", err)
				}
				buf = buf[:0]
			}
		}
	}
	if _, err := w.Write(buf); err != nil {
		return fmt.Errorf("writing diff: %w", err)
	}
	return nil
}

// MaxLineBytes is how many bytes of a line Unified prints before it
// shortens the line.
const MaxLineBytes = 1000

// lineHead is how much of the start of a long line Unified keeps when it
// shows a window further on: the indentation and key, usually.
const lineHead = 120

// firstDifference returns the offset of the first byte where the first
// removed and the first added line of the block of changes at the start of
// edits differ, or 0 if the block only removes or only adds.
func firstDifference(a, b []string, edits []edit) int {
	del, ins := -1, -1
	for _, e := range edits {
		if e.kind == editEqual {
			break
		}
		if e.kind == editDelete && del < 0 {
			del = e.a
		}
		if e.kind == editInsert && ins < 0 {
			ins = e.b
		}
	}
	if del < 0 || ins < 0 {
		return 0
	}
	x, y := a[del], b[ins]
	n := 0
	for n < len(x) && n < len(y) && x[n] == y[n] {
		n++
	}
	return n
}

// shortLine returns line if it has at most MaxLineBytes bytes. Otherwise it
// returns about MaxLineBytes of it: the start, up to MaxLineBytes if that
// shows byte at, or else lineHead bytes and a window from shortly before at,
// with "…" for what is left out and " (N bytes)" after, N being the length
// of line. Cuts fall on rune boundaries.
func shortLine(line string, at int) string {
	if len(line) <= MaxLineBytes {
		return line
	}
	var b strings.Builder
	b.Grow(MaxLineBytes + 32)
	if at < MaxLineBytes-lineHead {
		b.WriteString(line[:runeStart(line, MaxLineBytes)])
		b.WriteString("…")
	} else {
		b.WriteString(line[:runeStart(line, lineHead)])
		b.WriteString("…")
		from := runeStart(line, at-lineHead)
		to := runeStart(line, from+MaxLineBytes-lineHead)
		b.WriteString(line[from:to])
		if to < len(line) {
			b.WriteString("…")
		}
	}
	b.WriteString(" (")
	b.WriteString(strconv.Itoa(len(line)))
	b.WriteString(" bytes)")
	return b.String()
}

// runeStart returns i, or the start of the rune of s that byte i is in, or
// len(s) if i is past the end.
func runeStart(s string, i int) int {
	if i >= len(s) {
		return len(s)
	}
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// render returns old and new as YAML or, if either cannot be YAML (the YAML
// library refuses, for one, map keys longer than 1024 bytes), both as
// indented JSON.
func render(old, new interface{}) ([]byte, []byte, error) {
	o, _ := yamlSafe(old)
	n, _ := yamlSafe(new)
	oy, oerr := yaml.Marshal(o)
	ny, nerr := yaml.Marshal(n)
	if oerr == nil && nerr == nil {
		return oy, ny, nil
	}
	oj, err := indentJSON(old)
	if err != nil {
		return nil, nil, fmt.Errorf("rendering old object: %w", err)
	}
	nj, err := indentJSON(new)
	if err != nil {
		return nil, nil, fmt.Errorf("rendering new object: %w", err)
	}
	return oj, nj, nil
}

func indentJSON(v interface{}) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// filtered returns the part of obj that opts lets through, ignoring Redact.
func filtered(obj map[string]interface{}, opts Options) interface{} {
	if len(opts.Ignore) == 0 && len(opts.Only) == 0 {
		return obj
	}
	w := walker{}
	w.init(Options{Ignore: opts.Ignore, Only: opts.Only}, false)
	root := w.rootState()
	if v, ok := w.project(0, obj, root); ok {
		return v
	}
	return map[string]interface{}{}
}

// redactPair returns o and n with the values under Redact paths replaced,
// copying only the maps and lists on the way to them.
func (w *walker) redactPair(d int, o interface{}, hasO bool, n interface{}, hasN bool, st state) (interface{}, interface{}) {
	if st.redacted {
		return maskPair(o, hasO, n, hasN)
	}
	if !st.aliveRed {
		return o, n
	}
	om, oMap := o.(map[string]interface{})
	nm, nMap := n.(map[string]interface{})
	ol, oList := o.([]interface{})
	nl, nList := n.([]interface{})
	switch {
	case (oMap || !hasO) && (nMap || !hasN):
		var ro, rn map[string]interface{}
		if hasO {
			ro = make(map[string]interface{}, len(om))
		}
		if hasN {
			rn = make(map[string]interface{}, len(nm))
		}
		for k, ov := range om {
			nv, ok := nm[k]
			cs := w.childKey(st, d, k)
			ro[k], nv = w.redactPair(d+1, ov, true, nv, ok, cs)
			if ok {
				rn[k] = nv
			}
		}
		for k, nv := range nm {
			if _, ok := om[k]; !ok {
				cs := w.childKey(st, d, k)
				_, rn[k] = w.redactPair(d+1, nil, false, nv, true, cs)
			}
		}
		return mapOrNil(ro, hasO), mapOrNil(rn, hasN)
	case (oList || !hasO) && (nList || !hasN):
		var ro, rn []interface{}
		if hasO {
			ro = make([]interface{}, len(ol))
		}
		if hasN {
			rn = make([]interface{}, len(nl))
		}
		for i := 0; i < max(len(ol), len(nl)); i++ {
			var oe, ne interface{}
			oi, ni := -1, -1
			if i < len(ol) {
				oe, oi = ol[i], i
			}
			if i < len(nl) {
				ne, ni = nl[i], i
			}
			cs := w.childElem(st, d, oi, ni, oe, ne)
			re, rne := w.redactPair(d+1, oe, oi >= 0, ne, ni >= 0, cs)
			if oi >= 0 {
				ro[i] = re
			}
			if ni >= 0 {
				rn[i] = rne
			}
		}
		return listOrNil(ro, hasO), listOrNil(rn, hasN)
	case hasO && hasN:
		// Different kinds: each side on its own.
		ro, _ := w.redactPair(d, o, true, nil, false, st)
		_, rn := w.redactPair(d, nil, false, n, true, st)
		return ro, rn
	}
	return o, n
}

func mapOrNil(m map[string]interface{}, ok bool) interface{} {
	if !ok {
		return nil
	}
	return m
}

func listOrNil(l []interface{}, ok bool) interface{} {
	if !ok {
		return nil
	}
	return l
}

// maskPair replaces every leaf value under a Redact path, keeping map keys
// and list lengths, and marks the new leaves that differ from the old ones.
func maskPair(o interface{}, hasO bool, n interface{}, hasN bool) (interface{}, interface{}) {
	om, oMap := o.(map[string]interface{})
	nm, nMap := n.(map[string]interface{})
	ol, oList := o.([]interface{})
	nl, nList := n.([]interface{})
	switch {
	case oMap && nMap:
		ro := make(map[string]interface{}, len(om))
		rn := make(map[string]interface{}, len(nm))
		for k, ov := range om {
			nv, ok := nm[k]
			ro[k], nv = maskPair(ov, true, nv, ok)
			if ok {
				rn[k] = nv
			}
		}
		for k, nv := range nm {
			if _, ok := om[k]; !ok {
				rn[k] = mask(nv, hiddenValue)
			}
		}
		return ro, rn
	case oList && nList:
		ro := make([]interface{}, len(ol))
		rn := make([]interface{}, len(nl))
		for i := range ol {
			if i < len(nl) {
				ro[i], rn[i] = maskPair(ol[i], true, nl[i], true)
			} else {
				ro[i] = mask(ol[i], hiddenValue)
			}
		}
		for i := len(ol); i < len(nl); i++ {
			rn[i] = mask(nl[i], hiddenValue)
		}
		return ro, rn
	}
	var ro, rn interface{}
	if hasO {
		ro = mask(o, hiddenValue)
	}
	if hasN {
		marker := hiddenValue
		if hasO && (isContainer(o) || isContainer(n) || !scalarEqual(o, n)) {
			marker = hiddenChanged
		}
		rn = mask(n, marker)
	}
	return ro, rn
}

// mask returns v with every leaf replaced by marker.
func mask(v interface{}, marker string) interface{} {
	switch x := v.(type) {
	case map[string]interface{}:
		out := make(map[string]interface{}, len(x))
		for k, e := range x {
			out[k] = mask(e, marker)
		}
		return out
	case []interface{}:
		out := make([]interface{}, len(x))
		for i, e := range x {
			out[i] = mask(e, marker)
		}
		return out
	}
	return marker
}

// yamlSafe returns v with terminal.EscapeForYAML applied to every key and
// string (only the display changes: a key so rewritten could in theory
// collide with another),
// copying only the maps and lists that change, and whether anything did.
func yamlSafe(v interface{}) (interface{}, bool) {
	switch x := v.(type) {
	case string:
		s := terminal.EscapeForYAML(x)
		return s, len(s) != len(x)
	case map[string]interface{}:
		var out map[string]interface{}
		for k, e := range x {
			sk := terminal.EscapeForYAML(k)
			se, changed := yamlSafe(e)
			if out == nil && (changed || len(sk) != len(k)) {
				out = make(map[string]interface{}, len(x))
				for k2, e2 := range x {
					out[k2] = e2
				}
			}
			if out != nil {
				delete(out, k)
				out[sk] = se
			}
		}
		if out != nil {
			return out, true
		}
	case []interface{}:
		var out []interface{}
		for i, e := range x {
			se, changed := yamlSafe(e)
			if out == nil && changed {
				out = append([]interface{}(nil), x...)
			}
			if out != nil {
				out[i] = se
			}
		}
		if out != nil {
			return out, true
		}
	}
	return v, false
}

// splitLines splits YAML output into lines, without the newlines.
func splitLines(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	b = bytes.TrimSuffix(b, []byte("\n"))
	lines := make([]string, 0, bytes.Count(b, []byte("\n"))+1)
	s := string(b)
	for {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			break
		}
		lines = append(lines, s[:i])
		s, b = s[i+1:], b[i+1:]
	}
	return append(lines, s)
}

// editKind is one step of a line diff.
type editKind uint8

const (
	editEqual editKind = iota
	editDelete
	editInsert
)

// edit is one line of a diff: line a of the old text, line b of the new, or
// both; for a delete, b is where the new text stands, and for an insert, a
// is where the old one does.
type edit struct {
	kind editKind
	a, b int
}

// diffLines returns an edit script that turns a into b.
func diffLines(a, b []string) []edit {
	head := 0
	for head < len(a) && head < len(b) && a[head] == b[head] {
		head++
	}
	tail := 0
	for tail < len(a)-head && tail < len(b)-head && a[len(a)-1-tail] == b[len(b)-1-tail] {
		tail++
	}
	edits := make([]edit, 0, len(a)+len(b)-head-tail)
	for i := 0; i < head; i++ {
		edits = append(edits, edit{kind: editEqual, a: i, b: i})
	}
	am, bm := a[head:len(a)-tail], b[head:len(b)-tail]
	middle, ok := myers(am, bm)
	if !ok {
		middle = middle[:0]
		for i := range am {
			middle = append(middle, edit{kind: editDelete, a: i, b: 0})
		}
		for j := range bm {
			middle = append(middle, edit{kind: editInsert, a: len(am), b: j})
		}
	}
	for _, e := range middle {
		edits = append(edits, edit{kind: e.kind, a: e.a + head, b: e.b + head})
	}
	for i := 0; i < tail; i++ {
		edits = append(edits, edit{kind: editEqual, a: len(a) - tail + i, b: len(b) - tail + i})
	}
	return edits
}

// myers returns a shortest edit script from a to b (Myers, "An O(ND)
// Difference Algorithm and Its Variations", 1986), or false if it needs more
// than maxDiffEdits edits or maxDiffWork steps.
func myers(a, b []string) ([]edit, bool) {
	n, m := len(a), len(b)
	if n == 0 && m == 0 {
		return nil, true
	}
	maxD := min(n+m, maxDiffEdits)
	off := maxD + 1
	v := make([]int32, 2*maxD+3) // v[off+k]: furthest x on diagonal k
	// trace[d] holds v[-d..d] as it was before round d.
	var trace [][]int32
	work := 0
	for d := 0; d <= maxD; d++ {
		trace = append(trace, append([]int32(nil), v[off-d:off+d+1]...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || k != d && v[off+k-1] < v[off+k+1] {
				x = int(v[off+k+1])
			} else {
				x = int(v[off+k-1]) + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
				work++
			}
			work++
			v[off+k] = int32(x)
			if x >= n && y >= m {
				return backtrack(trace, n, m), true
			}
		}
		if work > maxDiffWork {
			return nil, false
		}
	}
	return nil, false
}

// backtrack follows the trace of myers back from (n, m) to (0, 0).
func backtrack(trace [][]int32, n, m int) []edit {
	var rev []edit
	x, y := n, m
	for d := len(trace) - 1; d > 0; d-- {
		v := trace[d] // v[i] is diagonal i-d
		k := x - y
		var prevK int
		if k == -d || k != d && v[k-1+d] < v[k+1+d] {
			prevK = k + 1
		} else {
			prevK = k - 1
		}
		prevX := int(v[prevK+d])
		prevY := prevX - prevK
		for x > prevX && y > prevY {
			x--
			y--
			rev = append(rev, edit{kind: editEqual, a: x, b: y})
		}
		if x == prevX {
			y--
			rev = append(rev, edit{kind: editInsert, a: x, b: y})
		} else {
			x--
			rev = append(rev, edit{kind: editDelete, a: x, b: y})
		}
	}
	for x > 0 && y > 0 {
		x--
		y--
		rev = append(rev, edit{kind: editEqual, a: x, b: y})
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev
}

// hunk is a run of edits[first:last] shown together, and its line ranges.
type hunk struct {
	first, last    int
	aStart, aCount int // aStart is 0-based
	bStart, bCount int
}

// groupHunks groups the changes of edits with up to context equal lines
// around each, merging groups that would touch or overlap.
func groupHunks(edits []edit, context int) []hunk {
	var hunks []hunk
	for i := 0; i < len(edits); {
		if edits[i].kind == editEqual {
			i++
			continue
		}
		first := max(0, i-context)
		// Extend over changes separated by at most 2*context equal lines.
		last := i
		for j := i; j < len(edits); {
			if edits[j].kind != editEqual {
				j++
				last = j
				continue
			}
			run := j
			for run < len(edits) && edits[run].kind == editEqual {
				run++
			}
			if run == len(edits) || run-j > 2*context {
				break
			}
			j = run
		}
		end := min(len(edits), last+context)
		h := hunk{first: first, last: end, aStart: edits[first].a, bStart: edits[first].b}
		for _, e := range edits[first:end] {
			if e.kind != editInsert {
				h.aCount++
			}
			if e.kind != editDelete {
				h.bCount++
			}
		}
		hunks = append(hunks, h)
		i = end
	}
	return hunks
}

// appendRange appends a hunk range the way diff -u writes it: the 1-based
// first line and the count, with the count left out when it is 1, and the
// line before the hunk when the count is 0.
func appendRange(b []byte, start, count int) []byte {
	if count == 0 {
		b = strconv.AppendInt(b, int64(start), 10)
		return append(b, ",0"...)
	}
	b = strconv.AppendInt(b, int64(start+1), 10)
	if count != 1 {
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(count), 10)
	}
	return b
}
