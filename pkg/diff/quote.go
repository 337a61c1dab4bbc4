package diff

import (
	"unicode/utf8"

	"github.com/kubectl-informer/kubectl-informer/pkg/terminal"
)

// appendQuoted appends s as a JSON string: quoted, with " and \ escaped, the
// characters terminal.NeedsEscape rejects escaped, and invalid UTF-8 replaced by
// \ufffd. The result is valid JSON and safe to print.
func appendQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	b = appendQuotedBody(b, s)
	return append(b, '"')
}

// appendQuotedBody is appendQuoted without the surrounding quotes.
func appendQuotedBody(b []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < utf8.RuneSelf && c != 0x7f && c != '"' && c != '\\' {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		invalid := r == utf8.RuneError && size == 1
		if c != '"' && c != '\\' && !invalid && !terminal.NeedsEscape(r) {
			i += size
			continue
		}
		b = append(b, s[start:i]...)
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case invalid:
			b = append(b, `\ufffd`...)
		default:
			b = terminal.AppendEscape(b, r)
		}
		i += size
		start = i
	}
	return append(b, s[start:]...)
}
