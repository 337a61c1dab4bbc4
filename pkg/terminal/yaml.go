package terminal

import "unicode/utf8"

// yamlRejects reports whether r must not reach the YAML reader and writer
// that sigs.k8s.io/yaml runs on the JSON encoding of an object: DEL and the
// C1 controls (which the reader refuses, or as NEL reads as a line break),
// U+FEFF, U+FFFE and U+FFFF (refused), and the line and paragraph separators
// (line breaks to YAML). encoding/json already escapes the C0 controls and,
// in its output, U+2028 and U+2029.
func yamlRejects(r rune) bool {
	return r >= 0x7f && r <= 0x9f || r == 0x2028 || r == 0x2029 || r == 0xfeff || r == 0xfffe || r == 0xffff
}

// EscapeForYAML returns s with every character sigs.k8s.io/yaml must not see
// raw written as a \uXXXX escape, and, if it escapes any, the bytes that are
// not valid UTF-8 replaced by U+FFFD, as encoding/json replaces them. The
// result is longer than s exactly when it differs, and is s itself when
// nothing needs escaping. What the escape means depends on what s is:
//
//   - JSON text, as yaml.JSONToYAML reads it: these characters occur in JSON
//     only inside strings, where the escape keeps the character's value, so
//     the YAML holds the same value (kubernetes/kubectl#774).
//   - a string value that is about to be marshalled: the escape is six
//     characters of text that show the character but do not carry it, which
//     suits a diff that is read, not applied.
func EscapeForYAML(s string) string {
	for _, r := range s {
		if yamlRejects(r) {
			return string(appendEscapedForYAML(make([]byte, 0, len(s)+16), s))
		}
	}
	return s
}

func appendEscapedForYAML(b []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); {
		if s[i] < 0x7f {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case yamlRejects(r):
			b = append(b, s[start:i]...)
			b = AppendEscape(b, r)
			start = i + size
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = utf8.AppendRune(b, utf8.RuneError)
			start = i + size
		}
		i += size
	}
	return append(b, s[start:]...)
}
