package manifest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
)

// typed gives the Go type of the kinds client-go's scheme holds.
func typed(gvk schema.GroupVersionKind) runtime.Object {
	obj, err := scheme.Scheme.New(gvk)
	if err != nil {
		return nil
	}
	return obj
}

// sameAsTyped checks that typed objects are those read unstructured,
// each converted to its Go type where typed gives one.
func sameAsTyped(t *testing.T, objs []*unstructured.Unstructured, typedObjs []runtime.Object) {
	t.Helper()
	if len(objs) != len(typedObjs) {
		t.Fatalf("ReadObjects() read %d objects, Read() %d", len(typedObjs), len(objs))
	}
	for i, u := range objs {
		want := runtime.Object(u)
		if obj := typed(u.GroupVersionKind()); obj != nil {
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, obj); err != nil {
				t.Fatal(err)
			}
			obj.GetObjectKind().SetGroupVersionKind(u.GroupVersionKind())
			want = obj
		}
		if !equality.Semantic.DeepEqual(typedObjs[i], want) {
			t.Errorf("ReadObjects() object %d = %#v, want %#v", i, typedObjs[i], want)
		}
	}
}

// writeFiles writes files (path relative to dir → content) under a new
// directory and returns it.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// describe lists objects as "apiVersion Kind ns/name rv", one per line.
func describe(objs []*unstructured.Unstructured) string {
	var b strings.Builder
	for _, o := range objs {
		fmt.Fprintf(&b, "%s %s %s/%s %s\n", o.GetAPIVersion(), o.GetKind(), o.GetNamespace(), o.GetName(), o.GetResourceVersion())
	}
	return b.String()
}

const podListJSON = `{"apiVersion":"v1","items":[
{"metadata":{"name":"a","namespace":"shop","resourceVersion":"3"},"spec":{"nodeName":"w1","priority":7,"overhead":{"cpu":"1.5"}}},
{"metadata":{"name":"b","namespace":"shop","resourceVersion":"4"}}
],"kind":"PodList","metadata":{"resourceVersion":"9"}}
`

