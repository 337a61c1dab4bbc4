package query

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/object"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/printing"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/targets"
	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/protocol"
)

// answerTypeOf returns an engine.Type of the mapping of gvk and resource.
func answerTypeOf(gvk schema.GroupVersionKind, resource string, namespaced bool) *engine.Type {
	scope := meta.RESTScopeRoot
	if namespaced {
		scope = meta.RESTScopeNamespace
	}
	return &engine.Type{Mapping: &meta.RESTMapping{
		Resource:         gvk.GroupVersion().WithResource(resource),
		GroupVersionKind: gvk,
		Scope:            scope,
	}}
}

// TestAnswerRoundTrip encodes objects of each form as a cache does and
// decodes them as the client does: the same content, the index values the
// cache read (a relation index the client could not compute), and the
// latest Event.
func TestAnswerRoundTrip(t *testing.T) {
	created := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web-1", Namespace: "shop", UID: "u1", CreationTimestamp: created},
		Spec:       corev1.PodSpec{NodeName: "n1", Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
	}
	widget := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]interface{}{"name": "w", "namespace": "shop", "uid": "u2"},
		"spec":     map[string]interface{}{"size": int64(3)},
	}}
	meta1 := &metav1.PartialObjectMetadata{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: "cfg", Namespace: "shop", UID: "u3"},
	}
	event := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "e"}, Reason: "Pulled", Type: "Normal"}
	ownerRoot := index.Definition{Name: "owner-root", Func: func(obj interface{}) ([]string, error) {
		m, _ := meta.Accessor(obj)
		return []string{"Deployment/" + m.GetName()}, nil
	}}
	out, err := printing.ParseOutput("json")
	if err != nil {
		t.Fatal(err)
	}
	cfg := queryPrintConfig{out: out, indexes: []index.Definition{ownerRoot}, showEvents: true, events: answerEvents{"u1": event}}
	groups := []typeObjects{
		{t: answerTypeOf(schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, "pods", true), objs: []interface{}{pod}},
		{t: answerTypeOf(schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}, "widgets", true), objs: []interface{}{widget}},
		{t: answerTypeOf(schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, "configmaps", true), objs: []interface{}{meta1}},
	}
	sent := sentAnswer(t, cfg, groups)
	got, defs, events, err := decodeAnswer(&sent)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(groups) {
		t.Fatalf("decoded %d types, want %d", len(got), len(groups))
	}
	wantForms := []interface{}{&corev1.Pod{}, &unstructured.Unstructured{}, &metav1.PartialObjectMetadata{}}
	for i, g := range got {
		if g.t.Name() != groups[i].t.Name() || g.t.Namespaced() != groups[i].t.Namespaced() || g.t.Mapping.GroupVersionKind != groups[i].t.Mapping.GroupVersionKind {
			t.Errorf("type %d = %s %v, want %s %v", i, g.t.Name(), g.t.Mapping.GroupVersionKind, groups[i].t.Name(), groups[i].t.Mapping.GroupVersionKind)
		}
		if len(g.objs) != 1 {
			t.Fatalf("type %s: %d objects, want 1", g.t.Name(), len(g.objs))
		}
		if reflect.TypeOf(g.objs[0]) != reflect.TypeOf(wantForms[i]) {
			t.Errorf("type %s decodes as %T, want %T", g.t.Name(), g.objs[0], wantForms[i])
		}
		gotContent, err := object.Content(g.objs[0])
		if err != nil {
			t.Fatal(err)
		}
		wantContent, err := object.Content(groups[i].objs[0])
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(gotContent, wantContent) {
			t.Errorf("type %s: content %v, want %v", g.t.Name(), gotContent, wantContent)
		}
		if len(defs) != 1 || defs[0].Name != "owner-root" {
			t.Fatalf("decoded index definitions %v, want owner-root", defs)
		}
		if got, want := index.Values(defs[0], g.objs[0]), index.Values(ownerRoot, groups[i].objs[0]); !reflect.DeepEqual(got, want) {
			t.Errorf("type %s: owner-root = %v, want %v", g.t.Name(), got, want)
		}
	}
	if latest := index.EventsOf(events, got[0].objs[0]); len(latest) != 1 || latest[0].Reason != "Pulled" {
		t.Errorf("latest event of the pod = %v, want the Pulled event", latest)
	}
	if latest := index.EventsOf(events, got[1].objs[0]); len(latest) != 0 {
		t.Errorf("latest event of the widget = %v, want none", latest)
	}
}

