package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// errTooLarge is returned by a limitedReader past its limit.
var errTooLarge = errors.New("document too large")

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
			return d.jsonError(dec, "", notManifestError{errNotObject})
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
		return d.jsonError(dec, where, notManifestError{errNotObject})
	}
	return d.fromMap(m, where, true, func(err error) error { return d.jsonError(dec, where, err) })
}

// jsonObject reads the rest of a top-level JSON object whose '{' was read:
// its items one at a time when it has an items array, whole otherwise.
func (d *decoder) jsonObject(dec *json.Decoder, lr *limitedReader) error {
	fields := map[string]interface{}{}
	var items []listItem
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
				item, err := d.jsonItem(dec, fields)
				if err != nil {
					return d.jsonError(dec, fmt.Sprintf("item %d", i), err)
				}
				items = append(items, item)
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
		return d.object(fields, true, fail)
	}
	return d.list(fields, items, fail)
}

// jsonItem decodes the next item of a list whose other fields read so far
// are fields: into its Go type where Options.Typed knows its kind (the
// list's, when the item has none and the list's kind came first), else
// into a map.
func (d *decoder) jsonItem(dec *json.Decoder, fields map[string]interface{}) (listItem, error) {
	var v interface{}
	if d.opts.Typed != nil {
		u := &itemUnmarshaler{d: d, fields: fields}
		if err := dec.Decode(u); err != nil {
			return listItem{}, err
		}
		if u.err != nil || u.item.obj != nil {
			return u.item, u.err
		}
		v = u.v
	} else if err := dec.Decode(&v); err != nil {
		return listItem{}, err
	}
	m, ok := v.(map[string]interface{})
	if !ok {
		return listItem{}, errNotObject
	}
	conv, err := convert(m, d.opts.MaxDepth)
	if err != nil {
		return listItem{}, err
	}
	return listItem{m: conv.(map[string]interface{})}, nil
}

// itemUnmarshaler decodes one item of a list from the bytes a
// json.Decoder hands it, without a copy of them: typed where it can, else
// into v as the map path reads it.
type itemUnmarshaler struct {
	d      *decoder
	fields map[string]interface{}
	item   listItem
	v      interface{}
	// err is the item's own error, kept apart from the decoder's.
	err error
}

func (u *itemUnmarshaler) UnmarshalJSON(raw []byte) error {
	kind, apiVersion := itemDefaults(u.fields)
	u.item.obj, u.err = u.d.typedObject(raw, kind, apiVersion)
	if u.err != nil || u.item.obj != nil {
		return nil
	}
	inner := json.NewDecoder(bytes.NewReader(raw))
	inner.UseNumber()
	u.err = inner.Decode(&u.v)
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
