package manifest

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// scanKinds returns the kinds of the objects in data, one file's bytes,
// without decoding them: the kind and apiVersion of each document's top
// level, or of each item of a list (an item without them takes the list's
// kind without "List", as the decoder gives it). any is set when the scan
// cannot tell (flow style, anchors, quoted keys, tabs, a document that is
// not a map of plain keys, an item the decoder would refuse): the file may
// then hold objects of any kind, or an error to report, and is read
// whatever the question. A file whose first document is a well-formed map
// without kind or items holds no objects (the decoder skips it): no kinds,
// not any.
//
// The kinds found may be more than the file holds (a document the decoder
// refuses after all), never fewer: a file is read for every kind found.
func scanKinds(data []byte) (kinds []schema.GroupVersionKind, any bool) {
	data = bytes.TrimPrefix(data, []byte{0xEF, 0xBB, 0xBF})
	first := bytes.TrimLeft(data, " \t\r\n")
	if len(first) == 0 {
		return nil, false
	}
	if first[0] == '{' || first[0] == '[' {
		return scanJSONKinds(first)
	}
	return scanYAMLKinds(data)
}

// kindSet gathers kinds once each, in the order found.
type kindSet struct {
	kinds []schema.GroupVersionKind
}

func (k *kindSet) add(kind, apiVersion string) bool {
	if kind == "" || apiVersion == "" {
		return false
	}
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return false
	}
	gvk := gv.WithKind(kind)
	for _, have := range k.kinds {
		if have == gvk {
			return true
		}
	}
	k.kinds = append(k.kinds, gvk)
	return true
}

// yamlDoc is what the scan learns of one YAML document.
type yamlDoc struct {
	kind, apiVersion string
	hasItems         bool
	// blank: only white space and comments.
	blank bool
	items []yamlItem
}

type yamlItem struct{ kind, apiVersion string }

// scanYAMLKinds scans YAML documents in block style: the keys at column 0,
// and the keys of the items of a top-level items sequence.
func scanYAMLKinds(data []byte) ([]schema.GroupVersionKind, bool) {
	if otherBreaks(data) {
		return nil, true
	}
	var set kindSet
	docs := 0
	doc := yamlDoc{blank: true}
	// itemIndent is the column of the items sequence's dashes, -1 before
	// the first; inItems says the lines read belong to items.
	itemIndent, inItems := -1, false
	// scalarAt is the column of the mapping whose kind or apiVersion the
	// last line gave a plain value, -1 after any other line: a line
	// indented more continues that value (a multi-line plain scalar),
	// which the scan does not read.
	scalarAt := -1
	finish := func() bool {
		defer func() { doc, itemIndent, inItems, scalarAt = yamlDoc{blank: true}, -1, false, -1 }()
		if doc.blank {
			return true
		}
		docs++
		if !doc.hasItems {
			if doc.kind == "" {
				// Not an object: the decoder skips a file whose first
				// document is such, and fails on a later one.
				return docs == 1
			}
			return set.add(doc.kind, doc.apiVersion)
		}
		if doc.kind != "" && !strings.HasSuffix(doc.kind, "List") {
			return false
		}
		listKind := strings.TrimSuffix(doc.kind, "List")
		for _, it := range doc.items {
			kind, apiVersion := it.kind, it.apiVersion
			if kind == "" {
				kind = listKind
			}
			if apiVersion == "" && listKind != "" {
				apiVersion = doc.apiVersion
			}
			if !set.add(kind, apiVersion) {
				return false
			}
		}
		return true
	}
	for len(data) > 0 {
		var line []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			line, data = data, nil
		}
		line = bytes.TrimRight(line, "\r")
		if isSeparator(line) {
			if !finish() {
				return nil, true
			}
			continue
		}
		trimmed := bytes.TrimLeft(line, " ")
		if len(trimmed) == 0 || trimmed[0] == '#' {
			continue
		}
		if trimmed[0] == '\t' {
			return nil, true
		}
		indent := len(line) - len(trimmed)
		if scalarAt >= 0 && indent > scalarAt {
			return nil, true
		}
		scalarAt = -1
		if indent == 0 && !(inItems && trimmed[0] == '-' && itemIndent <= 0) {
			// A key of the document's top level.
			if bytes.Equal(trimmed, []byte("...")) {
				continue
			}
			doc.blank = false
			inItems = false
			key, value, ok := yamlKey(trimmed)
			if !ok {
				return nil, true
			}
			switch key {
			case "kind":
				doc.kind, scalarAt = value, 0
			case "apiVersion":
				doc.apiVersion, scalarAt = value, 0
			case "items":
				doc.hasItems = true
				switch value {
				case "", "[]", "null", "~":
				default:
					return nil, true
				}
				inItems = value == ""
			}
			continue
		}
		if !inItems {
			continue
		}
		if itemIndent < 0 {
			if trimmed[0] != '-' {
				return nil, true
			}
			itemIndent = indent
		}
		switch {
		case indent == itemIndent && trimmed[0] == '-':
			doc.items = append(doc.items, yamlItem{})
			rest := bytes.TrimLeft(trimmed[1:], " ")
			if len(rest) == len(trimmed)-1 && len(rest) > 0 {
				// "-x": not a sequence entry.
				return nil, true
			}
			if len(rest) == 0 || rest[0] == '#' {
				continue
			}
			scalar, ok := itemKey(&doc.items[len(doc.items)-1], rest)
			if !ok {
				return nil, true
			}
			if scalar {
				scalarAt = indent + len(trimmed) - len(rest)
			}
		case indent == itemIndent+2 && trimmed[0] != '-':
			scalar, ok := itemKey(&doc.items[len(doc.items)-1], trimmed)
			if !ok {
				return nil, true
			}
			if scalar {
				scalarAt = indent
			}
		case indent <= itemIndent+1:
			// Anything else at the items' own level is not an item.
			return nil, true
		}
	}
	if !finish() {
		return nil, true
	}
	return set.kinds, false
}

