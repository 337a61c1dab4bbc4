package manifest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// decoder reads the documents of one file, YAML or JSON, and hands each
// object to add.
type decoder struct {
	opts Options
	// name is the file's path, or "standard input".
	name string
	add  func(runtime.Object)
	// doc counts the documents read, from 1.
	doc int
}

// errNotObject says a document or item is not a map.
var errNotObject = errors.New("not a Kubernetes object (a YAML or JSON map with kind and apiVersion)")

// errNoKind and errNoAPIVersion say a map is not a Kubernetes object.
var (
	errNoKind       = errors.New("object has no kind")
	errNoAPIVersion = errors.New("object has no apiVersion")
)

// notManifestError says a document, well-formed, is not a Kubernetes
// object or list at all.
type notManifestError struct{ err error }

func (e notManifestError) Error() string { return e.err.Error() }
func (e notManifestError) Unwrap() error { return e.err }

// notManifest marks err as a notManifestError when it is about a whole
// document (top), not an item of a list.
func (d *decoder) notManifest(top bool, err error) error {
	if top {
		return notManifestError{err}
	}
	return err
}

// decode reads in whole: JSON values if its first character opens one,
// YAML documents otherwise; the pod logs a cluster-info dump writes
// between its lists are left out.
func (d *decoder) decode(in io.Reader) error {
	br := bufio.NewReaderSize(newLogBlockFilter(in), 64*1024)
	first, err := firstByte(br)
	if err == io.EOF {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: %w", d.name, err)
	}
	if first == '{' || first == '[' {
		return d.decodeJSON(br)
	}
	return d.decodeYAML(br)
}

// firstByte skips a UTF-8 byte order mark and white space and returns the
// next byte, unread.
func firstByte(br *bufio.Reader) (byte, error) {
	if b, err := br.Peek(3); err == nil && bytes.Equal(b, []byte{0xEF, 0xBB, 0xBF}) {
		_, _ = br.Discard(3)
	}
	for {
		b, err := br.Peek(1)
		if err != nil {
			return 0, err
		}
		switch b[0] {
		case ' ', '\t', '\r', '\n':
			_, _ = br.Discard(1)
			continue
		}
		return b[0], nil
	}
}

// fromMap hands over m, an object or a list, decoded whole.
func (d *decoder) fromMap(m map[string]interface{}, where string, top bool, fail func(error) error) error {
	conv, err := convert(m, d.opts.MaxDepth)
	if err != nil {
		return fail(err)
	}
	m = conv.(map[string]interface{})
	raw, hasItems := m["items"]
	if !hasItems {
		return d.object(m, top, fail)
	}
	var items []listItem
	if raw != nil {
		list, ok := raw.([]interface{})
		if !ok {
			return fail(fmt.Errorf("items is not a list"))
		}
		for i, item := range list {
			im, ok := item.(map[string]interface{})
			if !ok {
				return fail(fmt.Errorf("item %d: %w", i, errNotObject))
			}
			items = append(items, listItem{m: im})
		}
	}
	delete(m, "items")
	return d.list(m, items, fail)
}

// listItem is one item of a list: decoded into its Go type, or a map.
type listItem struct {
	obj runtime.Object
	m   map[string]interface{}
}

// itemDefaults returns the kind and apiVersion that the items of a list
// whose fields are fields take when they lack their own: those of a typed
// list (PodList: Pod), none for a list of kind List or not yet known.
func itemDefaults(fields map[string]interface{}) (kind, apiVersion string) {
	listKind, _ := fields["kind"].(string)
	if !strings.HasSuffix(listKind, "List") {
		return "", ""
	}
	kind = strings.TrimSuffix(listKind, "List")
	if kind == "" {
		return "", ""
	}
	apiVersion, _ = fields["apiVersion"].(string)
	return kind, apiVersion
}

// list hands over the items of a list whose other fields are fields. Items
// without kind and apiVersion take the list's kind without "List" and its
// apiVersion (a typed list: PodList); a list of kind List has no default.
func (d *decoder) list(fields map[string]interface{}, items []listItem, fail func(error) error) error {
	kind, _ := fields["kind"].(string)
	apiVersion, _ := fields["apiVersion"].(string)
	if kind != "" && !strings.HasSuffix(kind, "List") {
		return fail(fmt.Errorf("kind %s has items but is not a list", kind))
	}
	itemKind := strings.TrimSuffix(kind, "List")
	for i, li := range items {
		if li.obj != nil {
			d.add(li.obj)
			continue
		}
		item := li.m
		if itemKind != "" {
			if _, ok := item["kind"]; !ok {
				item["kind"] = itemKind
			}
			if _, ok := item["apiVersion"]; !ok && apiVersion != "" {
				item["apiVersion"] = apiVersion
			}
		}
		where := fmt.Sprintf("item %d", i)
		if err := d.object(item, false, func(err error) error { return fail(fmt.Errorf("%s: %w", where, err)) }); err != nil {
			return err
		}
	}
	return nil
}

// object checks and hands over one object.
func (d *decoder) object(m map[string]interface{}, top bool, fail func(error) error) error {
	obj := &unstructured.Unstructured{Object: m}
	kind, ok := m["kind"].(string)
	if !ok || kind == "" {
		return fail(d.notManifest(top, errNoKind))
	}
	if v, ok := m["apiVersion"].(string); !ok || v == "" {
		return fail(d.notManifest(top, fmt.Errorf("%s: %w", kind, errNoAPIVersion)))
	}
	if md, ok := m["metadata"]; ok {
		if _, ok := md.(map[string]interface{}); !ok {
			return fail(fmt.Errorf("%s: metadata is not an object", kind))
		}
	}
	name, _, err := unstructured.NestedString(m, "metadata", "name")
	if err != nil {
		return fail(fmt.Errorf("%s: %w", kind, err))
	}
	if name == "" {
		return fail(fmt.Errorf("%s has no metadata.name", kind))
	}
	for _, field := range []string{"namespace", "resourceVersion"} {
		if _, _, err := unstructured.NestedString(m, "metadata", field); err != nil {
			return fail(fmt.Errorf("%s %s: %w", kind, name, err))
		}
	}
	if d.opts.Typed != nil {
		gvk := obj.GroupVersionKind()
		if typed := d.opts.Typed(gvk); typed != nil {
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, typed); err != nil {
				return fail(fmt.Errorf("%s %s: %w", kind, name, err))
			}
			typed.GetObjectKind().SetGroupVersionKind(gvk)
			d.add(typed)
			return nil
		}
	}
	d.add(obj)
	return nil
}

// convert turns json.Numbers into int64 or float64, as the API machinery's
// JSON decoding does, and fails past maxDepth levels of nesting.
func convert(v interface{}, maxDepth int) (interface{}, error) {
	return convertDepth(v, maxDepth)
}

func convertDepth(v interface{}, left int) (interface{}, error) {
	switch t := v.(type) {
	case map[string]interface{}:
		if left == 0 {
			return nil, fmt.Errorf("nested too deeply")
		}
		for k, e := range t {
			c, err := convertDepth(e, left-1)
			if err != nil {
				return nil, err
			}
			t[k] = c
		}
		return t, nil
	case []interface{}:
		if left == 0 {
			return nil, fmt.Errorf("nested too deeply")
		}
		for i, e := range t {
			c, err := convertDepth(e, left-1)
			if err != nil {
				return nil, err
			}
			t[i] = c
		}
		return t, nil
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i, nil
		}
		f, err := t.Float64()
		if err != nil {
			return nil, fmt.Errorf("number %s: %w", t, err)
		}
		return f, nil
	}
	return v, nil
}
