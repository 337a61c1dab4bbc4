package diff

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// segKind says what one segment of a Path matches.
type segKind uint8

const (
	segKey      segKind = iota // a map key equal to segment.key
	segAnyKey                  // "*": any map key or list element
	segIndex                   // [3]: the list element at segment.index
	segAnyIndex                // [*] or []: any list element
	segMatch                   // [field=value]: the list element whose field equals value
)

// maxIndexDigits bounds the digits of a [N] segment, so the index fits an int everywhere.
const maxIndexDigits = 9

// segment is one step of a Path.
type segment struct {
	kind  segKind
	key   string // segKey: the map key; segMatch: the field
	value string // segMatch: the value the field must have
	index int    // segIndex: the list index
}

// Path is a parsed field path such as metadata.labels or
// spec.containers[name=web].image. The zero Path matches the whole object.
// Build one with ParsePath; the display paths in Change.Path parse back to a
// Path that matches the changed field.
type Path struct {
	segs []segment
}

// ParsePath parses a field path as given to --ignore or --only.
//
// Segments are separated by dots: metadata.labels.app. A "*" segment matches
// any map key (or list element). A key that contains dots, brackets or other
// special characters is written in brackets and quotes, single or double:
// metadata.labels['app.kubernetes.io/name']; inside quotes, \\, \', \", \n,
// \r, \t and \uXXXX are escapes. List elements are selected with [*] or [] (every
// element), [3] (an index), or [name=web] (the element whose name field, or
// any other field, equals web; the field and the value may be quoted too).
//
// The error names the path and the 1-based column of the problem, such as
// `invalid path "spec..x": empty segment at 6`, and no flag: the caller adds that.
func ParsePath(s string) (Path, error) {
	p := pathParser{s: s}
	return p.parse()
}

// pathParser holds the input of one ParsePath call.
type pathParser struct {
	s string
}

// errorf returns an error naming the path and the 1-based column of pos.
func (p *pathParser) errorf(pos int, format string, args ...interface{}) error {
	return fmt.Errorf("invalid path %q: %s at %d", p.s, fmt.Sprintf(format, args...), pos+1)
}

func (p *pathParser) parse() (Path, error) {
	s := p.s
	if s == "" {
		return Path{}, fmt.Errorf("invalid path %q: empty path", s)
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return Path{}, p.errorf(i, "invalid UTF-8")
		}
		i += size
	}

	var segs []segment
	i := 0
	afterDot := false
	for {
		var seg segment
		if !afterDot && i < len(s) && s[i] == '[' {
			var err error
			seg, i, err = p.bracket(i)
			if err != nil {
				return Path{}, err
			}
		} else {
			start := i
			for i < len(s) && s[i] != '.' && s[i] != '[' {
				if s[i] == ']' {
					return Path{}, p.errorf(i, "unexpected %q", "]")
				}
				i++
			}
			if i == start {
				return Path{}, p.errorf(start, "empty segment")
			}
			if key := s[start:i]; key == "*" {
				seg = segment{kind: segAnyKey}
			} else {
				seg = segment{kind: segKey, key: key}
			}
		}
		segs = append(segs, seg)
		if i == len(s) {
			return Path{segs: segs}, nil
		}
		switch s[i] {
		case '.':
			afterDot = true
			i++
		case '[':
			afterDot = false
		default:
			r, _ := utf8.DecodeRuneInString(s[i:])
			return Path{}, p.errorf(i, "unexpected %q after %q", string(r), "]")
		}
	}
}

