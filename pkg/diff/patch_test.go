package diff

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
)

// applyPatch applies ops to old with evanphx/json-patch and returns the
// result decoded with encoding/json.
func applyPatch(t testing.TB, old map[string]interface{}, ops []PatchOp) interface{} {
	t.Helper()
	doc, err := json.Marshal(old)
	if err != nil {
		t.Fatalf("encoding old: %v", err)
	}
	raw, err := json.Marshal(ops)
	if err != nil {
		t.Fatalf("encoding patch: %v", err)
	}
	if len(ops) == 0 {
		raw = []byte("[]")
	}
	patch, err := jsonpatch.DecodePatch(raw)
	if err != nil {
		t.Fatalf("DecodePatch(%s) = %v, want nil", raw, err)
	}
	out, err := patch.Apply(doc)
	if err != nil {
		t.Fatalf("applying %s to %s: %v", raw, doc, err)
	}
	return decodeJSON(t, out)
}

// decodeJSON decodes with encoding/json defaults, numbers as float64.
func decodeJSON(t testing.TB, b []byte) interface{} {
	t.Helper()
	var v interface{}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("decoding %s: %v", b, err)
	}
	return v
}

// normalize round-trips v through JSON, so numbers compare as float64.
func normalize(t testing.TB, v interface{}) interface{} {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("encoding %v: %v", v, err)
	}
	return decodeJSON(t, b)
}

var patchTests = []compareTest{
	{
		name: "list grows by several",
		old:  `{"a": [1]}`,
		new:  `{"a": [1, 2, 3, [4], {"x": 5}]}`,
	},
	{
		name: "list shrinks by several",
		old:  `{"a": [1, 2, 3, [4], {"x": 5}]}`,
		new:  `{"a": [0]}`,
	},
	{
		name: "lists shrink and change inside",
		old:  `{"a": [{"b": [1, 2, 3]}, {"b": [1]}, 3, 4]}`,
		new:  `{"a": [{"b": [1]}, {"b": [1, 2]}]}`,
	},
	{
		name: "named list reordered is patched by index",
		old:  `{"c": [{"name": "a", "v": 1}, {"name": "b", "v": 2}, {"name": "c", "v": 3}]}`,
		new:  `{"c": [{"name": "c", "v": 3}, {"name": "a", "v": 1}]}`,
	},
	{
		name: "keys needing escapes",
		old:  `{"a/b": 1, "c~d": {"e/~f": 1}, "~01": 1, "": {"": 1}, "x": {"y z": 1}}`,
		new:  `{"a/b": 2, "c~d": {"e/~f": 2}, "~01": 2, "": {"": 2}, "x": {"y z": 2, "/": 1}}`,
	},
	{
		name: "null values",
		old:  `{"a": 1, "b": null, "c": [1, null], "d": {"e": null}}`,
		new:  `{"a": null, "b": 1, "c": [null, null, null], "d": {"e": null, "f": null}, "g": null}`,
	},
	{
		name:   "ignore inside list elements that shrink",
		old:    `{"items": [{"id": 1, "t": "a"}, {"id": 2, "t": "b"}, {"id": 3, "t": "c"}]}`,
		new:    `{"items": [{"id": 9, "t": "x"}]}`,
		ignore: []string{"items[*].t"},
		target: `{"items": [{"id": 9, "t": "a"}, {"t": "b"}, {"t": "c"}]}`,
	},
	{
		name:   "ignore one element of a list that shrinks",
		old:    `{"items": ["a", "b", "c", "d"]}`,
		new:    `{"items": ["a"]}`,
		ignore: []string{"items[2]"},
		target: `{"items": ["a", "c"]}`,
	},
	{
		name:   "only one element of a list that grows",
		old:    `{"items": ["a"]}`,
		new:    `{"items": ["a", "b", "c", "d"]}`,
		only:   []string{"items[2]"},
		target: `{"items": ["a", "c"]}`,
	},
	{
		name:   "only under a list that is removed",
		old:    `{"items": [{"a": 1, "b": 1}, {"a": 2, "b": 2}], "z": 1}`,
		new:    `{"z": 2}`,
		only:   []string{"items[*].a"},
		target: `{"items": [{"b": 1}, {"b": 2}], "z": 1}`,
	},
	{
		name:   "redact does not apply",
		old:    `{"data": {"p": "a"}}`,
		new:    `{"data": {"p": "b"}}`,
		redact: []string{"data"},
	},
}

