package index

import (
	"fmt"
	"reflect"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"
)

func TestParseCustom(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    Custom
		wantErr string
	}{
		{name: "full expression", in: "img={.spec.containers[*].image}",
			want: Custom{Name: "img", JSONPath: "{.spec.containers[*].image}"}},
		{name: "relaxed with dot", in: "color=.spec.color", want: Custom{Name: "color", JSONPath: ".spec.color"}},
		{name: "relaxed without dot", in: "color=spec.color", want: Custom{Name: "color", JSONPath: "spec.color"}},
		{name: "braces without dot", in: "color={spec.color}", want: Custom{Name: "color", JSONPath: "{spec.color}"}},
		{name: "filter with '=' in the path", in: `ready={.status.conditions[?(@.type=="Ready")].status}`,
			want: Custom{Name: "ready", JSONPath: `{.status.conditions[?(@.type=="Ready")].status}`}},
		{name: "union", in: "ips={.status['podIP','hostIP']}",
			want: Custom{Name: "ips", JSONPath: "{.status['podIP','hostIP']}"}},
		{name: "name with dash and digits", in: "team-2=.metadata.labels.team",
			want: Custom{Name: "team-2", JSONPath: ".metadata.labels.team"}},

		{name: "no '='", in: "img", wantErr: `--indexer needs NAME=JSONPATH, got "img"`},
		{name: "empty", in: "", wantErr: `--indexer needs NAME=JSONPATH, got ""`},
		{name: "empty name", in: "=.spec.x", wantErr: `--indexer needs NAME=JSONPATH, got "=.spec.x"`},
		{name: "empty path", in: "img=", wantErr: `--indexer needs NAME=JSONPATH, got "img="`},
		{name: "uppercase name", in: "Img=.spec.x",
			wantErr: `--indexer: invalid index name "Img": use at most 63 lowercase letters, digits and '-', ` +
				`starting and ending with a letter or digit`},
		{name: "name with a colon", in: "label:app=.spec.x",
			wantErr: `--indexer: invalid index name "label:app": use at most 63 lowercase letters, digits and '-', ` +
				`starting and ending with a letter or digit`},
		{name: "built-in name", in: "node=.spec.nodeName",
			wantErr: `--indexer: index name "node" is taken by a built-in index; choose another name`},
		{name: "built-in family name", in: "label=.metadata.labels",
			wantErr: `--indexer: index name "label" is taken by a built-in index; choose another name`},
		{name: "unclosed action", in: "img={.spec",
			wantErr: `--indexer img: invalid JSONPath "{.spec": ` +
				`want a single expression such as {.spec.x}, .spec.x or spec.x`},
		{name: "two expressions", in: "img={.a}{.b}",
			wantErr: `--indexer img: invalid JSONPath "{.a}{.b}": ` +
				`want a single expression such as {.spec.x}, .spec.x or spec.x`},
		{name: "range", in: "img={.items[*]} range",
			wantErr: `--indexer img: invalid JSONPath "{.items[*]} range": ` +
				`want a single expression such as {.spec.x}, .spec.x or spec.x`},
		{name: "range inside", in: "img=.a range",
			wantErr: `--indexer img: invalid JSONPath ".a range": range and end are not supported in an index`},
		{name: "bare identifier", in: "img=.a foo",
			wantErr: `--indexer img: invalid JSONPath ".a foo": unrecognized identifier "foo"`},
		{name: "unclosed array", in: "img=.spec.containers[0",
			wantErr: `--indexer img: invalid JSONPath ".spec.containers[0": unterminated array`},
		{name: "bad character", in: "img=.spec ,x",
			wantErr: `--indexer img: invalid JSONPath ".spec ,x": unrecognized character in action: U+002C ','`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseCustom(tt.in)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Errorf("ParseCustom(%q) error = %v, want %s", tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("ParseCustom(%q) = %+v, %v, want %+v, nil", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestCustomIndex(t *testing.T) {
	pod := runningPod()
	tests := []struct {
		name string
		path string
		obj  interface{}
		want []string
	}{
		{name: "images of a typed pod", path: "{.spec.containers[*].image}", obj: pod,
			want: []string{"nginx:1.27", "envoy:1.30"}},
		{name: "images of an unstructured pod", path: "{.spec.containers[*].image}", obj: toUnstructured(t, pod),
			want: []string{"nginx:1.27", "envoy:1.30"}},
		{name: "relaxed path on a custom resource", path: ".spec.color", obj: widget(), want: []string{"blue"}},
		{name: "relaxed path without dot", path: "spec.color", obj: widget(), want: []string{"blue"}},
		{name: "absent path", path: ".spec.shape", obj: widget()},
		{name: "absent path on a typed pod", path: ".spec.shape", obj: pod},
		{name: "absent index", path: "{.spec.containers[7].image}", obj: pod},
		{name: "integer", path: ".spec.size", obj: widget(), want: []string{"3"}},
		{name: "typed int32", path: ".spec.replicas", obj: deployment(), want: []string{"3"}},
		{name: "float", path: ".spec.ratio", obj: widget(), want: []string{"1.5"}},
		{name: "bool", path: ".spec.enabled", obj: widget(), want: []string{"true"}},
		{name: "null", path: ".spec.nothing", obj: widget()},
		{name: "empty string", path: ".spec.empty", obj: widget(), want: []string{""}},
		{name: "list elements deduplicated", path: "{.spec.tags[*]}", obj: widget(), want: []string{"a", "b"}},
		{name: "list as JSON", path: ".spec.tags", obj: widget(), want: []string{`["a","b","a"]`}},
		{name: "map as JSON", path: ".metadata.labels", obj: pod, want: []string{`{"app":"web","empty":""}`}},
		{name: "filter", path: `{.status.conditions[?(@.type=="Ready")].status}`, obj: pod,
			want: []string{"True"}},
		{name: "union of fields", path: "{.metadata['name','namespace']}", obj: pod, want: []string{"web-1", "shop"}},
		{name: "recursive", path: "{..image}", obj: widget(), want: []string{"widget:1"}},
		{name: "kind from TypeMeta", path: ".kind", obj: pod, want: []string{"Pod"}},
		{name: "metadata of a metadata-only object", path: ".metadata.labels.app", obj: toMetadata(t, pod),
			want: []string{"web"}},
		{name: "escaped dot in a key, typed", path: `{.metadata.annotations.example\.com/team}`, obj: pod,
			want: []string{"payments"}},
		{name: "escaped dot in a key, unstructured", path: `{.metadata.annotations.example\.com/team}`,
			obj: toUnstructured(t, pod), want: []string{"payments"}},
		{name: "owner names, typed", path: "{.metadata.ownerReferences[*].name}", obj: pod,
			want: []string{"web-5d9c7", "holder"}},
		{name: "spec of a metadata-only object", path: ".spec.nodeName", obj: toMetadata(t, pod)},
		{name: "tombstone", path: ".spec.color",
			obj: cache.DeletedFinalStateUnknown{Key: "shop/blue-widget", Obj: widget()}, want: []string{"blue"}},
		{name: "wrong type for an array", path: "{.spec.color[0]}", obj: widget()},
		{name: "unstructured without content", path: ".spec.color", obj: &unstructured.Unstructured{}},
		{name: "not an object", path: ".spec.color", obj: "a string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, err := NewSet(Custom{Name: "custom", JSONPath: tt.path})
			if err != nil {
				t.Fatalf("NewSet(custom=%s) = %v, want nil", tt.path, err)
			}
			def, err := set.Lookup("custom")
			if err != nil {
				t.Fatalf(`Lookup("custom") = %v, want nil`, err)
			}
			got, err := def.Func(tt.obj)
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("%s(%T) = %q, %v, want %q, nil", tt.path, tt.obj, got, err, tt.want)
			}
			if obj, ok := tt.obj.(runtime.Object); ok {
				if got := indexedValues(t, def, obj); !reflect.DeepEqual(got, sorted(tt.want)) {
					t.Errorf("indexed values of %s(%T) = %q, want %q", tt.path, tt.obj, got, sorted(tt.want))
				}
			}
		})
	}
}

func TestCustomDefinition(t *testing.T) {
	tests := []struct {
		name             string
		path             string
		wantDescription  string
		wantMetadataOnly bool
	}{
		{name: "spec", path: ".spec.color", wantDescription: "custom JSONPath {.spec.color}"},
		{name: "metadata", path: "metadata.labels.team", wantDescription: "custom JSONPath {.metadata.labels.team}",
			wantMetadataOnly: true},
		{name: "metadata filter", path: `{.metadata.ownerReferences[?(@.controller==true)].name}`,
			wantDescription:  `custom JSONPath {.metadata.ownerReferences[?(@.controller==true)].name}`,
			wantMetadataOnly: true},
		{name: "union touching spec", path: "{['metadata','spec']}",
			wantDescription: "custom JSONPath {.['metadata','spec']}"},
		{name: "recursive", path: "{..name}", wantDescription: "custom JSONPath {..name}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, err := NewSet(Custom{Name: "custom", JSONPath: tt.path})
			if err != nil {
				t.Fatalf("NewSet(custom=%s) = %v, want nil", tt.path, err)
			}
			def, err := set.Lookup("custom")
			if err != nil {
				t.Fatalf(`Lookup("custom") = %v, want nil`, err)
			}
			if def.Name != "custom" || def.Description != tt.wantDescription || def.MetadataOnly != tt.wantMetadataOnly {
				t.Errorf("Lookup(custom=%s) = {%q, %q, %v}, want {%q, %q, %v}", tt.path,
					def.Name, def.Description, def.MetadataOnly, "custom", tt.wantDescription, tt.wantMetadataOnly)
			}
		})
	}
}

// TestCustomIndexConcurrent evaluates one custom index from many goroutines, as several informers
// do; run it with -race.
func TestCustomIndexConcurrent(t *testing.T) {
	set, err := NewSet(Custom{Name: "img", JSONPath: "{.spec.containers[*].image}"})
	if err != nil {
		t.Fatalf("NewSet() = %v, want nil", err)
	}
	def, err := set.Lookup("img")
	if err != nil {
		t.Fatalf(`Lookup("img") = %v, want nil`, err)
	}
	objects := []interface{}{runningPod(), toUnstructured(t, runningPod()), deployment(), widget()}
	want := make([][]string, len(objects))
	for i, obj := range objects {
		want[i], _ = def.Func(obj)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; n < 200; n++ {
				i := (g + n) % len(objects)
				got, err := def.Func(objects[i])
				if err != nil || !reflect.DeepEqual(got, want[i]) {
					errs <- fmt.Errorf("img(%T) = %q, %v, want %q, nil", objects[i], got, err, want[i])
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestCustomMetadataShortcut checks that converting only the metadata of a typed object, for a
// path under metadata, gives what converting the whole object gives.
func TestCustomMetadataShortcut(t *testing.T) {
	objects := []runtime.Object{runningPod(), pendingPod(), deployment(), namespace(), cronJob(), toMetadata(t, runningPod())}
	tests := []struct {
		name string
		path string
	}{
		{name: "name", path: ".metadata.name"},
		{name: "namespace", path: ".metadata.namespace"},
		{name: "labels", path: ".metadata.labels"},
		{name: "label", path: ".metadata.labels.app"},
		{name: "owners", path: "{.metadata.ownerReferences[*].kind}"},
		{name: "whole metadata", path: ".metadata"},
		{name: "absent", path: ".metadata.deletionTimestamp"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			def, err := compileCustom(Custom{Name: "custom", JSONPath: tt.path})
			if err != nil {
				t.Fatalf("compileCustom(%s) = %v, want nil", tt.path, err)
			}
			if !def.MetadataOnly {
				t.Fatalf("compileCustom(%s).MetadataOnly = false, want true", tt.path)
			}
			full := &jsonPathIndex{name: "custom", expr: mustRelax(t, tt.path)}
			full.pool.New = func() any { return full.newJSONPath() }
			for _, obj := range objects {
				got, _ := def.Func(obj)
				want, _ := full.indexFunc(obj)
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s(%T) = %q, want %q as with the whole object converted", tt.path, obj, got, want)
				}
			}
		})
	}
}

func mustRelax(t *testing.T, path string) string {
	t.Helper()
	expr, err := RelaxedJSONPath(path)
	if err != nil {
		t.Fatalf("RelaxedJSONPath(%q) = %v, want nil", path, err)
	}
	return expr
}
