package terminal

import "testing"

func TestSanitizeText(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"web-7d4b9c8f6d-x2x9p", "web-7d4b9c8f6d-x2x9p"},
		{"", ""},
		{"ünïcödé 日本 🚀", "ünïcödé 日本 🚀"},
		{`back\slash "quotes"`, `back\slash "quotes"`},
		{"\x1b[31mred\x1b[0m", `\u001b[31mred\u001b[0m`},
		{"a\nb\tc\rd", `a\nb\tc\rd`},
		{"nul\x00del\x7f", `nul\u0000del\u007f`},
		{"c1\u0085\u009b", `c1\u0085\u009b`},
		{"bidi\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069", `bidi\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069`},
		{"marks\u200e\u200f\u061c", `marks\u200e\u200f\u061c`},
		{"sep\u2028\u2029", `sep\u2028\u2029`},
		{"bad\xff\xc3", `bad\xff\xc3`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := SanitizeText(tt.in); got != tt.want {
				t.Errorf("SanitizeText(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestSanitizeTextDoesNotAllocate(t *testing.T) {
	s := "metadata.labels.app.kubernetes.io/name=web"
	if n := testing.AllocsPerRun(100, func() { SanitizeText(s) }); n != 0 {
		t.Errorf("SanitizeText(%q) allocates %v times, want 0", s, n)
	}
}
