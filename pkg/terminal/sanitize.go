package terminal

import (
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// NeedsEscape reports whether r must not reach a terminal as is: C0 and C1
// control characters, DEL, the line and paragraph separators, and the
// bidirectional marks, embeddings, overrides and isolates that can make text
// display in a different order than it is stored ("Trojan Source").
func NeedsEscape(r rune) bool {
	switch {
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	case r < 0x61c:
		return false
	case r == 0x61c, r == 0x200e, r == 0x200f,
		r >= 0x2028 && r <= 0x202e,
		r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// SanitizeText returns s made safe to print on a terminal: control characters
// (C0, DEL, C1), the Unicode line and paragraph separators and bidirectional
// formatting characters (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069)
// are replaced by escapes such as \n, \t, \u001b or \u202e, and bytes that are
// not valid UTF-8 by \xff-style escapes. Everything else, backslashes
// included, is kept, so the common case returns s itself without allocating.
// Use it for names, label values and other cluster data printed outside JSON.
func SanitizeText(s string) string {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				return string(AppendSanitized(make([]byte, 0, len(s)+8), s))
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || NeedsEscape(r) {
			return string(AppendSanitized(make([]byte, 0, len(s)+8), s))
		}
		i += size
	}
	return s
}

// AppendSanitized appends s to b with the escapes SanitizeText makes.
func AppendSanitized(b []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < utf8.RuneSelf && c != 0x7f {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		invalid := r == utf8.RuneError && size == 1
		if !invalid && !NeedsEscape(r) {
			i += size
			continue
		}
		b = append(b, s[start:i]...)
		if invalid {
			b = append(b, '\\', 'x', hexDigits[c>>4], hexDigits[c&0xf])
		} else {
			b = AppendEscape(b, r)
		}
		i += size
		start = i
	}
	return append(b, s[start:]...)
}

// AppendEscape appends the escape for r, a rune of the Basic Multilingual
// Plane: \n, \r and \t, or \uXXXX.
func AppendEscape(b []byte, r rune) []byte {
	switch r {
	case '\n':
		return append(b, '\\', 'n')
	case '\r':
		return append(b, '\\', 'r')
	case '\t':
		return append(b, '\\', 't')
	}
	return append(b, '\\', 'u', hexDigits[r>>12&0xf], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
}