// bracket parses the bracketed segment that starts at s[open] == '[' and
// returns it with the position just after its closing bracket.
func (p *pathParser) bracket(open int) (segment, int, error) {
	s := p.s
	j := open + 1
	if j == len(s) {
		return segment{}, 0, p.errorf(open, "unclosed %q", "[")
	}
	var field string
	k := j
	if s[j] == '\'' || s[j] == '"' {
		// A quoted key, or the quoted field of a selector.
		var err error
		field, k, err = p.quoted(j)
		if err != nil {
			return segment{}, 0, err
		}
		if k == len(s) {
			return segment{}, 0, p.errorf(open, "unclosed %q", "[")
		}
		switch s[k] {
		case ']':
			return segment{kind: segKey, key: field}, k + 1, nil
		case '=':
		default:
			return segment{}, 0, p.errorf(k, "want %q or %q after quoted key", "]", "=")
		}
	} else {
		for k < len(s) && s[k] != ']' && s[k] != '=' {
			k++
		}
		if k == len(s) {
			return segment{}, 0, p.errorf(open, "unclosed %q", "[")
		}
		field = s[j:k]
	}
	if s[k] == ']' {
		tok := s[j:k]
		switch {
		case tok == "" || tok == "*":
			return segment{kind: segAnyIndex}, k + 1, nil
		case isDigits(tok):
			if len(tok) > maxIndexDigits {
				return segment{}, 0, p.errorf(j, "index %s out of range", tok)
			}
			n, _ := strconv.Atoi(tok) // cannot fail: at most 9 digits
			return segment{kind: segIndex, index: n}, k + 1, nil
		default:
			return segment{}, 0, p.errorf(j, "invalid list selector %q (want [N], [*], [field=value] or a quoted key)", tok)
		}
	}
	if k == j {
		return segment{}, 0, p.errorf(j, "empty field in selector")
	}
	v := k + 1
	if v == len(s) {
		return segment{}, 0, p.errorf(open, "unclosed %q", "[")
	}
	if s[v] == '\'' || s[v] == '"' {
		value, e, err := p.quoted(v)
		if err != nil {
			return segment{}, 0, err
		}
		if e == len(s) {
			return segment{}, 0, p.errorf(open, "unclosed %q", "[")
		}
		if s[e] != ']' {
			return segment{}, 0, p.errorf(e, "want %q after quoted value", "]")
		}
		return segment{kind: segMatch, key: field, value: value}, e + 1, nil
	}
	e := v
	for e < len(s) && s[e] != ']' {
		e++
	}
	if e == len(s) {
		return segment{}, 0, p.errorf(open, "unclosed %q", "[")
	}
	if e == v {
		return segment{}, 0, p.errorf(v, "empty value in selector")
	}
	return segment{kind: segMatch, key: field, value: s[v:e]}, e + 1, nil
}

