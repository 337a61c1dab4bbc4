package diff

import (
	"reflect"
	"testing"
)

func TestParsePath(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string // String() of the result
		segs []segment
	}{
		{
			name: "keys",
			in:   "metadata.labels",
			want: "metadata.labels",
			segs: []segment{{kind: segKey, key: "metadata"}, {kind: segKey, key: "labels"}},
		},
		{
			name: "quoted key with dots",
			in:   "metadata.labels['app.kubernetes.io/name']",
			want: `metadata.labels["app.kubernetes.io/name"]`,
			segs: []segment{{kind: segKey, key: "metadata"}, {kind: segKey, key: "labels"}, {kind: segKey, key: "app.kubernetes.io/name"}},
		},
		{
			name: "double-quoted key with escapes",
			in:   `a["q\"\\'\n\t\r\u001b\u202e"]`,
			want: `a["q\"\\'\n\t\r\u001b\u202e"]`,
			segs: []segment{{kind: segKey, key: "a"}, {kind: segKey, key: "q\"\\'\n\t\r\x1b\u202e"}},
		},
		{
			name: "single-quoted key with a quote",
			in:   `a['it\'s']`,
			want: `a["it's"]`,
			segs: []segment{{kind: segKey, key: "a"}, {kind: segKey, key: "it's"}},
		},
		{
			name: "quoted plain key prints bare",
			in:   "['spec']['replicas']",
			want: "spec.replicas",
			segs: []segment{{kind: segKey, key: "spec"}, {kind: segKey, key: "replicas"}},
		},
		{
			name: "empty and star keys",
			in:   `a[''].b['*']`,
			want: `a[""].b["*"]`,
			segs: []segment{{kind: segKey, key: "a"}, {kind: segKey, key: ""}, {kind: segKey, key: "b"}, {kind: segKey, key: "*"}},
		},
		{
			name: "key wildcard",
			in:   "metadata.*.app",
			want: "metadata.*.app",
			segs: []segment{{kind: segKey, key: "metadata"}, {kind: segAnyKey}, {kind: segKey, key: "app"}},
		},
		{
			name: "key with space",
			in:   "with space.x",
			want: `["with space"].x`,
			segs: []segment{{kind: segKey, key: "with space"}, {kind: segKey, key: "x"}},
		},
		{
			name: "every element",
			in:   "spec.containers[*].image",
			want: "spec.containers[*].image",
			segs: []segment{{kind: segKey, key: "spec"}, {kind: segKey, key: "containers"}, {kind: segAnyIndex}, {kind: segKey, key: "image"}},
		},
		{
			name: "every element, empty brackets",
			in:   "spec.containers[].image",
			want: "spec.containers[*].image",
			segs: []segment{{kind: segKey, key: "spec"}, {kind: segKey, key: "containers"}, {kind: segAnyIndex}, {kind: segKey, key: "image"}},
		},
		{
			name: "index",
			in:   "args[007][3]",
			want: "args[7][3]",
			segs: []segment{{kind: segKey, key: "args"}, {kind: segIndex, index: 7}, {kind: segIndex, index: 3}},
		},
		{
			name: "element by name",
			in:   "spec.containers[name=web].image",
			want: "spec.containers[name=web].image",
			segs: []segment{{kind: segKey, key: "spec"}, {kind: segKey, key: "containers"}, {kind: segMatch, key: "name", value: "web"}, {kind: segKey, key: "image"}},
		},
		{
			name: "element by type with a dotted value",
			in:   "status.conditions[type=example.com/Ready].status",
			want: "status.conditions[type=example.com/Ready].status",
			segs: []segment{{kind: segKey, key: "status"}, {kind: segKey, key: "conditions"}, {kind: segMatch, key: "type", value: "example.com/Ready"}, {kind: segKey, key: "status"}},
		},
		{
			name: "element by quoted value",
			in:   `env[name=' x]']`,
			want: `env[name=" x]"]`,
			segs: []segment{{kind: segKey, key: "env"}, {kind: segMatch, key: "name", value: " x]"}},
		},
		{
			name: "element by empty quoted value",
			in:   `env[name=""]`,
			want: `env[name=""]`,
			segs: []segment{{kind: segKey, key: "env"}, {kind: segMatch, key: "name", value: ""}},
		},
		{
			name: "field with odd characters",
			in:   "a[x[y=z]",
			want: `a["x[y"=z]`,
			segs: []segment{{kind: segKey, key: "a"}, {kind: segMatch, key: "x[y", value: "z"}},
		},
		{
			name: "quoted field",
			in:   `a['x=y'=z]['f\u001b'=v][""=w]`,
			want: `a["x=y"=z]["f\u001b"=v][""=w]`,
			segs: []segment{{kind: segKey, key: "a"}, {kind: segMatch, key: "x=y", value: "z"}, {kind: segMatch, key: "f\x1b", value: "v"}, {kind: segMatch, key: "", value: "w"}},
		},
		{
			name: "leading bracket",
			in:   "[0].a",
			want: "[0].a",
			segs: []segment{{kind: segIndex, index: 0}, {kind: segKey, key: "a"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ParsePath(tt.in)
			if err != nil {
				t.Fatalf("ParsePath(%q) = %v, want nil", tt.in, err)
			}
			if !reflect.DeepEqual(p.segs, tt.segs) {
				t.Errorf("ParsePath(%q) = %#v, want %#v", tt.in, p.segs, tt.segs)
			}
			if got := p.String(); got != tt.want {
				t.Errorf("ParsePath(%q).String() = %q, want %q", tt.in, got, tt.want)
			}
			again, err := ParsePath(p.String())
			if err != nil || !reflect.DeepEqual(again, p) {
				t.Errorf("ParsePath(%q) = %#v, %v, want %#v, nil", p.String(), again, err, p)
			}
		})
	}
}