func TestRead(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		paths []string // relative to the directory; none: the directory
		want  string
	}{{
		name: "multi-document YAML with a List, a single object and empty documents",
		files: map[string]string{"all.yaml": `---
# nothing here
---
apiVersion: v1
kind: List
items:
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web, namespace: shop}
- apiVersion: v1
  kind: Service
  metadata: {name: web, namespace: shop}
---
apiVersion: v1
kind: Node
metadata:
  name: w1
...
`},
		want: "apps/v1 Deployment shop/web \nv1 Service shop/web \nv1 Node /w1 \n",
	}, {
		name:  "typed list whose items lack kind and apiVersion, as cluster-info dump writes it",
		files: map[string]string{"pods.json": podListJSON},
		want:  "v1 Pod shop/a 3\nv1 Pod shop/b 4\n",
	}, {
		name: "JSON stream, one object per line",
		files: map[string]string{"events.ndjson": `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"x"}}
{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b","namespace":"x"}}
null
[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"x"}}]
`},
		paths: []string{"events.ndjson"},
		want:  "v1 ConfigMap x/a \nv1 ConfigMap x/b \nv1 ConfigMap x/c \n",
	}, {
		name: "cluster-info dump directory: lists per namespace, pod logs skipped",
		files: map[string]string{
			"nodes.json":                        `{"apiVersion":"v1","items":[{"metadata":{"name":"w1"}}],"kind":"NodeList","metadata":{}}`,
			"shop/pods.json":                    podListJSON,
			"shop/deployments.json":             `{"apiVersion":"apps/v1","items":[{"metadata":{"name":"web","namespace":"shop"}}],"kind":"DeploymentList","metadata":{}}`,
			"shop/a/logs.txt":                   "hello: world\nnot json {\n",
			"shop/replication-controllers.json": `{"apiVersion":"v1","items":[],"kind":"ReplicationControllerList","metadata":{}}`,
		},
		want: "v1 Node /w1 \napps/v1 Deployment shop/web \nv1 Pod shop/a 3\nv1 Pod shop/b 4\n",
	}, {
		name: "cluster-info dump written to standard output: lists with pod logs between them",
		files: map[string]string{"dump.txt": `{
    "kind": "NodeList",
    "apiVersion": "v1",
    "metadata": {},
    "items": [{"metadata": {"name": "w1"}}]
}
` + podListJSON + `==== START logs for container app of pod shop/a ====
{"level":"info","msg":"not an object of the dump"}
==== START logs for container x of pod shop/x ====
==== END logs for container app of pod shop/a ====
==== START logs for container app of pod shop/b ====
==== END logs for container app of pod shop/b ====
{
    "kind": "ServiceList",
    "apiVersion": "v1",
    "metadata": {},
    "items": [{"metadata": {"name": "web", "namespace": "shop"}}]
}
`},
		paths: []string{"dump.txt"},
		want:  "v1 Node /w1 \nv1 Pod shop/a 3\nv1 Pod shop/b 4\nv1 Service shop/web \n",
	}, {
		name: "must-gather directory",
		files: map[string]string{
			"cluster-scoped-resources/core/nodes.yaml":    "apiVersion: v1\nkind: NodeList\nitems:\n- metadata: {name: w1}\n",
			"namespaces/shop/core/pods.yaml":              "apiVersion: v1\nkind: PodList\nitems:\n- metadata: {name: a, namespace: shop, resourceVersion: \"5\"}\n",
			"namespaces/shop/pods/a/a.yaml":               "apiVersion: v1\nkind: Pod\nmetadata: {name: a, namespace: shop, resourceVersion: \"3\"}\n",
			"namespaces/shop/apps/deployments.yaml":       "apiVersion: apps/v1\nkind: DeploymentList\nitems:\n- metadata: {name: web, namespace: shop}\n",
			"namespaces/shop/pods/a/a/a/logs/current.log": "2024 log line\n",
			"timestamp":                      "2024-01-01\n",
			"etcd_info/endpoint_health.json": `[{"endpoint":"https://10.0.0.1:2379","health":true}]`,
			"aggregated/report.yaml":         "summary: fine\n",
		},
		want: "v1 Node /w1 \napps/v1 Deployment shop/web \nv1 Pod shop/a 5\n",
	}, {
		name: "duplicates: the higher resourceVersion is kept wherever it was read",
		files: map[string]string{
			"a.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: a, namespace: x, resourceVersion: \"20\"}\n",
			"b.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: a, namespace: x, resourceVersion: \"10\"}\n",
			"c.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: b, namespace: x, resourceVersion: \"1\"}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: b, namespace: x, resourceVersion: \"2\"}\n",
		},
		want: "v1 Pod x/a 20\nv1 Pod x/b 2\n",
	}, {
		name: "duplicates without numeric resourceVersions: the last read is kept",
		files: map[string]string{
			"a.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: a, namespace: x, labels: {v: one}}\n",
			"b.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: a, namespace: x, resourceVersion: \"x\"}\n",
		},
		want: "v1 Pod x/a x\n",
	}, {
		name:  "an explicitly named file of another name that holds YAML",
		files: map[string]string{"dump.txt": "apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n"},
		paths: []string{"dump.txt"},
		want:  "v1 Namespace /shop \n",
	}, {
		name: "kubectl get -o json: a List whose items carry their kinds, one the scheme does not hold",
		files: map[string]string{"all.json": `{"apiVersion":"v1","items":[
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","namespace":"x","resourceVersion":"5","labels":{"app":"web"}},"spec":{"activeDeadlineSeconds":9007199254740993,"nodeName":"w1"}},
{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"x"},"spec":{"size":9007199254740993}}
],"kind":"List","metadata":{"resourceVersion":""}}`},
		want: "v1 Pod x/a 5\nexample.com/v1 Widget x/w \n",
	}, {
		name:  "a typed list whose kind comes before its items, which lack kind and apiVersion",
		files: map[string]string{"pods.json": `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"9"},"items":[{"metadata":{"name":"a","namespace":"shop"},"spec":{"nodeName":"w1"}},{"kind":"Pod","metadata":{"name":"b","namespace":"shop"}}]}`},
		want:  "v1 Pod shop/a \nv1 Pod shop/b \n",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeFiles(t, tt.files)
			paths := []string{dir}
			if len(tt.paths) > 0 {
				paths = nil
				for _, p := range tt.paths {
					paths = append(paths, filepath.Join(dir, p))
				}
			}
			objs, err := Read(paths)
			if err != nil {
				t.Fatalf("Read() = %v", err)
			}
			if got := describe(objs); got != tt.want {
				t.Errorf("Read() =\n%s\nwant\n%s", got, tt.want)
			}
			typedObjs, err := Options{Typed: typed}.ReadObjects(paths)
			if err != nil {
				t.Fatalf("ReadObjects() = %v", err)
			}
			sameAsTyped(t, objs, typedObjs)
		})
	}
}