// quoted parses the quoted string that starts at s[open] (a ' or ") and
// returns its value with the position just after the closing quote.
func (p *pathParser) quoted(open int) (string, int, error) {
	s := p.s
	q := s[open]
	var b strings.Builder
	for k := open + 1; k < len(s); {
		c := s[k]
		switch {
		case c == q:
			return b.String(), k + 1, nil
		case c == '\\':
			if k+1 == len(s) {
				return "", 0, p.errorf(open, "unterminated quote")
			}
			switch e := s[k+1]; e {
			case '\\', '\'', '"':
				b.WriteByte(e)
				k += 2
			case 'n':
				b.WriteByte('\n')
				k += 2
			case 'r':
				b.WriteByte('\r')
				k += 2
			case 't':
				b.WriteByte('\t')
				k += 2
			case 'u':
				if k+6 > len(s) {
					return "", 0, p.errorf(k, "invalid escape %q", s[k:])
				}
				n, err := strconv.ParseUint(s[k+2:k+6], 16, 32)
				if err != nil || !utf8.ValidRune(rune(n)) {
					return "", 0, p.errorf(k, "invalid escape %q", s[k:k+6])
				}
				b.WriteRune(rune(n))
				k += 6
			default:
				r, _ := utf8.DecodeRuneInString(s[k+1:])
				return "", 0, p.errorf(k, "invalid escape %q", `\`+string(r))
			}
		default:
			b.WriteByte(c)
			k++
		}
	}
	return "", 0, p.errorf(open, "unterminated quote")
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// String returns the path in the syntax ParsePath accepts, such that
// ParsePath(p.String()) returns a Path equal to p. Keys that are not plain
// words are written as ["..."] with control and bidirectional-override
// characters escaped, so the result is safe to print.
func (p Path) String() string {
	var b []byte
	for i, sg := range p.segs {
		switch sg.kind {
		case segKey:
			b = appendKeySegment(b, sg.key, i == 0)
		case segAnyKey:
			if i > 0 {
				b = append(b, '.')
			}
			b = append(b, '*')
		case segIndex:
			b = append(b, '[')
			b = strconv.AppendInt(b, int64(sg.index), 10)
			b = append(b, ']')
		case segAnyIndex:
			b = append(b, "[*]"...)
		case segMatch:
			b = appendSelector(b, sg.key, sg.value)
		}
	}
	return string(b)
}

// appendKeySegment appends a map key as a path segment: .key if it is a plain
// word (or key if it is the first segment), ["key"] otherwise.
func appendKeySegment(b []byte, key string, first bool) []byte {
	if isBareKey(key) {
		if !first {
			b = append(b, '.')
		}
		return append(b, key...)
	}
	b = append(b, '[')
	b = appendQuoted(b, key)
	return append(b, ']')
}

// appendSelector appends a [field=value] segment, quoting the field and the
// value unless they are plain words.
func appendSelector(b []byte, field, value string) []byte {
	b = append(b, '[')
	b = appendSelectorValue(b, field)
	b = append(b, '=')
	b = appendSelectorValue(b, value)
	return append(b, ']')
}

// appendSelectorValue appends the field or value of a [field=value]
// segment, quoted unless it is a plain word.
func appendSelectorValue(b []byte, v string) []byte {
	if isBareValue(v) {
		return append(b, v...)
	}
	return appendQuoted(b, v)
}

// isBareKey reports whether key can be written unquoted in a path.
func isBareKey(key string) bool {
	if key == "" || key == "*" {
		return false
	}
	for i := 0; i < len(key); i++ {
		if !isWordByte(key[i]) {
			return false
		}
	}
	return true
}

// isBareValue reports whether v can be written unquoted as a selector field or value.
func isBareValue(v string) bool {
	if v == "" {
		return false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; c != '.' && !isWordByte(c) {
			return false
		}
	}
	return true
}

func isWordByte(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	switch c {
	case '_', '-', '/', ':', '@', '+', '$':
		return true
	}
	return false
}

// matchesKey reports whether the segment matches the map key.
func (sg *segment) matchesKey(key string) bool {
	return sg.kind == segAnyKey || sg.kind == segKey && sg.key == key
}

// matchesElem reports whether the segment matches a list element: the element
// oldElem at oldIndex in the old list or newElem at newIndex in the new one (an
// index of -1 means that side is absent).
func (sg *segment) matchesElem(oldIndex, newIndex int, oldElem, newElem interface{}) bool {
	switch sg.kind {
	case segAnyKey, segAnyIndex:
		return true
	case segIndex:
		return oldIndex >= 0 && oldIndex == sg.index || newIndex >= 0 && newIndex == sg.index
	case segMatch:
		return oldIndex >= 0 && fieldEquals(oldElem, sg.key, sg.value) ||
			newIndex >= 0 && fieldEquals(newElem, sg.key, sg.value)
	}
	return false
}

// fieldEquals reports whether elem is a map whose field, a string or a number,
// is written as value.
func fieldEquals(elem interface{}, field, value string) bool {
	m, ok := elem.(map[string]interface{})
	if !ok {
		return false
	}
	switch v := m[field].(type) {
	case string:
		return v == value
	case nil, bool, map[string]interface{}, []interface{}:
		return false
	default:
		s, ok := formatKeyScalar(v)
		return ok && s == value
	}
}
