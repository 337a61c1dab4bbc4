package manifest

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "sigs.k8s.io/json"
)

// header is what a scan of one JSON object's bytes finds without decoding
// it: its top-level kind and apiVersion where they are strings, whether it
// has items, and whether its nesting stays within the bound.
type header struct {
	kind, apiVersion       string
	hasKind, hasAPIVersion bool
	// other says kind or apiVersion is there but not a plain string, or a
	// key is escaped: the map path decides.
	other    bool
	hasItems bool
	tooDeep  bool
}

// scanHeader scans raw, one well-formed JSON object, in one pass; ok is
// false when raw is not an object or the scan meets anything it does not
// expect (the map path then words the error).
func scanHeader(raw []byte, maxDepth int) (h header, ok bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return h, false
	}
	i++
	for {
		i = skipSpace(raw, i)
		if i >= len(raw) {
			return h, false
		}
		if raw[i] == '}' {
			return h, true
		}
		if raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
		if i >= len(raw) || raw[i] != '"' {
			return h, false
		}
		end, escaped := stringEnd(raw, i)
		if end < 0 {
			return h, false
		}
		key := string(raw[i+1 : end-1])
		if escaped {
			h.other = true
		}
		i = skipSpace(raw, end)
		if i >= len(raw) || raw[i] != ':' {
			return h, false
		}
		i = skipSpace(raw, i+1)
		if i >= len(raw) {
			return h, false
		}
		start := i
		var deep bool
		i, deep = skipValue(raw, i, maxDepth-1)
		if i < 0 {
			return h, false
		}
		h.tooDeep = h.tooDeep || deep
		switch key {
		case "kind", "apiVersion":
			var s string
			value := raw[start:i]
			if value[0] != '"' || json.Unmarshal(value, &s) != nil {
				h.other = true
			}
			if key == "kind" {
				h.kind, h.hasKind = s, true
			} else {
				h.apiVersion, h.hasAPIVersion = s, true
			}
		case "items":
			h.hasItems = true
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}

// stringEnd returns the index after the string that opens at b[i], and
// whether it holds escapes; -1 when it does not end.
func stringEnd(b []byte, i int) (int, bool) {
	escaped := false
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			return j + 1, escaped
		}
	}
	return -1, escaped
}

// skipValue returns the index after the value at b[i] and whether it nests
// maps and lists more than left levels deep; -1 on a malformed value.
func skipValue(b []byte, i, left int) (int, bool) {
	depth, deep := 0, false
	for ; i < len(b); i++ {
		switch b[i] {
		case '"':
			end, _ := stringEnd(b, i)
			if end < 0 {
				return -1, deep
			}
			if depth == 0 {
				return end, deep
			}
			i = end - 1
		case '{', '[':
			depth++
			if depth > left {
				deep = true
			}
		case '}', ']':
			if depth == 0 {
				// The end of the map holding a scalar value.
				return i, deep
			}
			depth--
			if depth < 0 {
				return -1, deep
			}
			if depth == 0 {
				return i + 1, deep
			}
		case ',':
			if depth == 0 {
				return i, deep
			}
		}
	}
	if depth == 0 {
		return i, deep
	}
	return -1, deep
}

// typedObject decodes raw, one JSON object, straight into the Go type
// Options.Typed gives for its kind; kind and apiVersion, when raw lacks
// them, are those given (an item of a typed list). It returns nil, nil
// when the map path must read raw: no Typed, a kind Typed does not know,
// or anything unusual about kind, apiVersion or the object's shape.
func (d *decoder) typedObject(raw []byte, kind, apiVersion string) (runtime.Object, error) {
	if d.opts.Typed == nil {
		return nil, nil
	}
	h, ok := scanHeader(raw, d.opts.MaxDepth)
	if !ok || h.other || h.hasItems {
		return nil, nil
	}
	if h.tooDeep {
		return nil, fmt.Errorf("nested too deeply")
	}
	if h.hasKind {
		kind = h.kind
	}
	if h.hasAPIVersion {
		apiVersion = h.apiVersion
	}
	if kind == "" || apiVersion == "" {
		return nil, nil
	}
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, nil
	}
	gvk := gv.WithKind(kind)
	obj := d.opts.Typed(gvk)
	if obj == nil {
		return nil, nil
	}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(raw, obj); err != nil {
		return nil, fmt.Errorf("%s: %w", kind, err)
	}
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", kind, err)
	}
	if m.GetName() == "" {
		return nil, fmt.Errorf("%s has no metadata.name", kind)
	}
	return obj, nil
}
