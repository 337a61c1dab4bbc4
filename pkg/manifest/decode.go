package manifest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// decoder reads the documents of one file, YAML or JSON, and hands each
// object to add.
type decoder struct {
	opts Options
	// name is the file's path, or "standard input".
	name string
	add  func(*unstructured.Unstructured)
	// doc counts the documents read, from 1.
	doc int
}

// errNotObject says a document or item is not a map.
var errNotObject = errors.New("not a Kubernetes object (a YAML or JSON map with kind and apiVersion)")

// errTooLarge is returned by a limitedReader past its limit.
var errTooLarge = errors.New("document too large")

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

// limitedReader fails once more than limit bytes were read since mark.
type limitedReader struct {
	r     io.Reader
	n     int64
	mark  int64
	limit int64
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.n-l.mark > l.limit {
		return 0, errTooLarge
	}
	n, err := l.r.Read(p)
	l.n += int64(n)
	return n, err
}

// decodeJSON reads a stream of JSON values (one, several, or one per line).
// A list's items are decoded one at a time, each bounded on its own.
func (d *decoder) decodeJSON(in io.Reader) error {
	lr := &limitedReader{r: in, limit: d.opts.MaxDocumentBytes}
	dec := json.NewDecoder(lr)
	dec.UseNumber()
	for {
		lr.mark = lr.n
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		d.doc++
		if err != nil {
			return d.jsonError(dec, "", err)
		}
		switch tok {
		case json.Delim('{'):
			if err := d.jsonObject(dec, lr); err != nil {
				return err
			}
		case json.Delim('['):
			// A JSON array of objects: each is a document.
			for i := 0; dec.More(); i++ {
				lr.mark = lr.n
				if err := d.jsonValue(dec, fmt.Sprintf("item %d", i)); err != nil {
					return err
				}
			}
			if _, err := dec.Token(); err != nil {
				return d.jsonError(dec, "", err)
			}
		case nil:
			// null: an empty document.
		default:
			return d.jsonError(dec, "", errNotObject)
		}
	}
}

// jsonValue decodes one whole JSON value as an object, or a list of
// objects.
func (d *decoder) jsonValue(dec *json.Decoder, where string) error {
	var v interface{}
	if err := dec.Decode(&v); err != nil {
		return d.jsonError(dec, where, err)
	}
	if v == nil {
		return nil
	}
	m, ok := v.(map[string]interface{})
	if !ok {
		return d.jsonError(dec, where, errNotObject)
	}
	return d.fromMap(m, where, func(err error) error { return d.jsonError(dec, where, err) })
}

// jsonObject reads the rest of a top-level JSON object whose '{' was read:
// its items one at a time when it has an items array, whole otherwise.
func (d *decoder) jsonObject(dec *json.Decoder, lr *limitedReader) error {
	fields := map[string]interface{}{}
	var items []map[string]interface{}
	hasItems := false
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return d.jsonError(dec, "", err)
		}
		key, _ := tok.(string)
		lr.mark = lr.n
		if key == "items" {
			tok, err := dec.Token()
			if err != nil {
				return d.jsonError(dec, "", err)
			}
			if tok == nil {
				hasItems = true
				continue
			}
			if tok != json.Delim('[') {
				return d.jsonError(dec, "", fmt.Errorf("items is not a list"))
			}
			hasItems = true
			for i := 0; dec.More(); i++ {
				lr.mark = lr.n
				var v interface{}
				if err := dec.Decode(&v); err != nil {
					return d.jsonError(dec, fmt.Sprintf("item %d", i), err)
				}
				m, ok := v.(map[string]interface{})
				if !ok {
					return d.jsonError(dec, fmt.Sprintf("item %d", i), errNotObject)
				}
				conv, err := convert(m, d.opts.MaxDepth)
				if err != nil {
					return d.jsonError(dec, fmt.Sprintf("item %d", i), err)
				}
				items = append(items, conv.(map[string]interface{}))
			}
			if _, err := dec.Token(); err != nil {
				return d.jsonError(dec, "", err)
			}
			continue
		}
		var v interface{}
		if err := dec.Decode(&v); err != nil {
			return d.jsonError(dec, "", err)
		}
		conv, err := convert(v, d.opts.MaxDepth)
		if err != nil {
			return d.jsonError(dec, "", err)
		}
		fields[key] = conv
	}
	if _, err := dec.Token(); err != nil {
		return d.jsonError(dec, "", err)
	}
	fail := func(err error) error { return d.jsonError(dec, "", err) }
	if !hasItems {
		return d.object(fields, "", fail)
	}
	return d.list(fields, items, fail)
}

// fromMap hands over m, an object or a list, decoded whole.
func (d *decoder) fromMap(m map[string]interface{}, where string, fail func(error) error) error {
	conv, err := convert(m, d.opts.MaxDepth)
	if err != nil {
		return fail(err)
	}
	m = conv.(map[string]interface{})
	raw, hasItems := m["items"]
	if !hasItems {
		return d.object(m, where, fail)
	}
	var items []map[string]interface{}
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
			items = append(items, im)
		}
	}
	delete(m, "items")
	return d.list(m, items, fail)
}

