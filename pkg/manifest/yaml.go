package manifest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"sigs.k8s.io/yaml"
)

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

// yamlLine finds go-yaml's "line N" in an error; it is compiled on first
// use.
var yamlLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`line (\d+)`) })

// yamlDocument converts one YAML document that starts at line start to JSON
// and reads it.
func (d *decoder) yamlDocument(doc []byte, start int) error {
	pos := fmt.Sprintf("line %d (document %d)", start, d.doc)
	js, err := yaml.YAMLToJSON(doc)
	if err != nil {
		// go-yaml counts lines from the document's start.
		msg := yamlLine().ReplaceAllStringFunc(err.Error(), func(s string) string {
			n, _ := strconv.Atoi(strings.TrimPrefix(s, "line "))
			return fmt.Sprintf("line %d", n+start-1)
		})
		return fmt.Errorf("%s: document %d: %s", d.name, d.doc, strings.TrimPrefix(msg, "error converting YAML to JSON: "))
	}
	if obj, err := d.typedObject(js, "", ""); err != nil {
		return fmt.Errorf("%s: %s: %w", d.name, pos, err)
	} else if obj != nil {
		d.add(obj)
		return nil
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
		return fmt.Errorf("%s: %s: %w", d.name, pos, notManifestError{errNotObject})
	}
	return d.fromMap(m, "", true, func(err error) error { return fmt.Errorf("%s: %s: %w", d.name, pos, err) })
}
