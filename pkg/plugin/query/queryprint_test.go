package query

import (
	"bytes"
	"reflect"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-informer/kubectl-informer/internal/testpods"
	"github.com/kubectl-informer/kubectl-informer/pkg/columns"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/printing"
	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/protocol"
)

// TestAnswerPrinterKeepsTheEngineOrder checks that the printer prints objects
// in the order the engine returns them, and reorders them only for
// --sort-by: the answer is sorted once, by engine.Type.Lookup (the API
// server's order, team-a before team). The objects here come in an order no
// sort would give, so that any sort in the printer shows.
func TestAnswerPrinterKeepsTheEngineOrder(t *testing.T) {
	pod := func(ns, name, node string) *corev1.Pod {
		return &corev1.Pod{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec:       corev1.PodSpec{NodeName: node},
		}
	}
	engineOrder := []interface{}{pod("team", "web", "node-0"), pod("team-a", "web", "node-2"), pod("team", "api", "node-1")}
	tests := []struct {
		name   string
		output string
		sortBy string
		want   string
	}{
		{"-o name", "name", "", "pod/web\npod/web\npod/api\n"},
		{"custom columns", "custom-columns=NS:.metadata.namespace,NAME:.metadata.name", "", "NS       NAME\nteam     web\nteam-a   web\nteam     api\n"},
		{"--sort-by", "custom-columns=NS:.metadata.namespace,NODE:.spec.nodeName", "{.spec.nodeName}", "NS       NODE\nteam     node-0\nteam     node-1\nteam-a   node-2\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := printing.ParseOutput(tt.output)
			if err != nil {
				t.Fatal(err)
			}
			cfg := queryPrintConfig{out: out, sortBy: tt.sortBy}
			if tt.sortBy != "" {
				set, err := index.NewSet()
				if err != nil {
					t.Fatal(err)
				}
				if cfg.sortIndex, cfg.sortKey, err = parseSortBy(set, tt.sortBy); err != nil {
					t.Fatal(err)
				}
			}
			objs := append([]interface{}(nil), engineOrder...)
			var stdout, stderr bytes.Buffer
			a := &targetAnswer{cfg: cfg, groups: []typeObjects{{t: answerTypeOf(schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, "pods", true), objs: objs}}}
			p := answerPrinter{answers: []*targetAnswer{a}, contextAt: -1, out: &stdout, errOut: &stderr}
			if err := p.print(); err != nil {
				t.Fatalf("print: %v", err)
			}
			if got := stdout.String(); got != tt.want {
				t.Errorf("print(%s) printed\n%s\nwant\n%s", tt.name, got, tt.want)
			}
		})
	}
}

// TestAnswerPrinterOneAndSeveral checks that one target prints as kubectl
// prints one cluster, and that several add the context of each row, each
// target's rows in the same order as when it is printed alone.
func TestAnswerPrinterOneAndSeveral(t *testing.T) {
	pod := func(ns, name string) *corev1.Pod {
		return &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	}
	tests := []struct {
		output       string
		one, several string
	}{
		{"name", "pod/web\npod/api\n", "a/pod/web\na/pod/api\nb/pod/db\n"},
		{"custom-columns=NAME:.metadata.name", "NAME\nweb\napi\n", "CONTEXT   NAME\na         web\na         api\nb         db\n"},
	}
	for _, tt := range tests {
		t.Run(tt.output, func(t *testing.T) {
			out, err := printing.ParseOutput(tt.output)
			if err != nil {
				t.Fatal(err)
			}
			answer := func(name string, objs ...interface{}) *targetAnswer {
				return &targetAnswer{name: name, cfg: queryPrintConfig{out: out}, groups: []typeObjects{{t: answerTypeOf(schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, "pods", true), objs: objs}}}
			}
			for _, c := range []struct {
				answers []*targetAnswer
				several bool
				want    string
			}{
				{[]*targetAnswer{answer("a", pod("team", "web"), pod("team", "api"))}, false, tt.one},
				{[]*targetAnswer{answer("a", pod("team", "web"), pod("team", "api")), answer("b", pod("team", "db"))}, true, tt.several},
			} {
				var stdout, stderr bytes.Buffer
				p := answerPrinter{answers: c.answers, several: c.several, contextAt: -1, out: &stdout, errOut: &stderr}
				if err := p.print(); err != nil {
					t.Fatalf("print: %v", err)
				}
				if got := stdout.String(); got != c.want {
					t.Errorf("%d targets, several %v: printed\n%s\nwant\n%s", len(c.answers), c.several, got, c.want)
				}
			}
		})
	}
}

// TestQueryPrintConfigBind checks that binding the relationship indexes
// after sync returns a new config and leaves the one Complete built alone.
func TestQueryPrintConfigBind(t *testing.T) {
	set, err := index.NewSet()
	if err != nil {
		t.Fatal(err)
	}
	node, err := set.Lookup("node")
	if err != nil {
		t.Fatal(err)
	}
	owner, err := set.Lookup("owner-root")
	if err != nil {
		t.Fatal(err)
	}
	cfg := queryPrintConfig{indexes: []index.Definition{node, owner}, groupBy: []index.Definition{owner}}
	bound := owner
	bound.Description = "bound to the owners cache"
	got := cfg.bind([]index.Definition{node, bound})
	if got.indexes[1].Description != bound.Description || got.groupBy[0].Description != bound.Description {
		t.Errorf("bind: indexes %q, groupBy %q, want both %q", got.indexes[1].Description, got.groupBy[0].Description, bound.Description)
	}
	if cfg.indexes[1].Description != owner.Description || cfg.groupBy[0].Description != owner.Description {
		t.Errorf("bind changed the config it was called on: indexes %q, groupBy %q", cfg.indexes[1].Description, cfg.groupBy[0].Description)
	}
}

