package plugin

import (
	"bytes"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
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
	if err := printing.PrintList(&buf, out.Printer, out.Format, []interface{}{cm}); err != nil {
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

// TestWatchReorderOnly checks that an update that only reorders a named
// list prints nothing in text (pkg/diff matches such lists by name) but is
// an event in -o json and yaml, whose patches work by index: otherwise the
// next event's patch would not apply to the object printed before it.
func TestWatchReorderOnly(t *testing.T) {
	deployments := &engine.Type{Mapping: &meta.RESTMapping{
		Resource:         schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"},
		GroupVersionKind: schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"},
		Scope:            meta.RESTScopeNamespace,
	}}
	deployment := func(rv string, containers ...string) *unstructured.Unstructured {
		var list []interface{}
		for _, c := range containers {
			list = append(list, map[string]interface{}{"name": c, "image": c + ":v1"})
		}
		return &unstructured.Unstructured{Object: map[string]interface{}{
			"apiVersion": "apps/v1",
			"kind":       "Deployment",
			"metadata":   map[string]interface{}{"name": "web", "namespace": "shop", "resourceVersion": rv},
			"spec":       map[string]interface{}{"template": map[string]interface{}{"spec": map[string]interface{}{"containers": list}}},
		}}
	}
	old, reordered := deployment("1", "main", "sidecar"), deployment("2", "sidecar", "main")
	tests := []struct {
		output, diffMode string
		want             string // a substring of the output; "" means no output
	}{
		{"text", "compact", ""},
		{"text", "unified", ""},
		{"name", "compact", ""},
		{"json", "compact", `"patch":[{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"sidecar:v1"}`},
		{"yaml", "compact", "path: /spec/template/spec/containers/0/image"},
	}
	for _, tt := range tests {
		t.Run(tt.output+"-"+tt.diffMode, func(t *testing.T) {
			var buf bytes.Buffer
			p := testPrinter(t, &buf, tt.output, tt.diffMode)
			shown, err := p.handle(&engine.Event{Type: engine.Modified, Resource: deployments, Old: old, New: reordered, Key: "shop/web"})
			if err != nil {
				t.Fatalf("handle: %v", err)
			}
			if err := p.out.Flush(); err != nil {
				t.Fatal(err)
			}
			got := buf.String()
			if shown != (tt.want != "") || tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
				t.Errorf("watch -o %s --diff %s of a reorder: shown %v, output %q, want %q", tt.output, tt.diffMode, shown, got, tt.want)
			}
		})
	}
}