func TestJSONPatchApplies(t *testing.T) {
	type patchCase struct {
		compareTest
		fromCompare bool // Compare's want is known
	}
	var cases []patchCase
	for _, tt := range compareTests {
		cases = append(cases, patchCase{tt, true})
	}
	for _, tt := range patchTests {
		cases = append(cases, patchCase{tt, false})
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			old, new := obj(t, tt.old), obj(t, tt.new)
			ops := JSONPatch(old, new, tt.options(t))
			want := normalize(t, new)
			if tt.target != "" {
				want = normalize(t, obj(t, tt.target))
			} else if len(tt.ignore)+len(tt.only) > 0 || tt.defaultIgnore {
				t.Fatalf("test %q filters but has no target", tt.name)
			}
			got := applyPatch(t, old, ops)
			if !reflect.DeepEqual(got, want) {
				raw, _ := json.Marshal(ops)
				t.Errorf("applying JSONPatch(%s, %s) = %s\ngives %s\nwant  %s", tt.old, tt.new, raw, jsonString(got), jsonString(want))
			}
			if tt.fromCompare && len(tt.want) == 0 && len(ops) > 0 && !strings.Contains(tt.name, "reorder") {
				t.Errorf("JSONPatch(%s, %s) = %v, want no operations as Compare finds no change", tt.old, tt.new, ops)
			}
		})
	}
}

func TestJSONPatchPod(t *testing.T) {
	old, new := podPair(t, func(p map[string]interface{}) {
		md := field(p, "metadata")
		md["resourceVersion"] = "48214"
		field(md, "labels")["tier"] = "backend"
		delete(field(md, "annotations"), "prometheus.io/scrape")
		spec := field(p, "spec")
		containers := spec["containers"].([]interface{})
		spec["containers"] = containers[:1]
		containers[0].(map[string]interface{})["image"] = "nginx:1.28"
	})
	ops := JSONPatch(old, new, Options{Ignore: DefaultIgnore()})
	got, err := json.Marshal(ops)
	if err != nil {
		t.Fatalf("encoding patch: %v", err)
	}
	want := `[{"op":"remove","path":"/metadata/annotations/prometheus.io~1scrape"},` +
		`{"op":"replace","path":"/metadata/labels/tier","value":"backend"},` +
		`{"op":"replace","path":"/spec/containers/0/image","value":"nginx:1.28"},` +
		`{"op":"remove","path":"/spec/containers/1"}]`
	if string(got) != want {
		t.Errorf("JSONPatch(pod, edited pod) = %s, want %s", got, want)
	}
}

func TestJSONPatchExact(t *testing.T) {
	tests := []struct {
		name     string
		old, new string
		want     string
	}{
		{
			name: "identical",
			old:  `{"a": [1, {"b": null}]}`,
			new:  `{"a": [1, {"b": null}]}`,
			want: `[]`,
		},
		{
			name: "shrink removes from the end first",
			old:  `{"a": [1, 2, 3, 4]}`,
			new:  `{"a": [9, 2]}`,
			want: `[{"op":"replace","path":"/a/0","value":9},{"op":"remove","path":"/a/3"},{"op":"remove","path":"/a/2"}]`,
		},
		{
			name: "grow adds in order",
			old:  `{"a": [1]}`,
			new:  `{"a": [1, 2, 3]}`,
			want: `[{"op":"add","path":"/a/1","value":2},{"op":"add","path":"/a/2","value":3}]`,
		},
		{
			name: "null values are kept",
			old:  `{"a": 1, "b": 1}`,
			new:  `{"a": null, "b": 1, "c": null}`,
			want: `[{"op":"replace","path":"/a","value":null},{"op":"add","path":"/c","value":null}]`,
		},
		{
			name: "pointer escapes",
			old:  `{"a/b": 1, "c~d": 1}`,
			new:  `{"a/b": 2, "c~d": 2}`,
			want: `[{"op":"replace","path":"/a~1b","value":2},{"op":"replace","path":"/c~0d","value":2}]`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(JSONPatch(obj(t, tt.old), obj(t, tt.new), Options{}))
			if err != nil {
				t.Fatalf("encoding patch: %v", err)
			}
			if string(got) != tt.want {
				t.Errorf("JSONPatch(%s, %s) = %s, want %s", tt.old, tt.new, got, tt.want)
			}
		})
	}
}

func TestPatchOpMarshalJSON(t *testing.T) {
	tests := []struct {
		op   PatchOp
		want string
	}{
		{PatchOp{Op: "add", Path: "/a", Value: nil}, `{"op":"add","path":"/a","value":null}`},
		{PatchOp{Op: "replace", Path: "/a", Value: "x"}, `{"op":"replace","path":"/a","value":"x"}`},
		{PatchOp{Op: "remove", Path: "/a"}, `{"op":"remove","path":"/a"}`},
	}
	for _, tt := range tests {
		t.Run(tt.op.Op, func(t *testing.T) {
			got, err := json.Marshal(tt.op)
			if err != nil {
				t.Fatalf("json.Marshal(%v) = %v, want nil", tt.op, err)
			}
			if string(got) != tt.want {
				t.Errorf("json.Marshal(%v) = %s, want %s", tt.op, got, tt.want)
			}
		})
	}
}
