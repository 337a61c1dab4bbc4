package index

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Operator is how a Selector compares the indexed values of an object with the selector's values.
// The operators are those of Kubernetes label selectors (k8s.io/apimachinery/pkg/labels), applied
// to the set of values an IndexFunc returns for an object.
type Operator string

const (
	// Equals selects the objects that have the selector's value among their indexed values:
	// NAME=VALUE or NAME==VALUE.
	Equals Operator = "="
	// NotEquals selects the objects that do not have the selector's value among their indexed
	// values, objects with no indexed value included: NAME!=VALUE.
	NotEquals Operator = "!="
	// In selects the objects that have any of the selector's values among their indexed values:
	// NAME in (V1,V2).
	In Operator = "in"
	// NotIn selects the objects that have none of the selector's values among their indexed
	// values, objects with no indexed value included: NAME notin (V1,V2).
	NotIn Operator = "notin"
	// Exists selects the objects that have at least one indexed value: NAME.
	Exists Operator = "exists"
	// DoesNotExist selects the objects that have no indexed value: !NAME.
	DoesNotExist Operator = "!"
)

// Selector is one selector from --index (query) or --where (watch): the objects whose indexed
// values under the index Name satisfy Operator with Values. Several selectors are ANDed.
type Selector struct {
	// Name is the index name, e.g. "node" or "label:app".
	Name string
	// Operator compares the object's indexed values with Values.
	Operator Operator
	// Values are the values to compare with: one for Equals and NotEquals, at least one, sorted
	// and distinct, for In and NotIn, none for Exists and DoesNotExist. A value may be empty.
	Values []string
}

// String returns the selector as the user writes it, so that ParseSelector gives back an equal
// Selector: "node=worker-1", "node!=", "image in (envoy:1.30,nginx:1.27)", "label:app", "!node".
// A value that starts with '=' is written after "==". Values of In and NotIn must not contain
// ',', '(' or ')' nor start or end with a space, since the grammar cannot write them.
func (s Selector) String() string {
	switch s.Operator {
	case Equals:
		v := first(s.Values)
		if strings.HasPrefix(v, "=") {
			return s.Name + "==" + v
		}
		return s.Name + "=" + v
	case NotEquals:
		return s.Name + "!=" + first(s.Values)
	case In, NotIn:
		return s.Name + " " + string(s.Operator) + " (" + strings.Join(s.Values, ",") + ")"
	case Exists:
		return s.Name
	case DoesNotExist:
		return "!" + s.Name
	default:
		return s.Name + " " + string(s.Operator) + " (" + strings.Join(s.Values, ",") + ")"
	}
}

// first returns values[0], or "" when values is empty.
func first(values []string) string {
	if len(values) == 0 {
		return ""
	}
	return values[0]
}

// Matches reports whether an object whose indexed values under s.Name are values is selected by
// s. Equals and In select values that share at least one value with s.Values; NotEquals and
// NotIn select values that share none, so an object with no value is selected; Exists selects
// non-empty values and DoesNotExist empty ones. An unknown Operator selects nothing.
//
// Matches is what `watch --where` applies to each object, with values from [Values].
func (s Selector) Matches(values []string) bool {
	switch s.Operator {
	case Equals, In:
		return sharesValue(values, s.Values)
	case NotEquals, NotIn:
		return !sharesValue(values, s.Values)
	case Exists:
		return len(values) > 0
	case DoesNotExist:
		return len(values) == 0
	default:
		return false
	}
}

// sharesValue reports whether a and b have a value in common. Both are short.
func sharesValue(a, b []string) bool {
	for _, v := range a {
		if slices.Contains(b, v) {
			return true
		}
	}
	return false
}

// selectorSyntax is the grammar, for errors that do not know what the user meant.
const selectorSyntax = "want NAME=VALUE, NAME!=VALUE, 'NAME in (V1,V2)', 'NAME notin (V1,V2)', NAME or '!NAME'"

// ParseSelector parses one selector in the grammar of Kubernetes label selectors, without its
// commas (give several selectors as several flags):
//
//	NAME=VALUE  NAME==VALUE    objects with VALUE among their indexed values
//	NAME!=VALUE                objects without VALUE, objects with no value included
//	NAME in (V1,V2,...)        objects with any of the values
//	NAME notin (V1,V2,...)     objects with none of the values, objects with no value included
//	NAME                       objects with at least one indexed value
//	!NAME                      objects with no indexed value
//
// NAME is made of letters, digits and ".-_/:", as every index name is ("label:app",
// "annotation:example.com/team", "owner-uid"); whether it is a known index is for Set.Lookup to
// say. Spaces may surround NAME and the operators.
//
// After '=', '==' or '!=', VALUE is the rest of s, verbatim: it may contain '=', ',', spaces or
// parentheses, and may be empty. In particular the node index gives every unscheduled pod the
// value "", so `--index node=` finds pending pods and `--index node!=` scheduled ones; note that
// "" is a value, so `--index node` selects every pod.
//
// Inside parentheses the values are separated by ',' and trimmed of spaces; they may not contain
// '(' or ')'. As in label selectors, "()" is the set of the one empty value. The values are
// sorted and duplicates dropped.
//
// flag names the flag s came from, with or without its leading dashes ("--index" or "index").
// Errors give the flag, s, and the 1-based column of the problem:
// `--index "node in (a": missing ")" at column 11`.
func ParseSelector(flag, s string) (Selector, error) {
	p := selectorParser{s: s}
	sel, err := p.parse()
	if err != nil {
		return Selector{}, fmt.Errorf("%s %q: %w", flagName(flag), s, err)
	}
	return sel, nil
}

