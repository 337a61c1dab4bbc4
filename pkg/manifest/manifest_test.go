package manifest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

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
		name:  "a name that is not a string",
		files: map[string]string{"a.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: [a]}\n"},
		want:  "/a.yaml: line 1 (document 1): Pod: .metadata.name accessor error",
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
		var got []*unstructured.Unstructured
		d := &decoder{opts: Options{MaxDocumentBytes: 1 << 16, MaxDepth: 64}.withDefaults(), name: "fuzz", add: func(o *unstructured.Unstructured) { got = append(got, o) }}
		if err := d.decode(bytes.NewReader(data)); err != nil {
			return
		}
		for _, o := range got {
			if o.GetKind() == "" || o.GetAPIVersion() == "" || o.GetName() == "" {
				t.Fatalf("accepted %q: an object without kind, apiVersion or name: %v", data, o.Object)
			}
		}
	})
}
