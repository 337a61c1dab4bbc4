package framework

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// WatchEvent is one line of `kubectl informer watch -o json`.
type WatchEvent struct {
	Type              string                 `json:"type"`
	Object            map[string]interface{} `json:"object"`
	Patch             json.RawMessage        `json:"patch"`
	Managers          []string               `json:"managers"`
	Cause             string                 `json:"cause"`
	FinalStateUnknown bool                   `json:"finalStateUnknown"`
	Coalesced         int                    `json:"coalesced"`
	Note              string                 `json:"note"`

	// Line is the line as printed.
	Line string `json:"-"`
}

// Name returns the event object's metadata.name.
func (e WatchEvent) Name() string { return NestedString(e.Object, "metadata", "name") }

// Kind returns the event object's kind.
func (e WatchEvent) Kind() string { return NestedString(e.Object, "kind") }

// String is the event's type, object and patch (its first 2000 bytes), for
// failure messages.
func (e WatchEvent) String() string {
	s := e.Type + " " + e.Kind() + "/" + e.Name()
	if len(e.Patch) > 0 {
		p := string(e.Patch)
		if len(p) > 2000 {
			p = p[:2000] + "…"
		}
		s += " patch " + p
	}
	if e.Note != "" {
		s += " (" + e.Note + ")"
	}
	return s
}

// Nested returns the value at path in a JSON-like map, or nil.
func Nested(obj map[string]interface{}, path ...string) interface{} {
	v, _, _ := unstructured.NestedFieldNoCopy(obj, path...)
	return v
}

// NestedString returns the string at path in a JSON-like map, or "".
func NestedString(obj map[string]interface{}, path ...string) string {
	s, _, _ := unstructured.NestedString(obj, path...)
	return s
}

// DecodeEvent decodes a line of `watch -o json`, failing the test if it is
// not an event.
func DecodeEvent(t testing.TB, line string) WatchEvent {
	t.Helper()
	var ev WatchEvent
	if err := json.Unmarshal([]byte(line), &ev); err != nil {
		t.Fatalf("watch -o json printed a line that is not an event: %v\n%.2000s", err, line)
	}
	ev.Line = line
	return ev
}

// NextEvent reads and decodes the next line of a `watch -o json` process,
// waiting up to timeout for it.
func NextEvent(t testing.TB, p *Process, timeout time.Duration) WatchEvent {
	t.Helper()
	line, err := p.NextLine(timeout)
	if err != nil {
		t.Fatalf("reading the next watch event: %v; stdout so far:\n%.4000s", err, p.Stdout())
	}
	return DecodeEvent(t, line)
}

// ExpectEvent reads the next event and checks its type and object name.
func ExpectEvent(t testing.TB, p *Process, timeout time.Duration, typ, name string) WatchEvent {
	t.Helper()
	ev := NextEvent(t, p, timeout)
	if ev.Type != typ || ev.Name() != name {
		t.Fatalf("next event = %s, want %s %s", ev, typ, name)
	}
	return ev
}

// PatchOps decodes an event's JSON Patch.
func PatchOps(t testing.TB, ev WatchEvent) []map[string]interface{} {
	t.Helper()
	var ops []map[string]interface{}
	if err := json.Unmarshal(ev.Patch, &ops); err != nil {
		t.Fatalf("decoding the patch of %s: %v", ev, err)
	}
	return ops
}

// CheckPatch applies the patch of the MODIFIED event cur to the object of
// prev and checks that it yields cur's object, but for the metadata fields
// named in ignoreMetadata, which the plugin leaves out of its diffs.
func CheckPatch(t testing.TB, prev, cur WatchEvent, ignoreMetadata ...string) {
	t.Helper()
	if len(cur.Patch) == 0 {
		t.Errorf("%s has no patch", cur)
		return
	}
	patch, err := jsonpatch.DecodePatch(cur.Patch)
	if err != nil {
		t.Errorf("the patch of %s is not a JSON Patch: %v", cur, err)
		return
	}
	before, err := json.Marshal(prev.Object)
	if err != nil {
		t.Fatalf("encoding %s: %v", prev, err)
	}
	after, err := patch.Apply(before)
	if err != nil {
		t.Errorf("applying the patch of %s to the previous object: %v", cur, err)
		return
	}
	want, err := json.Marshal(cur.Object)
	if err != nil {
		t.Fatalf("encoding %s: %v", cur, err)
	}
	var gotObj, wantObj map[string]interface{}
	if err := json.Unmarshal(after, &gotObj); err != nil {
		t.Fatalf("decoding the patched object: %v", err)
	}
	if err := json.Unmarshal(want, &wantObj); err != nil {
		t.Fatalf("copying %s: %v", cur, err)
	}
	for _, obj := range []map[string]interface{}{gotObj, wantObj} {
		if md, ok := obj["metadata"].(map[string]interface{}); ok {
			for _, field := range ignoreMetadata {
				delete(md, field)
			}
		}
	}
	if !reflect.DeepEqual(gotObj, wantObj) {
		gotJSON, _ := json.Marshal(gotObj)
		wantJSON, _ := json.Marshal(wantObj)
		t.Errorf("previous object + patch of %s =\n%.2000s\nwant the event's object\n%.2000s", cur, gotJSON, wantJSON)
	}
}

// Bookkeeping are the metadata fields the plugin leaves out of its diffs: a
// server state that differs from the one before only in them is not a
// change the plugin prints.
var Bookkeeping = []string{"managedFields", "resourceVersion", "generation"}

// WithoutBookkeeping returns a copy of obj without the Bookkeeping fields;
// obj is not changed.
func WithoutBookkeeping(obj map[string]interface{}) map[string]interface{} {
	out := make(map[string]interface{}, len(obj))
	for k, v := range obj {
		out[k] = v
	}
	if md, ok := obj["metadata"].(map[string]interface{}); ok {
		md2 := make(map[string]interface{}, len(md))
		for k, v := range md {
			md2[k] = v
		}
		for _, f := range Bookkeeping {
			delete(md2, f)
		}
		out["metadata"] = md2
	}
	return out
}
