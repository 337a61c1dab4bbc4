package diff

import (
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/kubectl-informer/kubectl-informer/pkg/terminal"
)

func FuzzParsePath(f *testing.F) {
	for _, seed := range []string{
		"metadata.labels",
		"metadata.labels['app.kubernetes.io/name']",
		`metadata.annotations["a\"b\\c\u001b"]`,
		"spec.containers[name=web].image",
		"spec.containers[*].ports[0].containerPort",
		"spec.containers[].env[name='A B']",
		"status.conditions[type=Ready]",
		"metadata.*.app",
		`a['x=y'=z]`,
		"['*'].x[007]",
		"spec..x",
		"a[",
		"a['b",
		"a[=]",
		"a]",
		"\xff",
		"",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePath(s)
		if err != nil {
			msg := err.Error()
			if !strings.HasPrefix(msg, "invalid path ") {
				t.Errorf("ParsePath(%q) error = %q, want it to start with %q", s, msg, "invalid path ")
			}
			if terminal.SanitizeText(msg) != msg {
				t.Errorf("ParsePath(%q) error = %q, want no control characters", s, msg)
			}
			return
		}
		str := p.String()
		if terminal.SanitizeText(str) != str {
			t.Errorf("ParsePath(%q).String() = %q, want no control characters", s, str)
		}
		again, err := ParsePath(str)
		if err != nil {
			t.Fatalf("ParsePath(%q) = %v, want nil (from ParsePath(%q).String())", str, err, s)
		}
		if !reflect.DeepEqual(again, p) {
			t.Errorf("ParsePath(%q) = %#v, want %#v as from ParsePath(%q)", str, again, p, s)
		}
		if again.String() != str {
			t.Errorf("ParsePath(%q).String() = %q, want %q", str, again.String(), str)
		}
	})
}

// fuzzPaths are concrete key paths the fuzzer's options pick from; bit i of
// the selector byte picks fuzzPaths[i%3], as an Ignore path for bits 0–2
// and an Only path for bits 3–5.
var fuzzPaths = [][]string{{"a"}, {"a", "b"}, {"b", "a"}}

func FuzzCompareJSONPatch(f *testing.F) {
	for _, seed := range []struct {
		old, new string
		sel      uint8
	}{
		{`{"a": 1}`, `{"a": 2}`, 0},
		{`{"a": {"b": 1, "c": [1, 2]}}`, `{"a": {"b": 2, "c": [1]}}`, 2},
		{`{"a": [1, 2, 3]}`, `{"a": [3]}`, 0},
		{`{"a": [{"name": "x", "v": 1}, {"name": "y"}]}`, `{"a": [{"name": "y"}, {"name": "x", "v": 2}, {"name": "z"}]}`, 0},
		{`{"a": null, "b": {"a": 1}}`, `{"b": {"a": null}, "c": null}`, 4},
		{`{"a/b": {"~": 1}, "": 2}`, `{"a/b": {"~": 2}, "": [3]}`, 0},
		{`{"a": {"b": 1, "c": 1}}`, `{}`, 1 << 3},
		{`{"b": {"a": 1, "c": 1}}`, `{"b": "x", "a": {"b": 1}}`, 2 | 1<<4},
		{`{"a": {"b": {"c": 1}}}`, `{"a": 5}`, 2},
	} {
		f.Add(seed.old, seed.new, seed.sel)
	}
	f.Fuzz(func(t *testing.T, oldJSON, newJSON string, sel uint8) {
		if len(oldJSON)+len(newJSON) > 4096 {
			return
		}
		var old, new map[string]interface{}
		if json.Unmarshal([]byte(oldJSON), &old) != nil || json.Unmarshal([]byte(newJSON), &new) != nil || old == nil || new == nil {
			return
		}
		var opts Options
		var ignore, only [][]string
		for i := 0; i < 6; i++ {
			if sel&(1<<i) == 0 {
				continue
			}
			keys := fuzzPaths[i%3]
			p := Path{}
			for _, k := range keys {
				p.segs = append(p.segs, segment{kind: segKey, key: k})
			}
			if i < 3 {
				opts.Ignore, ignore = append(opts.Ignore, p), append(ignore, keys)
			} else {
				opts.Only, only = append(opts.Only, p), append(only, keys)
			}
		}

		ops := JSONPatch(old, new, opts)
		got := applyPatch(t, old, ops)
		want := normalize(t, fuzzTarget(old, new, ignore, only))
		if !reflect.DeepEqual(got, want) {
			raw, _ := json.Marshal(ops)
			t.Fatalf("applying JSONPatch(%s, %s, ignore %q, only %q) = %s\ngives %s\nwant  %s", oldJSON, newJSON, ignore, only, raw, jsonString(got), jsonString(want))
		}

		changes := Compare(old, new, opts)
		if Changed(old, new, opts) != (len(changes) > 0) {
			t.Errorf("Changed(%s, %s) = %v, want %v as Compare returns %q", oldJSON, newJSON, !(len(changes) > 0), len(changes) > 0, changeLines(changes))
		}
		if len(changes) > 0 && len(ops) == 0 {
			t.Errorf("Compare(%s, %s) = %q but JSONPatch is empty", oldJSON, newJSON, changeLines(changes))
		}
		for _, c := range changes {
			if _, err := ParsePath(c.Path); err != nil {
				t.Errorf("ParsePath(%q) = %v, want nil", c.Path, err)
			}
		}
		if err := WriteCompact(io.Discard, changes, "", true); err != nil {
			t.Errorf("WriteCompact() = %v, want nil", err)
		}
		if err := Unified(io.Discard, "old", "new", old, new, opts, 3, true); err != nil {
			t.Errorf("Unified() = %v, want nil", err)
		}
	})
}