func TestObjectForm(t *testing.T) {
	podGVK := schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	for _, tc := range []struct {
		name    string
		obj     interface{}
		gvk     schema.GroupVersionKind
		want    string
		wantErr bool
	}{
		{name: "typed", obj: &corev1.Pod{}, gvk: podGVK, want: protocol.FormTyped},
		{name: "unstructured", obj: &unstructured.Unstructured{}, gvk: podGVK, want: protocol.FormUnstructured},
		{name: "metadata", obj: &metav1.PartialObjectMetadata{}, gvk: podGVK, want: protocol.FormMetadata},
		{name: "another Go type", obj: &corev1.Node{}, gvk: podGVK, wantErr: true},
		{name: "unknown kind", obj: &corev1.Pod{}, gvk: schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, got, err := answerForm(tc.obj, tc.gvk, "")
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Errorf("answerForm(%T, %v) = %q, %v; want %q, error %v", tc.obj, tc.gvk, got, err, tc.want, tc.wantErr)
			}
		})
	}
}

func TestDecodeAnswerRefusesBadAnswers(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer protocol.Answer
	}{
		{name: "unknown form", answer: protocol.Answer{Types: []protocol.AnswerType{{Version: "v1", Resource: "pods", Kind: "Pod", Form: "xml", Objects: []protocol.AnswerObject{{Object: json.RawMessage(`{}`)}}}}}},
		{name: "values missing", answer: protocol.Answer{Indexes: []string{"node"}, Types: []protocol.AnswerType{{Version: "v1", Resource: "pods", Kind: "Pod", Form: protocol.FormTyped, Objects: []protocol.AnswerObject{{Object: json.RawMessage(`{}`)}}}}}},
		{name: "a name without its identity", answer: protocol.Answer{Types: []protocol.AnswerType{{Version: "v1", Resource: "pods", Kind: "Pod", Form: protocol.FormName, Objects: []protocol.AnswerObject{{}}}}}},
		{name: "bad object", answer: protocol.Answer{Types: []protocol.AnswerType{{Version: "v1", Resource: "pods", Kind: "Pod", Form: protocol.FormTyped, Objects: []protocol.AnswerObject{{Object: json.RawMessage(`[1]`)}}}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, _, err := decodeAnswer(&tc.answer); err == nil {
				t.Errorf("decodeAnswer: no error")
			}
		})
	}
}

