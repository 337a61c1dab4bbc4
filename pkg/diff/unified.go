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
	return unified(w, oldLabel, newLabel, filtered(old, opts), filtered(new, opts), opts.Redact, context, color)
}

// unified is Unified of o and n, already filtered with the Ignore and Only
// paths, redacting the paths in redact.
func unified(w io.Writer, oldLabel, newLabel string, o, n interface{}, redact []Path, context int, color bool) error {
	if context < 0 {
		context = 0
	}
	if len(redact) > 0 {
		var rw walker
		rw.init(Options{Redact: redact}, true)
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