// otherBreaks reports whether data breaks lines other than at "\n" or
// "\r\n": YAML also breaks at a lone "\r" and at NEL, LS and PS, which
// the scans, reading lines between "\n"s, do not.
func otherBreaks(data []byte) bool {
	for rest := data; ; {
		i := bytes.IndexByte(rest, '\r')
		if i < 0 {
			break
		}
		if i+1 == len(rest) || rest[i+1] != '\n' {
			return true
		}
		rest = rest[i+1:]
	}
	return bytes.Contains(data, []byte("\u0085")) || bytes.Contains(data, []byte("\u2028")) || bytes.Contains(data, []byte("\u2029"))
}

// itemKey reads one key of an item; scalar says it gave the item's kind
// or apiVersion.
func itemKey(it *yamlItem, line []byte) (scalar, ok bool) {
	key, value, ok := yamlKey(line)
	if !ok {
		return false, false
	}
	switch key {
	case "kind":
		it.kind = value
		return true, true
	case "apiVersion":
		it.apiVersion = value
		return true, true
	}
	return false, true
}

// yamlKey splits a plain "key: value" or "key:" line; ok is false for
// anything else (a quoted or complex key, a merge key, a flow value for
// kind or apiVersion).
func yamlKey(line []byte) (key, value string, ok bool) {
	i := 0
	for i < len(line) {
		c := line[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' || c == '/' {
			i++
			continue
		}
		break
	}
	if i == 0 || i >= len(line) || line[i] != ':' || (i+1 < len(line) && line[i+1] != ' ') {
		return "", "", false
	}
	key = string(line[:i])
	v := bytes.TrimSpace(line[i+1:])
	if j := bytes.Index(v, []byte(" #")); j >= 0 {
		v = bytes.TrimSpace(v[:j])
	}
	if len(v) > 0 && v[0] == '#' {
		v = nil
	}
	if key != "kind" && key != "apiVersion" && key != "items" {
		return key, "", true
	}
	if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
		v = v[1 : len(v)-1]
		if bytes.ContainsAny(v, `\'"`) {
			return "", "", false
		}
	}
	if key != "items" && (len(v) == 0 || bytes.ContainsAny(v, "{}[]&*!|>'\"%@`,")) {
		return "", "", false
	}
	return key, string(v), true
}