// TestQuestion checks that a query asked of a warm cache carries what the
// client resolved (the target's namespace, the context index taken out,
// absolute file paths), and that the cache's options read it back as the
// flags would have set them.
func TestQuestion(t *testing.T) {
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: secret}}]
contexts:
- {name: a, context: {cluster: c, user: u, namespace: team-a}}
- {name: b, context: {cluster: c, user: u}}
current-context: a
`), 0o600); err != nil {
		t.Fatal(err)
	}
	o := NewQueryOptions(targets.ForContext(rootConfigFlags(kubeconfig), "a"), genericiooptions.NewTestIOStreamsDiscard())
	o.typeArg, o.AllNamespaces, o.LabelSelector, o.Indexers = "pods,deploy", false, "app=web", []string{"img={.spec.containers[*].image}"}
	o.Index, o.GroupBy, o.Sums = []string{"context=a", "node=n1"}, []string{"context", "node"}, []string{"requests.cpu"}
	o.Output, o.SyncTimeout, o.MaxStaleness = "jsonpath-file=tmpl.txt", 5*time.Second, time.Minute
	q, err := targets.SplitContextIndex("--index", o.Index, o.GroupBy)
	if err != nil {
		t.Fatal(err)
	}
	o.split = q
	got, err := (&queryTarget{q: o, EngineOptions: o.EngineOptions}).question()
	if err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs("tmpl.txt")
	want := protocol.Query{
		Types: "pods,deploy", Namespace: "team-a", LabelSelector: "app=web", Indexers: o.Indexers,
		QueryFlags:  protocol.QueryFlags{Index: []string{"node=n1"}, GroupBy: []string{"node"}, Sums: []string{"requests.cpu"}, Output: "jsonpath-file=" + abs},
		SyncTimeout: protocol.Duration(5 * time.Second), MaxStaleness: protocol.Duration(time.Minute),
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("question = %+v, want %+v", got, want)
	}
	back := queryOf(got, rootConfigFlags(kubeconfig), genericiooptions.NewTestIOStreamsDiscard())
	if back.LabelSelector != o.LabelSelector || !reflect.DeepEqual(back.Index, q.Others) || !reflect.DeepEqual(back.GroupBy, q.GroupBy) ||
		!reflect.DeepEqual(back.Sums, o.Sums) || back.Output != want.Output || back.SyncTimeout != o.SyncTimeout || back.MaxStaleness != o.MaxStaleness || back.Cache != "off" {
		t.Errorf("queryOf(question) = %+v, want the options the flags set", back)
	}
}

// rootConfigFlags returns kubeconfig flags that read kubeconfig.
func rootConfigFlags(kubeconfig string) *genericclioptions.ConfigFlags {
	cf := genericclioptions.NewConfigFlags(true)
	cf.KubeConfig = &kubeconfig
	return cf
}

// TestNamesOnlyAnswerCarriesMetadata: an answer printed as names (-o name)
// carries each object's name, namespace and UID alone, whatever form the
// cache holds,
// with index values read from the whole object, and prints the names the
// whole objects print; sorted by a field, it carries whole objects.
func TestNamesOnlyAnswerCarriesMetadata(t *testing.T) {
	pod := &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: "web-1", Namespace: "shop", UID: "u1", Labels: map[string]string{"app": "web"}},
		Spec:       corev1.PodSpec{NodeName: "n1", Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
	}
	widget := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]interface{}{"name": "w", "namespace": "shop", "uid": "u2"},
		"spec":     map[string]interface{}{"size": int64(3)},
	}}
	node := index.Definition{Name: "node", Func: func(obj interface{}) ([]string, error) {
		if p, ok := obj.(*corev1.Pod); ok {
			return []string{p.Spec.NodeName}, nil
		}
		return nil, nil
	}}
	groups := []typeObjects{
		{t: answerTypeOf(schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, "pods", true), objs: []interface{}{pod}},
		{t: answerTypeOf(schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}, "widgets", true), objs: []interface{}{widget}},
	}
	names := func(t *testing.T, out printing.Output, objs []interface{}) string {
		t.Helper()
		var b bytes.Buffer
		list := printing.ContextList{One: true}
		for _, obj := range objs {
			list.Add("", obj)
		}
		if err := list.Write(&b, out.Format, out.Printer); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	for _, tt := range []struct {
		name, output, sortBy string
		wantForms            []string
	}{
		{name: "names", output: "name", wantForms: []string{protocol.FormName, protocol.FormName}},
		{name: "names sorted by a field", output: "name", sortBy: ".metadata.uid", wantForms: []string{protocol.FormTyped, protocol.FormUnstructured}},
		{name: "json", output: "json", wantForms: []string{protocol.FormTyped, protocol.FormUnstructured}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, err := printing.ParseOutput(tt.output)
			if err != nil {
				t.Fatal(err)
			}
			cfg := queryPrintConfig{out: out, sortBy: tt.sortBy, indexes: []index.Definition{node}}
			sent := sentAnswer(t, cfg, groups)
			for i, at := range sent.Types {
				if at.Form != tt.wantForms[i] {
					t.Errorf("type %s sent in form %q, want %q", at.Kind, at.Form, tt.wantForms[i])
				}
			}
			got, defs, _, err := decodeAnswer(&sent)
			if err != nil {
				t.Fatal(err)
			}
			var gotObjs, wantObjs []interface{}
			for i, g := range got {
				gotObjs, wantObjs = append(gotObjs, g.objs...), append(wantObjs, groups[i].objs...)
			}
			if got, want := names(t, out, gotObjs), names(t, out, wantObjs); tt.output == "name" && got != want {
				t.Errorf("names printed = %q, want %q", got, want)
			}
			if got := index.Values(defs[0], got[0].objs[0]); !reflect.DeepEqual(got, []string{"n1"}) {
				t.Errorf("node of the pod = %v, want [n1]", got)
			}
			if m, err := meta.Accessor(got[0].objs[0]); err != nil || m.GetName() != "web-1" || m.GetNamespace() != "shop" || m.GetUID() != "u1" {
				t.Errorf("metadata of the pod = %v (%v), want its name, namespace and uid", m, err)
			}
		})
	}
}

// sentAnswer is the answer encodeAnswer makes of groups, as the client
// reads it from the cache: through JSON.
func sentAnswer(t *testing.T, cfg queryPrintConfig, groups []typeObjects) protocol.Answer {
	t.Helper()
	answer, err := encodeAnswer(cfg, groups)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(answer)
	if err != nil {
		t.Fatal(err)
	}
	var sent protocol.Answer
	if err := json.Unmarshal(b, &sent); err != nil {
		t.Fatal(err)
	}
	return sent
}