// TestReadNumbers checks that numbers are int64 where integral, as the
// API machinery decodes them, so that typed conversion works.
func TestReadNumbers(t *testing.T) {
	dir := writeFiles(t, map[string]string{"pods.json": podListJSON})
	objs, err := Read([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if got, _, _ := unstructured.NestedFieldNoCopy(objs[0].Object, "spec", "priority"); got != int64(7) {
		t.Errorf("spec.priority = %#v, want int64(7)", got)
	}
}

func TestReadErrors(t *testing.T) {
	deep := strings.Repeat(`{"a":`, 200) + "1" + strings.Repeat("}", 200)
	laughs := `apiVersion: v1
kind: ConfigMap
metadata: {name: lol}
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
`
	tests := []struct {
		name  string
		files map[string]string
		path  string // relative to the directory; "" is the directory
		opts  Options
		// walk reads the directory; otherwise the one file, or path.
		walk bool
		want string // what the error must say, after the directory
		// typedWant is what it must say when read typed, if not want.
		typedWant string
	}{{
		name: "missing path",
		path: "nope",
		want: "/nope: no such file or directory",
	}, {
		name:  "an explicit file that is not YAML or JSON",
		files: map[string]string{"logs.txt": "starting server\nlistening on :80\n"},
		path:  "logs.txt",
		want:  "/logs.txt: line 1 (document 1): not a Kubernetes object",
	}, {
		name:  "bad YAML names the line in the file",
		files: map[string]string{"a.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: [b\n  x: y\n"},
		want:  "/a.yaml: document 2: yaml: line",
	}, {
		name:  "truncated JSON",
		files: map[string]string{"pods.json": podListJSON[:120]},
		want:  "/pods.json: line 2 (document 1), item 0: unexpected end of file (truncated?)",
	}, {
		name:  "a file in a directory with a document that is not an object after one that is",
		files: map[string]string{"a/pods.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n---\nfoo: bar\n"},
		walk:  true,
		want:  "/a/pods.yaml: line 5 (document 2): object has no kind",
	}, {
		name:  "a file in a directory whose list has an item without kind",
		files: map[string]string{"a/pods.json": `{"apiVersion":"v1","kind":"List","items":[{"metadata":{"name":"a"}}]}`},
		walk:  true,
		want:  "/a/pods.json: line 1 (document 1): item 0: object has no kind",
	}, {
		name:  "a cluster-info dump on standard output names the line after pod logs",
		files: map[string]string{"dump.txt": podListJSON + "==== START logs for container app of pod shop/a ====\nlog\n==== END logs for container app of pod shop/a ====\n{\"kind\": \"ServiceList\",\n\"items\": [{\"metadata\": {}}]}\n"},
		want:  "/dump.txt: line 9 (document 2): item 0: Service: object has no apiVersion",
	}, {
		name:  "an object without kind",
		files: map[string]string{"a.yaml": "apiVersion: v1\nmetadata: {name: a}\n"},
		want:  "/a.yaml: line 1 (document 1): object has no kind",
	}, {
		name:  "an item of a List without kind",
		files: map[string]string{"a.json": `{"apiVersion":"v1","kind":"List","items":[{"metadata":{"name":"a"}}]}`},
		want:  "/a.json: line 1 (document 1): item 0: object has no kind",
	}, {
		name:  "an object without a name",
		files: map[string]string{"a.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {namespace: x}\n"},
		want:  "/a.yaml: line 1 (document 1): Pod has no metadata.name",
	}, {
		name:      "a name that is not a string",
		files:     map[string]string{"a.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: [a]}\n"},
		want:      "/a.yaml: line 1 (document 1): Pod: .metadata.name accessor error",
		typedWant: "/a.yaml: line 1 (document 1): Pod: json: cannot unmarshal array into Go struct field ObjectMeta.metadata.name of type string",
	}, {
		name:  "a scalar document",
		files: map[string]string{"a.json": `"just a string"`},
		want:  "/a.json: line 1 (document 1): not a Kubernetes object",
	}, {
		name:  "a YAML document over the size bound",
		files: map[string]string{"a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n  x: " + strings.Repeat("x", 2000) + "\n"},
		opts:  Options{MaxDocumentBytes: 1000},
		want:  "/a.yaml: line 1 (document 1): larger than 1000 bytes",
	}, {
		name:  "a JSON list item over the size bound",
		files: map[string]string{"a.json": `{"apiVersion":"v1","kind":"ConfigMapList","items":[{"metadata":{"name":"a"},"data":{"x":"` + strings.Repeat("x", 200000) + `"}}]}`},
		opts:  Options{MaxDocumentBytes: 1000},
		want:  "item 0: larger than 1000 bytes",
	}, {
		name:  "nesting past the depth bound",
		files: map[string]string{"a.json": `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"x":` + deep + `}`},
		opts:  Options{MaxDepth: 100},
		want:  "/a.json: line 1 (document 1): nested too deeply",
	}, {
		name:  "nesting past the depth bound in an item of a typed list",
		files: map[string]string{"a.json": `{"kind":"PodList","apiVersion":"v1","items":[{"metadata":{"name":"a","annotations":` + deep + `}}]}`},
		opts:  Options{MaxDepth: 100},
		want:  "/a.json: line 1 (document 1), item 0: nested too deeply",
	}, {
		name:      "a name that is not a string in an item of a typed list",
		files:     map[string]string{"a.json": "{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"items\":[\n{\"metadata\":{\"name\":\"a\"}},\n{\"metadata\":{\"name\":7}}]}"},
		want:      "/a.json: line 3 (document 1): item 1: Pod: .metadata.name accessor error",
		typedWant: "/a.json: line 3 (document 1), item 1: Pod: json: cannot unmarshal number into Go struct field ObjectMeta.metadata.name of type string",
	}, {
		name:  "a null item of a typed list",
		files: map[string]string{"a.json": `{"kind":"PodList","apiVersion":"v1","items":[null]}`},
		want:  "/a.json: line 1 (document 1), item 0: not a Kubernetes object",
	}, {
		name:  "a number item of a typed list",
		files: map[string]string{"a.json": `{"kind":"PodList","apiVersion":"v1","items":[{"metadata":{"name":"a"}},7]}`},
		want:  "/a.json: line 1 (document 1), item 1: not a Kubernetes object",
	}, {
		name:  "an item of a typed list without a name",
		files: map[string]string{"a.json": `{"kind":"PodList","apiVersion":"v1","items":[{"metadata":{"Name":"a"}}]}`},
		want:  "item 0: Pod has no metadata.name",
	}, {
		name:  "YAML aliases expanding without bound (billion laughs)",
		files: map[string]string{"lol.yaml": laughs},
		want:  "/lol.yaml: document 1: yaml: document contains excessive aliasing",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeFiles(t, tt.files)
			p := filepath.Join(dir, tt.path)
			for name := range tt.files {
				if !tt.walk && tt.path == "" {
					p = filepath.Join(dir, name)
				}
			}
			_, err := tt.opts.Read([]string{p})
			if err == nil {
				t.Fatalf("Read(%s) = nil error, want %q", tt.path, tt.want)
			}
			if !strings.HasPrefix(err.Error(), dir) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Read(%s) = %q, want %q after %s", tt.path, err, tt.want, dir)
			}
			opts := tt.opts
			opts.Typed = typed
			want := tt.want
			if tt.typedWant != "" {
				want = tt.typedWant
			}
			_, err = opts.ReadObjects([]string{p})
			if err == nil {
				t.Fatalf("ReadObjects(%s) = nil error, want %q", tt.path, want)
			}
			if !strings.HasPrefix(err.Error(), dir) || !strings.Contains(err.Error(), want) {
				t.Errorf("ReadObjects(%s) = %q, want %q after %s", tt.path, err, want, dir)
			}
		})
	}
}

