package query

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-informer/kubectl-informer/internal/testpods"
	"github.com/kubectl-informer/kubectl-informer/pkg/columns"
	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/printing"
)

// TestWatchOutputNameTheirContext prints changed objects of two contexts of
// a query -w in each object output: -o name prefixes the context, -o json
// and yaml print the List a query of several prints, of the one object,
// with its context in contexts (in a watch event with
// --output-watch-events), YAML documents separated over the contexts.
func TestWatchOutputNameTheirContext(t *testing.T) {
	pods := &engine.Type{Mapping: &meta.RESTMapping{
		Resource:         schema.GroupVersionResource{Version: "v1", Resource: "pods"},
		GroupVersionKind: schema.GroupVersionKind{Version: "v1", Kind: "Pod"},
	}}
	web, api := testpods.CPUPod("web-1", "web", "n1", "250m"), testpods.CPUPod("api-1", "api", "n2", "1")
	type doc struct {
		Type     string       `json:"type"`
		Kind     string       `json:"kind"`
		Contexts []string     `json:"contexts"`
		Items    []corev1.Pod `json:"items"`
		Object   *struct {
			Kind     string       `json:"kind"`
			Contexts []string     `json:"contexts"`
			Items    []corev1.Pod `json:"items"`
		} `json:"object"`
	}
	tests := []struct {
		name   string
		output string
		events bool
		check  func(t *testing.T, out string)
	}{
		{name: "name", output: "name", check: func(t *testing.T, out string) {
			if want := "prod-eu/pod/web-1\nprod-us/pod/api-1\n"; out != want {
				t.Errorf("-o name printed %q, want %q", out, want)
			}
		}},
		{name: "json", output: "json", check: func(t *testing.T, out string) {
			dec := json.NewDecoder(strings.NewReader(out))
			for _, want := range []string{"prod-eu/web-1", "prod-us/api-1"} {
				var d doc
				if err := dec.Decode(&d); err != nil {
					t.Fatalf("-o json: %v in %q", err, out)
				}
				if d.Kind != "List" || len(d.Items) != 1 || len(d.Contexts) != 1 || d.Contexts[0]+"/"+d.Items[0].Name != want {
					t.Errorf("-o json printed %+v, want the List of %s", d, want)
				}
			}
		}},
		{name: "yaml events", output: "yaml", events: true, check: func(t *testing.T, out string) {
			docs := strings.Split(out, "---\n")
			if len(docs) != 2 {
				t.Fatalf("-o yaml printed %d documents, want 2:\n%s", len(docs), out)
			}
			for i, want := range []string{"prod-eu/web-1", "prod-us/api-1"} {
				var d doc
				if err := yaml.Unmarshal([]byte(docs[i]), &d); err != nil {
					t.Fatal(err)
				}
				if d.Type != "MODIFIED" || d.Object == nil || d.Object.Kind != "List" || len(d.Object.Items) != 1 ||
					len(d.Object.Contexts) != 1 || d.Object.Contexts[0]+"/"+d.Object.Items[0].Name != want {
					t.Errorf("document %d is %s, want a MODIFIED event of the List of %s", i, docs[i], want)
				}
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := printing.ParseOutput(tt.output)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			shared := newWatchOutput(&buf, []string{"prod-eu", "prod-us"}, false, false, true)
			for _, c := range []struct {
				name string
				pod  *corev1.Pod
			}{{"prod-eu", web}, {"prod-us", api}} {
				w := &running{
					o:   &QueryOptions{queryWatchFlags: queryWatchFlags{OutputWatchEvents: tt.events}},
					cfg: queryPrintConfig{out: out},
				}
				rp := &rowPrinter{w: w, s: shared, name: c.name, tables: map[*engine.Type]columns.Table{}}
				if err := rp.print(t.Context(), pods, engine.Modified, c.pod); err != nil {
					t.Fatal(err)
				}
			}
			if err := shared.flush(); err != nil {
				t.Fatal(err)
			}
			tt.check(t, buf.String())
		})
	}
}
