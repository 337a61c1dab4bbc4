package diff

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestWriteCompact(t *testing.T) {
	big := strings.Repeat("a", 1<<20)
	bigMap := map[string]interface{}{"k": strings.Repeat("x", 300), "a": []interface{}{int64(1), 2.5, nil, true}}
	bigMapJSON, err := json.Marshal(bigMap)
	if err != nil {
		t.Fatalf("encoding bigMap: %v", err)
	}
	tests := []struct {
		name    string
		changes []Change
		indent  string
		color   bool
		want    string
	}{
		{
			name: "none",
		},
		{
			name:   "each op",
			indent: "  ",
			changes: []Change{
				{Path: "spec.replicas", Op: Modified, Old: int64(2), New: int64(3)},
				{Path: "metadata.labels.tier", Op: Added, New: "web"},
				{Path: `metadata.annotations["note"]`, Op: Removed, Old: "x"},
				{Path: "data.password", Op: Modified, Redacted: true},
				{Path: "data.token", Op: Added, Redacted: true},
				{Path: "spec.template", Op: Added, New: map[string]interface{}{"b": []interface{}{int64(1), "two", nil}, "a": map[string]interface{}{}}},
				{Path: "a", Op: Removed},
				{Path: "f", Op: Modified, Old: 1.5, New: 1e21},
				{Path: "g", Op: Modified, Old: 0.000001, New: 1e-7},
				{Path: "b", Op: Modified, Old: true, New: false},
				{Path: "html", Op: Added, New: "<a href=\"x\">&</a>"},
			},
			want: `  ~ spec.replicas: 2 → 3
  + metadata.labels.tier: "web"
  - metadata.annotations["note"]: "x"
  ~ data.password: (hidden)
  + data.token: (hidden)
  + spec.template: {"a":{},"b":[1,"two",null]}
  - a: null
  ~ f: 1.5 → 1e+21
  ~ g: 0.000001 → 1e-7
  ~ b: true → false
  + html: "<a href=\"x\">&</a>"
`,
		},
		{
			name:  "color",
			color: true,
			changes: []Change{
				{Path: "a", Op: Added, New: int64(1)},
				{Path: "b", Op: Removed, Old: int64(1)},
				{Path: "c", Op: Modified, Old: int64(1), New: int64(2)},
			},
			want: "\x1b[32m+ a: 1\x1b[0m\n\x1b[31m- b: 1\x1b[0m\n\x1b[33m~ c: 1 → 2\x1b[0m\n",
		},
		{
			name: "control characters and bidi overrides escaped",
			changes: []Change{
				{Path: "data.motd", Op: Modified, Old: "\x1b[31mred\x1b[0m", New: "a\u202eb\u2066c\x00d\u0085e\x7ff\n\t"},
				{Path: "metadata.labels[\"x\x1b[2J\"]", Op: Added, New: map[string]interface{}{"k\u202e": "\u009b"}},
				{Path: "bad", Op: Added, New: "\xff\xfe"},
			},
			want: `~ data.motd: "\u001b[31mred\u001b[0m" → "a\u202eb\u2066c\u0000d\u0085e\u007ff\n\t"
+ metadata.labels["x\u001b[2J"]: {"k\u202e":"\u009b"}
+ bad: "\ufffd\ufffd"
`,
		},
		{
			name: "long string truncated",
			changes: []Change{
				{Path: "data.big", Op: Modified, Old: big, New: "small"},
			},
			want: `~ data.big: "` + strings.Repeat("a", 199) + `… (1048576 bytes) → "small"` + "\n",
		},
		{
			name: "truncation does not split runes or escapes",
			changes: []Change{
				{Path: "a", Op: Added, New: strings.Repeat("é", 150)},
				{Path: "b", Op: Added, New: strings.Repeat("\x1b", 100)},
			},
			want: `+ a: "` + strings.Repeat("é", 99) + `… (300 bytes)` + "\n" +
				`+ b: "` + strings.Repeat(`\u001b`, 33) + `… (100 bytes)` + "\n",
		},
		{
			name: "long subtree truncated",
			changes: []Change{
				{Path: "data", Op: Removed, Old: bigMap},
			},
			want: "- data: " + string(bigMapJSON[:200]) + "… (" + itoa(len(bigMapJSON)) + " bytes)\n",
		},
		{
			name: "value of exactly the limit is kept",
			changes: []Change{
				{Path: "a", Op: Added, New: strings.Repeat("z", 198)},
			},
			want: `+ a: "` + strings.Repeat("z", 198) + `"` + "\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			if err := WriteCompact(&b, tt.changes, tt.indent, tt.color); err != nil {
				t.Fatalf("WriteCompact() = %v, want nil", err)
			}
			if got := b.String(); got != tt.want {
				t.Errorf("WriteCompact() =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriteCompactError(t *testing.T) {
	err := WriteCompact(failingWriter{}, []Change{{Path: "a", Op: Added, New: "x"}}, "", false)
	if want := "writing changes: disk full"; err == nil || err.Error() != want {
		t.Errorf("WriteCompact(failing writer) = %v, want %s", err, want)
	}
}