// selectorParser reads one selector from s; pos is the byte offset of the next unread byte.
type selectorParser struct {
	s   string
	pos int
}

func (p *selectorParser) parse() (Selector, error) {
	p.skipSpaces()
	if p.eof() {
		return Selector{}, fmt.Errorf("missing index name; %s", selectorSyntax)
	}
	if p.s[p.pos] == '!' && !strings.HasPrefix(p.s[p.pos:], "!=") {
		p.pos++
		p.skipSpaces()
		name, err := p.name(`after "!"`)
		if err != nil {
			return Selector{}, err
		}
		if err := p.end(`after "!` + name + `"`); err != nil {
			return Selector{}, err
		}
		return Selector{Name: name, Operator: DoesNotExist}, nil
	}
	name, err := p.name("")
	if err != nil {
		return Selector{}, err
	}
	afterName := p.pos
	p.skipSpaces()
	if p.eof() {
		return Selector{Name: name, Operator: Exists}, nil
	}
	rest := p.s[p.pos:]
	switch {
	case strings.HasPrefix(rest, "=="):
		return Selector{Name: name, Operator: Equals, Values: []string{rest[2:]}}, nil
	case strings.HasPrefix(rest, "="):
		return Selector{Name: name, Operator: Equals, Values: []string{rest[1:]}}, nil
	case strings.HasPrefix(rest, "!="):
		return Selector{Name: name, Operator: NotEquals, Values: []string{rest[2:]}}, nil
	}
	if p.pos == afterName {
		return Selector{}, fmt.Errorf("unexpected %q at column %d; %s", p.next(), p.column(), selectorSyntax)
	}
	wordAt := p.column()
	word := p.word()
	op := Operator(word)
	if op != In && op != NotIn {
		return Selector{}, fmt.Errorf("want =, ==, !=, in or notin after %q at column %d, got %q",
			name, wordAt, p.s[wordAt-1:])
	}
	values, err := p.set(word)
	if err != nil {
		return Selector{}, err
	}
	return Selector{Name: name, Operator: op, Values: values}, nil
}

// set reads "(V1,V2,...)" and what follows it, after the operator word.
func (p *selectorParser) set(word string) ([]string, error) {
	p.skipSpaces()
	if p.eof() || p.s[p.pos] != '(' {
		return nil, fmt.Errorf(`want "(" after %q at column %d`, word, p.column())
	}
	p.pos++
	inner, _, closed := strings.Cut(p.s[p.pos:], ")")
	if i := strings.IndexByte(inner, '('); i >= 0 {
		p.pos += i
		return nil, fmt.Errorf(`unexpected "(" at column %d; values in parentheses cannot contain "(" or ")"`,
			p.column())
	}
	if !closed {
		p.pos = len(p.s)
		return nil, fmt.Errorf(`missing ")" at column %d`, p.column())
	}
	p.pos += len(inner) + 1
	if err := p.end(`after ")"`); err != nil {
		return nil, err
	}
	values := strings.Split(inner, ",")
	for i, v := range values {
		values[i] = strings.TrimSpace(v)
	}
	slices.Sort(values)
	return slices.Compact(values), nil
}

// name reads an index name; where says where it was expected, for the error.
func (p *selectorParser) name(where string) (string, error) {
	start := p.pos
	for !p.eof() && isNameByte(p.s[p.pos]) {
		p.pos++
	}
	if p.pos == start {
		if where != "" {
			where = " " + where
		}
		if p.eof() {
			return "", fmt.Errorf("missing index name%s at column %d", where, p.column())
		}
		return "", fmt.Errorf("want an index name%s at column %d, got %q; %s", where, p.column(), p.next(),
			selectorSyntax)
	}
	return p.s[start:p.pos], nil
}

// word reads a run of name bytes, such as an operator word.
func (p *selectorParser) word() string {
	start := p.pos
	for !p.eof() && isNameByte(p.s[p.pos]) {
		p.pos++
	}
	return p.s[start:p.pos]
}

// end checks that only spaces are left; where says what came before, for the error.
func (p *selectorParser) end(where string) error {
	p.skipSpaces()
	if !p.eof() {
		return fmt.Errorf("unexpected %q %s at column %d", p.s[p.pos:], where, p.column())
	}
	return nil
}

// next returns the character at pos, or its byte when it is not valid UTF-8; "" at the end.
func (p *selectorParser) next() string {
	_, size := utf8.DecodeRuneInString(p.s[p.pos:])
	return p.s[p.pos : p.pos+size]
}

func (p *selectorParser) skipSpaces() {
	for !p.eof() && isSpace(p.s[p.pos]) {
		p.pos++
	}
}

func (p *selectorParser) eof() bool   { return p.pos >= len(p.s) }
func (p *selectorParser) column() int { return p.pos + 1 }

// isNameByte reports whether b may be part of an index name.
func isNameByte(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' ||
		b == '.' || b == '-' || b == '_' || b == '/' || b == ':'
}

// isSpace reports whether b is ASCII white space.
func isSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\v' || b == '\f'
}

// flagName returns flag with its leading dashes, "--index" for "index".
func flagName(flag string) string {
	switch {
	case flag == "":
		return "flag"
	case strings.HasPrefix(flag, "-"):
		return flag
	default:
		return "--" + flag
	}
}