func TestParsePathErrors(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"", `invalid path "": empty path`},
		{"spec..x", `invalid path "spec..x": empty segment at 6`},
		{".spec", `invalid path ".spec": empty segment at 1`},
		{"spec.", `invalid path "spec.": empty segment at 6`},
		{"a.[0]", `invalid path "a.[0]": empty segment at 3`},
		{"a[0", `invalid path "a[0": unclosed "[" at 2`},
		{"a[", `invalid path "a[": unclosed "[" at 2`},
		{"a['b'", `invalid path "a['b'": unclosed "[" at 2`},
		{"a[name=x", `invalid path "a[name=x": unclosed "[" at 2`},
		{"a[name=", `invalid path "a[name=": unclosed "[" at 2`},
		{"a['b", `invalid path "a['b": unterminated quote at 3`},
		{`a['b\`, `invalid path "a['b\\": unterminated quote at 3`},
		{"a['b'x]", `invalid path "a['b'x]": want "]" or "=" after quoted key at 6`},
		{"a[name='x'y]", `invalid path "a[name='x'y]": want "]" after quoted value at 11`},
		{"a[-1]", `invalid path "a[-1]": invalid list selector "-1" (want [N], [*], [field=value] or a quoted key) at 3`},
		{"a[1234567890]", `invalid path "a[1234567890]": index 1234567890 out of range at 3`},
		{"a[=x]", `invalid path "a[=x]": empty field in selector at 3`},
		{"a[name=]", `invalid path "a[name=]": empty value in selector at 8`},
		{"a[0]b", `invalid path "a[0]b": unexpected "b" after "]" at 5`},
		{"a]b", `invalid path "a]b": unexpected "]" at 2`},
		{`a['\q']`, `invalid path "a['\\q']": invalid escape "\\q" at 4`},
		{`a['\ud800']`, `invalid path "a['\\ud800']": invalid escape "\\ud800" at 4`},
		{`a['\u12`, `invalid path "a['\\u12": invalid escape "\\u12" at 4`},
		{"a.\xff", `invalid path "a.\xff": invalid UTF-8 at 3`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			_, err := ParsePath(tt.in)
			if err == nil || err.Error() != tt.want {
				t.Errorf("ParsePath(%q) = %v, want %s", tt.in, err, tt.want)
			}
		})
	}
}

func TestPathStringZero(t *testing.T) {
	if got := (Path{}).String(); got != "" {
		t.Errorf("Path{}.String() = %q, want %q", got, "")
	}
}