// An empty answer says so on the command's stderr, one target or several,
// naming the namespace as kubectl does.
func TestAnswerPrinterNotFound(t *testing.T) {
	out, err := printing.ParseOutput("")
	if err != nil {
		t.Fatal(err)
	}
	pods := answerTypeOf(schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, "pods", true)
	for _, several := range []bool{false, true} {
		names := []string{"a"}
		if several {
			names = append(names, "b")
		}
		var answers []*targetAnswer
		for _, name := range names {
			answers = append(answers, &targetAnswer{name: name, several: several,
				cfg: queryPrintConfig{out: out, namespaces: []string{"shop"}}, groups: []typeObjects{{t: pods}}})
		}
		var stdout, stderr bytes.Buffer
		p := answerPrinter{answers: answers, several: several, contextAt: -1, out: &stdout, errOut: &stderr}
		if err := p.print(); err != nil {
			t.Fatal(err)
		}
		if want := "No resources found in shop namespace.\n"; stdout.String() != "" || stderr.String() != want {
			t.Errorf("several %v: stdout %q, stderr %q; want nothing and %q", several, stdout.String(), stderr.String(), want)
		}
	}
}

// A warm cache's answer of objects, a built-in type's carried as their
// rows, prints the tables the same answer read directly prints (Tables):
// its ages as of the answer's instant, a custom resource's printer columns
// carried in the answer; an answer with no object prints none.
func TestTablesOfWarmAnswer(t *testing.T) {
	out, err := printing.ParseOutput("")
	if err != nil {
		t.Fatal(err)
	}
	pods := answerTypeOf(schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, "pods", true)
	widgets := answerTypeOf(schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}, "widgets", true)
	created := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", CreationTimestamp: created}}
	widget := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]interface{}{"name": "w", "namespace": "shop", "creationTimestamp": created.UTC().Format(time.RFC3339)},
		"spec":     map[string]interface{}{"size": int64(3)},
	}}
	size := []columns.PrinterColumn{{Name: "Size", Type: "integer", JSONPath: ".spec.size"}}
	cfg := queryPrintConfig{out: out, namespaces: []string{"shop"}, ages: engines.AgesAt(created.Add(time.Hour))}
	direct := &targetAnswer{cfg: cfg, groups: []typeObjects{{t: pods, objs: []interface{}{pod}}, {t: widgets, objs: []interface{}{widget}, columns: size}}}
	want, err := answerPrinter{answers: []*targetAnswer{direct}, contextAt: -1}.tables()
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != 2 || !slices.Contains(want[1].Header, "SIZE") || want[0].Rows[0][len(want[0].Rows[0])-1] != "60m" {
		t.Fatalf("direct tables = %v, want a pod's (age 60m) and a widget's with its SIZE", want)
	}
	q := protocol.Query{Types: "pods,widgets.example.com", Namespace: "shop"}
	for _, tt := range []struct {
		name   string
		groups []typeObjects
		want   []Table
	}{
		{name: "objects", groups: direct.groups, want: want},
		{name: "none", groups: []typeObjects{{t: pods}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sent := sentAnswer(t, cfg, tt.groups)
			// A built-in type's objects as their rows; a custom
			// resource's whole, with its printer columns.
			for _, at := range sent.Types {
				if want := map[string]string{"pods": protocol.FormRow, "widgets": protocol.FormUnstructured}[at.Resource]; len(at.Objects) > 0 && at.Form != want {
					t.Errorf("%s sent as %q, want %q", at.Resource, at.Form, want)
				}
			}
			got, err := Tables(q, &sent)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Tables(answer) = %v, want %v", got, tt.want)
			}
		})
	}
}

// --group-by context alone counts each context's objects: a row per
// context, largest first, no TOTAL row (a count alone has none).
func TestAnswerPrinterGroupByContextAlone(t *testing.T) {
	pods := answerTypeOf(schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, "pods", true)
	var answers []*targetAnswer
	for i, name := range []string{"a", "b"} {
		objs := []interface{}{testpods.CPUPod("web-1", "web", "n1", "250m")}
		if i == 1 {
			objs = append(objs, testpods.CPUPod("web-2", "web", "n1", "250m"))
		}
		a := &targetAnswer{name: name, several: true, shutdown: func() {}, groups: []typeObjects{{t: pods, objs: objs}}}
		a.groupNow()
		answers = append(answers, a)
	}
	var stdout, stderr bytes.Buffer
	if err := (answerPrinter{answers: answers, several: true, contextAt: 0, out: &stdout, errOut: &stderr}).print(); err != nil {
		t.Fatal(err)
	}
	if want := "CONTEXT   COUNT\nb         2\na         1\n"; stdout.String() != want || stderr.String() != "" {
		t.Errorf("--group-by context printed %q and %q on stderr, want %q", stdout.String(), stderr.String(), want)
	}
}