// fuzzTarget computes, independently of the walker, what JSONPatch must turn
// old into: old with the only paths (or everything) taken from new, then the
// ignore paths taken back from old.
func fuzzTarget(old, new map[string]interface{}, ignore, only [][]string) map[string]interface{} {
	var res map[string]interface{}
	if len(only) == 0 {
		res = deepCopy(new).(map[string]interface{})
	} else {
		res = deepCopy(old).(map[string]interface{})
		for _, p := range only {
			if !underAny(p, ignore) {
				copyPath(res, new, p, true)
			}
		}
	}
	for _, p := range ignore {
		copyPath(res, old, p, false)
	}
	return res
}

// underAny reports whether keys is at or under one of the paths.
func underAny(keys []string, paths [][]string) bool {
	for _, p := range paths {
		if len(p) <= len(keys) && reflect.DeepEqual(p, keys[:len(p)]) {
			return true
		}
	}
	return false
}

// copyPath sets the value at keys in dst to the one in src, or deletes it
// if src has none. Missing parents are created; a parent that is not a map
// is replaced if replace is set, and otherwise left alone.
func copyPath(dst, src map[string]interface{}, keys []string, replace bool) {
	v, ok := lookup(src, keys)
	cur := dst
	for _, k := range keys[:len(keys)-1] {
		next, present := cur[k]
		m, isMap := next.(map[string]interface{})
		switch {
		case isMap:
		case !ok:
			return // nothing to delete
		case present && !replace:
			return
		default:
			m = map[string]interface{}{}
			cur[k] = m
		}
		cur = m
	}
	last := keys[len(keys)-1]
	if ok {
		cur[last] = deepCopy(v)
	} else {
		delete(cur, last)
	}
}

func lookup(m map[string]interface{}, keys []string) (interface{}, bool) {
	var v interface{} = m
	for _, k := range keys {
		mm, ok := v.(map[string]interface{})
		if !ok {
			return nil, false
		}
		if v, ok = mm[k]; !ok {
			return nil, false
		}
	}
	return v, true
}

func deepCopy(v interface{}) interface{} {
	switch x := v.(type) {
	case map[string]interface{}:
		out := make(map[string]interface{}, len(x))
		for k, e := range x {
			out[k] = deepCopy(e)
		}
		return out
	case []interface{}:
		out := make([]interface{}, len(x))
		for i, e := range x {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}
