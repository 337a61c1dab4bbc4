package diff

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/kubectl-informer/kubectl-informer/pkg/terminal"
)

// MaxValueBytes is how many bytes of a value WriteCompact prints before it
// truncates the value with "… (N bytes)".
const MaxValueBytes = 200

// hiddenValue is printed in place of a redacted value.
const hiddenValue = "(hidden)"

// flushBytes is how much WriteCompact and Unified buffer before writing.
const flushBytes = 32 << 10

// WriteCompact writes one line per change, each starting with indent:
//
//	~ spec.replicas: 2 → 3
//	+ metadata.labels.tier: "web"
//	- metadata.annotations.note: "x"
//	~ data.password: (hidden)
//
// Values are written as compact JSON, map keys sorted, with every control
// character, C1 control and bidirectional formatting character escaped (see
// terminal.SanitizeText), so cluster data cannot inject terminal escapes. A value
// whose JSON takes more than MaxValueBytes is cut there and followed by
// "… (N bytes)", where N is the length of the string, or of the JSON of a
// map or list. If color is set, added lines are green, removed lines red and
// modified lines yellow.
func WriteCompact(w io.Writer, changes []Change, indent string, color bool) error {
	buf := make([]byte, 0, 256)
	for i := range changes {
		c := &changes[i]
		buf = append(buf, indent...)
		if color {
			buf = append(buf, opColor(c.Op)...)
		}
		buf = append(buf, c.Op.Symbol()...)
		buf = append(buf, ' ')
		buf = terminal.AppendSanitized(buf, c.Path)
		buf = append(buf, ':', ' ')
		switch {
		case c.Redacted:
			buf = append(buf, hiddenValue...)
		case c.Op == Added:
			buf = appendValue(buf, c.New)
		case c.Op == Removed:
			buf = appendValue(buf, c.Old)
		default:
			buf = appendValue(buf, c.Old)
			buf = append(buf, " → "...)
			buf = appendValue(buf, c.New)
		}
		if color {
			buf = append(buf, terminal.Reset...)
		}
		buf = append(buf, '\n')
		if len(buf) >= flushBytes {
			if _, err := w.Write(buf); err != nil {
				return fmt.Errorf("writing changes: %w", err)
			}
			buf = buf[:0]
		}
	}
	if len(buf) > 0 {
		if _, err := w.Write(buf); err != nil {
			return fmt.Errorf("writing changes: %w", err)
		}
	}
	return nil
}

func opColor(op Op) string {
	switch op {
	case Added:
		return terminal.Green
	case Removed:
		return terminal.Red
	}
	return terminal.Yellow
}

// appendValue appends v as safe compact JSON, truncated after MaxValueBytes.
func appendValue(b []byte, v interface{}) []byte {
	vw := valueWriter{buf: b, limit: len(b) + MaxValueBytes}
	size := 0
	if s, ok := v.(string); ok {
		// The size of a string is its own length; no need to go past the cut.
		vw.countAll = false
		vw.str(s)
		size = len(s)
	} else {
		vw.countAll = true
		vw.value(v)
		size = vw.total
	}
	if !vw.full {
		return vw.buf
	}
	b = append(vw.buf, "… ("...)
	b = strconv.AppendInt(b, int64(size), 10)
	return append(b, " bytes)"...)
}

// valueWriter writes compact JSON into buf until it would pass limit, and
// from then on only counts the bytes the rest of the value would take.
type valueWriter struct {
	buf      []byte
	limit    int
	total    int  // bytes of JSON written or counted
	full     bool // buf reached limit: only count from now on
	countAll bool // keep counting after buf is full; otherwise stop
}

// token writes a piece of JSON that must not be cut.
func (vw *valueWriter) token(s string) {
	vw.total += len(s)
	if vw.full {
		return
	}
	if len(vw.buf)+len(s) > vw.limit {
		vw.full = true
		return
	}
	vw.buf = append(vw.buf, s...)
}

// tokenBytes is token for a byte slice.
func (vw *valueWriter) tokenBytes(s []byte) {
	vw.total += len(s)
	if vw.full {
		return
	}
	if len(vw.buf)+len(s) > vw.limit {
		vw.full = true
		return
	}
	vw.buf = append(vw.buf, s...)
}

func (vw *valueWriter) value(v interface{}) {
	if vw.full && !vw.countAll {
		return
	}
	switch x := v.(type) {
	case nil:
		vw.token("null")
	case bool:
		if x {
			vw.token("true")
		} else {
			vw.token("false")
		}
	case string:
		vw.str(x)
	case map[string]interface{}:
		vw.token("{")
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		if !vw.full {
			slices.Sort(keys)
		}
		for i, k := range keys {
			if i > 0 {
				vw.token(",")
			}
			vw.str(k)
			vw.token(":")
			vw.value(x[k])
		}
		vw.token("}")
	case []interface{}:
		vw.token("[")
		for i, e := range x {
			if i > 0 {
				vw.token(",")
			}
			vw.value(e)
		}
		vw.token("]")
	default:
		if n, ok := toNumber(v); ok {
			var tmp [32]byte
			vw.tokenBytes(appendNumber(tmp[:0], n))
			return
		}
		// Not a JSON type: print what encoding/json makes of it, made safe.
		b, err := json.Marshal(v)
		if err != nil {
			b = fmt.Appendf(nil, "%v", v)
		}
		vw.token(terminal.SanitizeText(string(b)))
	}
}

// str writes s as a JSON string with the escapes of appendQuoted.
func (vw *valueWriter) str(s string) {
	vw.token(`"`)
	i := 0
	for !vw.full && i < len(s) {
		var tmp [8]byte
		t, size := appendQuotedRune(tmp[:0], s[i:])
		vw.tokenBytes(t) // counted even if it did not fit
		i += size
	}
	if vw.full {
		if !vw.countAll {
			return
		}
		vw.total += quotedBodyLen(s[i:])
	}
	vw.token(`"`)
}

// appendQuotedRune appends the first rune of s as appendQuotedBody writes it,
// and returns the number of bytes of s it took.
func appendQuotedRune(b []byte, s string) ([]byte, int) {
	c := s[0]
	if c >= 0x20 && c < utf8.RuneSelf && c != 0x7f {
		if c == '"' || c == '\\' {
			return append(b, '\\', c), 1
		}
		return append(b, c), 1
	}
	r, size := utf8.DecodeRuneInString(s)
	switch {
	case r == utf8.RuneError && size == 1:
		return append(b, `\ufffd`...), 1
	case terminal.NeedsEscape(r):
		return terminal.AppendEscape(b, r), size
	}
	return append(b, s[:size]...), size
}

// quotedBodyLen returns len(appendQuotedBody(nil, s)) without building it.
func quotedBodyLen(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < utf8.RuneSelf && c != 0x7f {
			if c == '"' || c == '\\' {
				n += 2
			} else {
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			n += 6
		case r == '\n' || r == '\r' || r == '\t':
			n += 2
		case terminal.NeedsEscape(r):
			n += 6
		default:
			n += size
		}
		i += size
	}
	return n
}