// scanJSONKinds scans JSON values one after another: each object's top
// level, or its items when it has them; an array's elements as documents.
func scanJSONKinds(data []byte) ([]schema.GroupVersionKind, bool) {
	var set kindSet
	docs := 0
	i := 0
	// object scans the object at data[i], a document or an element of an
	// array, and adds its kinds.
	object := func() bool {
		var kind, apiVersion string
		var items []yamlItem
		hasItems := false
		i++ // '{'
		for {
			i = skipSpace(data, i)
			if i >= len(data) {
				return false
			}
			if data[i] == '}' {
				i++
				break
			}
			key, next, ok := jsonMemberKey(data, i)
			if !ok {
				return false
			}
			i = next
			switch {
			case (key == "kind" || key == "apiVersion") && data[i] == '"':
				end, escaped := stringEnd(data, i)
				if end < 0 || escaped || !utf8.Valid(data[i+1:end-1]) {
					// The decoder reads escapes and invalid UTF-8 as
					// other text: the file is read instead.
					return false
				}
				if key == "kind" {
					kind = string(data[i+1 : end-1])
				} else {
					apiVersion = string(data[i+1 : end-1])
				}
				i = end
			case key == "items" && data[i] == '[':
				hasItems = true
				i++
				for {
					i = skipSpace(data, i)
					if i >= len(data) {
						return false
					}
					if data[i] == ']' {
						i++
						break
					}
					if data[i] == ',' {
						i = skipSpace(data, i+1)
					}
					if i >= len(data) || data[i] != '{' {
						return false
					}
					var it yamlItem
					if !itemHeader(data, &i, &it) {
						return false
					}
					items = append(items, it)
				}
			case key == "items" && bytes.HasPrefix(data[i:], []byte("null")):
				hasItems = true
				i += 4
			case key == "kind" || key == "apiVersion" || key == "items":
				return false
			default:
				j, _ := skipValue(data, i, 1<<30)
				if j < 0 {
					return false
				}
				i = j
			}
		}
		if !hasItems {
			if kind == "" {
				return docs == 1
			}
			return set.add(kind, apiVersion)
		}
		if kind != "" && !strings.HasSuffix(kind, "List") {
			return false
		}
		itemKind := strings.TrimSuffix(kind, "List")
		for _, it := range items {
			k, v := it.kind, it.apiVersion
			if k == "" {
				k = itemKind
			}
			if v == "" && itemKind != "" {
				v = apiVersion
			}
			if !set.add(k, v) {
				return false
			}
		}
		return true
	}
	for {
		i = skipSpace(data, i)
		if i >= len(data) {
			return set.kinds, false
		}
		switch data[i] {
		case '{':
			docs++
			if !object() {
				return nil, true
			}
		case '[':
			docs++
			i++
			for {
				i = skipSpace(data, i)
				if i >= len(data) {
					return nil, true
				}
				if data[i] == ']' {
					i++
					break
				}
				if data[i] == ',' {
					i = skipSpace(data, i+1)
				}
				if i >= len(data) || data[i] != '{' {
					return nil, true
				}
				if !object() {
					return nil, true
				}
			}
		default:
			if bytes.HasPrefix(data[i:], []byte("null")) {
				i += 4
				continue
			}
			return nil, true
		}
	}
}

// itemHeader scans the item object at data[*i] for its top-level kind and
// apiVersion, leaving *i after it.
func itemHeader(data []byte, i *int, it *yamlItem) bool {
	j := *i + 1
	for {
		j = skipSpace(data, j)
		if j >= len(data) {
			return false
		}
		if data[j] == '}' {
			*i = j + 1
			return true
		}
		key, next, ok := jsonMemberKey(data, j)
		if !ok {
			return false
		}
		j = next
		if key == "kind" || key == "apiVersion" {
			if data[j] != '"' {
				return false
			}
			end, escaped := stringEnd(data, j)
			if end < 0 || escaped || !utf8.Valid(data[j+1:end-1]) {
				return false
			}
			if key == "kind" {
				it.kind = string(data[j+1 : end-1])
			} else {
				it.apiVersion = string(data[j+1 : end-1])
			}
			j = end
			continue
		}
		k, _ := skipValue(data, j, 1<<30)
		if k < 0 {
			return false
		}
		j = k
	}
}

