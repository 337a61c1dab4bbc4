package plugin

import (
	"bytes"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/printing"
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

func TestMarshalYAMLControlCharacters(t *testing.T) {
	for _, s := range yamlHostile {
		t.Run(strings.ToValidUTF8(s[:4], ""), func(t *testing.T) {
			obj := map[string]interface{}{"data": map[string]interface{}{"value": s}, "count": int64(3)}
			b, err := printing.MarshalYAML(obj)
			if err != nil {
				t.Fatalf("marshalYAML(%q): %v", s, err)
			}
			var back map[string]interface{}
			if err := yaml.Unmarshal(b, &back); err != nil {
				t.Fatalf("marshalYAML(%q) = %q, which does not parse: %v", s, b, err)
			}
			if got := back["data"].(map[string]interface{})["value"]; got != s {
				t.Errorf("marshalYAML(%q) = %q, which parses to %q", s, b, got)
			}
			if strings.ContainsFunc(string(b), func(r rune) bool { return r == 0x7f || r >= 0x80 && r <= 0x9f }) {
				t.Errorf("marshalYAML(%q) = %q, with raw DEL or C1 characters", s, b)
			}
			if !strings.Contains(string(b), "count: 3\n") {
				t.Errorf("marshalYAML kept the integer as %q, want count: 3", b)
			}
		})
	}
}

// TestQueryYAMLControlCharacters prints a ConfigMap with a DEL and a C1
// control as query -o yaml does: the cli-runtime YAML printer (and kubectl
// -o yaml) fails on it.
func TestQueryYAMLControlCharacters(t *testing.T) {
	out, err := printing.ParseOutput("yaml")
	if err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: "hostile", Namespace: "shop"},
		Data:       map[string]string{"value": "a\x7fb\u009bc"},
	}
	var buf bytes.Buffer
	printed := printing.ContextList{One: true}
	printed.Add("", cm)
	if err := printed.Write(&buf, out.Format, out.Printer); err != nil {
		t.Fatalf("printList -o yaml: %v", err)
	}
	var list struct {
		Kind  string             `json:"kind"`
		Items []corev1.ConfigMap `json:"items"`
	}
	if err := yaml.Unmarshal(buf.Bytes(), &list); err != nil {
		t.Fatalf("printList -o yaml printed %q, which does not parse: %v", buf.String(), err)
	}
	if list.Kind != "List" || len(list.Items) != 1 || list.Items[0].Data["value"] != cm.Data["value"] {
		t.Errorf("printList -o yaml printed %q, want a List with the ConfigMap", buf.String())
	}
}