// FuzzRead checks that no input panics or hangs the reader, and that
// whatever it accepts has a kind, an apiVersion and a name.
func FuzzRead(f *testing.F) {
	f.Add([]byte(podListJSON))
	f.Add([]byte("apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Pod, metadata: {name: a}}\n---\n"))
	f.Add([]byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a"}}` + "\n" + `[{"apiVersion":"v1","kind":"Pod","metadata":{"name":"b"}}]`))
	f.Add([]byte("a: &a [x]\nb: [*a, *a]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, typedKinds := range []func(schema.GroupVersionKind) runtime.Object{nil, typed} {
			var got []runtime.Object
			d := &decoder{opts: Options{MaxDocumentBytes: 1 << 16, MaxDepth: 64, Typed: typedKinds}.withDefaults(), name: "fuzz", add: func(o runtime.Object) { got = append(got, o) }}
			if err := d.decode(bytes.NewReader(data)); err != nil {
				continue
			}
			for _, o := range got {
				gvk := o.GetObjectKind().GroupVersionKind()
				m, err := meta.Accessor(o)
				if err != nil || gvk.Kind == "" || gvk.Version == "" || m.GetName() == "" {
					t.Fatalf("accepted %q: an object without kind, apiVersion or name: %#v", data, o)
				}
			}
		}
	})
}