// identity is what identifies the one object of a file, and its
// resourceVersion.
type identity struct {
	key             objectKey
	resourceVersion string
}

// scanIdentity scans data, one YAML document in block style, for its
// object's apiVersion, kind, and metadata's name, namespace and
// resourceVersion, without decoding it; ok is false for anything else
// (JSON, several documents, a list, a value the scan cannot read plainly).
func scanIdentity(data []byte) (id identity, ok bool) {
	if otherBreaks(data) {
		return id, false
	}
	var apiVersion, kind string
	docs, top, metaIndent := 0, "", -1
	inDoc := false
	for len(data) > 0 {
		var line []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			line, data = data, nil
		}
		line = bytes.TrimRight(line, "\r")
		if isSeparator(line) {
			inDoc = false
			continue
		}
		trimmed := bytes.TrimLeft(line, " ")
		if len(trimmed) == 0 || trimmed[0] == '#' {
			continue
		}
		if !inDoc {
			inDoc = true
			docs++
			if docs > 1 {
				return id, false
			}
		}
		if trimmed[0] == '\t' {
			return id, false
		}
		indent := len(line) - len(trimmed)
		if indent == 0 {
			key, value, ok := plainKeyValue(trimmed)
			top = key
			if !ok {
				switch key {
				case "apiVersion", "kind", "metadata", "items", "":
					return id, false
				}
				continue
			}
			switch key {
			case "apiVersion":
				apiVersion = value
			case "kind":
				kind = value
			case "items":
				return id, false
			case "metadata":
				if value != "" {
					return id, false
				}
			}
			continue
		}
		if top != "metadata" {
			continue
		}
		if metaIndent < 0 {
			metaIndent = indent
		}
		if indent != metaIndent {
			continue
		}
		key, value, ok := plainKeyValue(trimmed)
		if !ok {
			switch key {
			case "name", "namespace", "resourceVersion":
				return id, false
			}
			continue
		}
		switch key {
		case "name":
			id.key.name = value
		case "namespace":
			id.key.namespace = value
		case "resourceVersion":
			id.resourceVersion = value
		}
	}
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil || kind == "" || apiVersion == "" || id.key.name == "" || id.resourceVersion == "" {
		return id, false
	}
	id.key.group, id.key.kind = gv.Group, kind
	return id, true
}

// plainKeyValue splits a plain "key: value" or "key:" line whose value,
// if any, is a plain or simply quoted scalar.
func plainKeyValue(line []byte) (key, value string, ok bool) {
	i := 0
	for i < len(line) {
		c := line[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' || c == '/' {
			i++
			continue
		}
		break
	}
	if i == 0 || i >= len(line) || line[i] != ':' || (i+1 < len(line) && line[i+1] != ' ') {
		return "", "", false
	}
	v := bytes.TrimSpace(line[i+1:])
	if j := bytes.Index(v, []byte(" #")); j >= 0 {
		v = bytes.TrimSpace(v[:j])
	}
	if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
		v = v[1 : len(v)-1]
		if bytes.ContainsAny(v, `\'"`) {
			return "", "", false
		}
	} else if len(v) > 0 && bytes.ContainsAny(v[:1], "{}[]&*!|>%@`") {
		return string(line[:i]), "", false
	}
	return string(line[:i]), string(v), true
}

// jsonMemberKey reads the next key of a JSON object at data[i] (after its '{'
// or a member, skipped space included): an optional ',', the quoted key
// and its ':'. It returns the key and the position of its value; ok is
// false when data does not hold one there, or the key has escapes (the
// kinds' keys have none).
func jsonMemberKey(data []byte, i int) (key string, value int, ok bool) {
	if data[i] == ',' {
		i = skipSpace(data, i+1)
	}
	if i >= len(data) || data[i] != '"' {
		return "", 0, false
	}
	end, escaped := stringEnd(data, i)
	if end < 0 || escaped {
		return "", 0, false
	}
	key = string(data[i+1 : end-1])
	i = skipSpace(data, end)
	if i >= len(data) || data[i] != ':' {
		return "", 0, false
	}
	i = skipSpace(data, i+1)
	if i >= len(data) {
		return "", 0, false
	}
	return key, i, true
}
