package terminal

import (
	"encoding/json"
	"reflect"
	"testing"
)

// yamlHostile are strings sigs.k8s.io/yaml.Marshal refuses ("control
// characters are not allowed") or must escape.
var yamlHostile = []string{
	"del\x7f",
	"c1\u0080\u0085\u009b\u009f",
	"nonchar\ufffe\uffff",
	"c0 \x00\x07\x1b[2J\r\t\n",
	"bidi \u202e\u2066 ls\u2028ps\u2029 bom\ufeff",
	"plain ünïcödé 日本語 🙂",
}

func TestEscapeForYAMLKeepsTheJSONValue(t *testing.T) {
	for _, s := range yamlHostile {
		j, err := json.Marshal(map[string]string{s: s})
		if err != nil {
			t.Fatal(err)
		}
		var back map[string]string
		if err := json.Unmarshal([]byte(EscapeForYAML(string(j))), &back); err != nil {
			t.Fatalf("escapeForYAML(%s) is not JSON: %v", j, err)
		}
		if !reflect.DeepEqual(back, map[string]string{s: s}) {
			t.Errorf("escapeForYAML(%s) decodes to %q", j, back)
		}
	}
}

func TestEscapeForYAML(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"plain ünïcödé", "plain ünïcödé"},
		{"del\x7f", `del\u007f`},
		{"nel\u0085 ls\u2028 bom\ufeff \uffff", `nel\u0085 ls\u2028 bom\ufeff \uffff`},
		{"bad\xff alone", "bad\xff alone"},
		{"bad\xff\u0085", "bad\ufffd\\u0085"},
	}
	for _, tt := range tests {
		if got := EscapeForYAML(tt.in); got != tt.want {
			t.Errorf("EscapeForYAML(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