// TestTypedObject checks which objects the typed path decodes and which it
// leaves to the map path (nil, no error).
func TestTypedObject(t *testing.T) {
	tests := []struct {
		name, raw, kind, apiVersion string
		want                        string // the kind decoded; "" for the map path
		err                         string
	}{
		{name: "own kind", raw: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a"}}`, want: "Pod"},
		{name: "a typed list's kind", raw: `{"metadata":{"name":"a"}}`, kind: "Pod", apiVersion: "v1", want: "Pod"},
		{name: "own kind over the list's", raw: `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a"}}`, kind: "Node", apiVersion: "v1", want: "Pod"},
		{name: "the last of duplicate keys, as JSON decoding takes", raw: `{"kind":"Node","kind":"Pod","apiVersion":"v1","metadata":{"name":"a"}}`, want: "Pod"},
		{name: "no kind", raw: `{"apiVersion":"v1","metadata":{"name":"a"}}`},
		{name: "kind not a string", raw: `{"kind":7,"apiVersion":"v1","metadata":{"name":"a"}}`},
		{name: "escaped key", raw: `{"k\u0069nd":"Pod","apiVersion":"v1","metadata":{"name":"a"}}`},
		{name: "a kind the scheme does not hold", raw: `{"kind":"Widget","apiVersion":"example.com/v1","metadata":{"name":"a"}}`},
		{name: "a list", raw: `{"kind":"PodList","apiVersion":"v1","items":[]}`},
		{name: "not an object", raw: `["Pod"]`},
		{name: "strings holding brackets and quotes", raw: `{"metadata":{"name":"a","annotations":{"x":"}]\\\"{["}},"kind":"Pod","apiVersion":"v1"}`, want: "Pod"},
		{name: "no name", raw: `{"kind":"Pod","apiVersion":"v1","metadata":{}}`, err: "Pod has no metadata.name"},
		{name: "too deep", raw: `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","labels":{"a":[[[[1]]]]}}}`, err: "nested too deeply"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &decoder{opts: Options{MaxDepth: 5, Typed: typed}.withDefaults()}
			obj, err := d.typedObject([]byte(tt.raw), tt.kind, tt.apiVersion)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("typedObject() = %v, want error %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("typedObject() = %v", err)
			}
			got := ""
			if obj != nil {
				got = obj.GetObjectKind().GroupVersionKind().Kind
				if _, ok := obj.(*unstructured.Unstructured); ok {
					t.Fatalf("typedObject() = unstructured")
				}
			}
			if got != tt.want {
				t.Errorf("typedObject() kind = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestReadDropManagedFields checks that DropManagedFields removes
// managedFields from objects read typed and unstructured, and that they
// are kept otherwise.
func TestReadDropManagedFields(t *testing.T) {
	const pod = `{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "ns",
	  "managedFields": [{"manager": "kubectl", "operation": "Update", "apiVersion": "v1"}]}}`
	const widget = `{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w",
	  "managedFields": [{"manager": "kubectl", "operation": "Update", "apiVersion": "example.com/v1"}]}}`
	dir := writeFiles(t, map[string]string{"a.json": pod, "b.json": widget})
	typed := func(gvk schema.GroupVersionKind) runtime.Object {
		if gvk.Kind == "Pod" {
			return &corev1.Pod{}
		}
		return nil
	}
	for _, drop := range []bool{false, true} {
		objs, err := Options{Typed: typed, DropManagedFields: drop}.ReadObjects([]string{dir})
		if err != nil {
			t.Fatal(err)
		}
		if len(objs) != 2 {
			t.Fatalf("ReadObjects read %d objects, want 2", len(objs))
		}
		for _, obj := range objs {
			m, err := meta.Accessor(obj)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(m.GetManagedFields()); (got == 0) != drop {
				t.Errorf("DropManagedFields=%v: %s %s has %d managedFields entries", drop, obj.GetObjectKind().GroupVersionKind().Kind, m.GetName(), got)
			}
		}
	}
}