// list hands over the items of a list whose other fields are fields. Items
// without kind and apiVersion take the list's kind without "List" and its
// apiVersion (a typed list: PodList); a list of kind List has no default.
func (d *decoder) list(fields map[string]interface{}, items []map[string]interface{}, fail func(error) error) error {
	kind, _ := fields["kind"].(string)
	apiVersion, _ := fields["apiVersion"].(string)
	if kind != "" && !strings.HasSuffix(kind, "List") {
		return fail(fmt.Errorf("kind %s has items but is not a list", kind))
	}
	itemKind := strings.TrimSuffix(kind, "List")
	for i, item := range items {
		if itemKind != "" {
			if _, ok := item["kind"]; !ok {
				item["kind"] = itemKind
			}
			if _, ok := item["apiVersion"]; !ok && apiVersion != "" {
				item["apiVersion"] = apiVersion
			}
		}
		where := fmt.Sprintf("item %d", i)
		if err := d.object(item, where, func(err error) error { return fail(fmt.Errorf("%s: %w", where, err)) }); err != nil {
			return err
		}
	}
	return nil
}

// object checks and hands over one object.
func (d *decoder) object(m map[string]interface{}, _ string, fail func(error) error) error {
	obj := &unstructured.Unstructured{Object: m}
	kind, ok := m["kind"].(string)
	if !ok || kind == "" {
		return fail(fmt.Errorf("object has no kind"))
	}
	if v, ok := m["apiVersion"].(string); !ok || v == "" {
		return fail(fmt.Errorf("%s has no apiVersion", kind))
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
	d.add(obj)
	return nil
}

// jsonError words err at the decoder's position: the file, the line where
// the file can be read again to count it, the document, and where in it.
func (d *decoder) jsonError(dec *json.Decoder, where string, err error) error {
	if errors.Is(err, errTooLarge) {
		err = fmt.Errorf("larger than %d bytes", d.opts.MaxDocumentBytes)
	}
	if err == io.ErrUnexpectedEOF {
		err = fmt.Errorf("unexpected end of file (truncated?)")
	}
	pos := fmt.Sprintf("document %d", d.doc)
	if line := lineAt(d.name, dec.InputOffset()); line > 0 {
		pos = fmt.Sprintf("line %d (document %d)", line, d.doc)
	}
	if where != "" {
		pos += ", " + where
	}
	return fmt.Errorf("%s: %s: %w", d.name, pos, err)
}

// lineAt counts the lines of the file at path up to offset; 0 when the
// file cannot be read again.
func lineAt(path string, offset int64) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	line := 1
	buf := make([]byte, 64*1024)
	for offset > 0 {
		n, err := f.Read(buf[:min(int64(len(buf)), offset)])
		line += bytes.Count(buf[:n], []byte{'\n'})
		offset -= int64(n)
		if err != nil {
			break
		}
	}
	return line
}

// decodeYAML reads YAML documents separated by "---" lines, each bounded,
// each converted to JSON by sigs.k8s.io/yaml (go-yaml rejects excessive
// alias expansion and deep nesting).
func (d *decoder) decodeYAML(br *bufio.Reader) error {
	var doc bytes.Buffer
	line, start := 0, 1
	flush := func() error {
		defer doc.Reset()
		if isBlankYAML(doc.Bytes()) {
			return nil
		}
		d.doc++
		return d.yamlDocument(doc.Bytes(), start)
	}
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 && (doc.Len() == 0 || doc.Bytes()[doc.Len()-1] == '\n') {
			line++
			if isSeparator(chunk) {
				if err := flush(); err != nil {
					return err
				}
				start = line + 1
				chunk = nil
			}
		}
		doc.Write(chunk)
		if int64(doc.Len()) > d.opts.MaxDocumentBytes {
			return fmt.Errorf("%s: line %d (document %d): larger than %d bytes", d.name, start, d.doc+1, d.opts.MaxDocumentBytes)
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF:
			return flush()
		case err != nil:
			return fmt.Errorf("%s: line %d: %w", d.name, line, err)
		}
	}
}

// isSeparator reports whether line is a YAML document separator.
func isSeparator(line []byte) bool {
	return bytes.HasPrefix(line, []byte("---")) && len(bytes.TrimSpace(line[3:])) == 0
}

// isBlankYAML reports whether doc holds only white space and comments.
func isBlankYAML(doc []byte) bool {
	for _, l := range bytes.Split(doc, []byte{'\n'}) {
		l = bytes.TrimSpace(l)
		if len(l) > 0 && l[0] != '#' {
			return false
		}
	}
	return true
}

// yamlLine finds go-yaml's "line N" in an error.
var yamlLine = regexp.MustCompile(`line (\d+)`)

// yamlDocument converts one YAML document that starts at line start to JSON
// and reads it.
func (d *decoder) yamlDocument(doc []byte, start int) error {
	pos := fmt.Sprintf("line %d (document %d)", start, d.doc)
	js, err := yaml.YAMLToJSON(doc)
	if err != nil {
		// go-yaml counts lines from the document's start.
		msg := yamlLine.ReplaceAllStringFunc(err.Error(), func(s string) string {
			n, _ := strconv.Atoi(strings.TrimPrefix(s, "line "))
			return fmt.Sprintf("line %d", n+start-1)
		})
		return fmt.Errorf("%s: document %d: %s", d.name, d.doc, strings.TrimPrefix(msg, "error converting YAML to JSON: "))
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	var v interface{}
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("%s: %s: %w", d.name, pos, err)
	}
	if v == nil {
		return nil
	}
	m, ok := v.(map[string]interface{})
	if !ok {
		return fmt.Errorf("%s: %s: %w", d.name, pos, errNotObject)
	}
	return d.fromMap(m, "", func(err error) error { return fmt.Errorf("%s: %s: %w", d.name, pos, err) })
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
