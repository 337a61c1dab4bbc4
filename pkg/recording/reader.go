package recording

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/watch"
)

// Reader reads a recording, one event at a time, reconstructing each
// object whole. It is not safe for concurrent use.
type Reader struct {
	name      string
	file      *os.File // nil for NewReader
	gz        *gzip.Reader
	in        *bufio.Reader
	header    Header
	records   int            // records read, the header included
	last      map[key][]byte // each live object's last state
	err       error          // returned by every Next after the first failure
	truncated bool
	line      []byte
}

// Open opens the recording at path and reads its header. Errors name the
// file.
func Open(path string) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("opening recording: %w", err)
	}
	r, err := newReader(f, path)
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	r.file = f
	return r, nil
}

// NewReader reads a recording from in and reads its header. Errors call
// it "recording".
func NewReader(in io.Reader) (*Reader, error) {
	return newReader(in, "recording")
}

func newReader(in io.Reader, name string) (*Reader, error) {
	r := &Reader{name: name, last: map[key][]byte{}}
	gz, err := gzip.NewReader(bufio.NewReaderSize(in, 64<<10))
	if err != nil {
		return nil, fmt.Errorf("%s: not a recording (not gzip-compressed): %w", name, err)
	}
	gz.Multistream(false)
	r.gz = gz
	r.in = bufio.NewReaderSize(gz, 64<<10)
	line, err := r.readLine()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: not a recording: it ends before its header", name)
		}
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r.header); err != nil {
		return nil, fmt.Errorf("%s: record 1: not a recording header: %w", name, err)
	}
	if err := r.header.validate(); err != nil {
		return nil, fmt.Errorf("%s: record 1: %w", name, err)
	}
	return r, nil
}

// Header returns the recording's header.
func (r *Reader) Header() Header { return r.header }

// Truncated reports whether the file ended in the middle of a record or
// of its compressed stream: Next returned io.EOF after the last complete
// event, and what followed it is lost.
func (r *Reader) Truncated() bool { return r.truncated }

// Records returns how many records Next has read, the header included.
func (r *Reader) Records() int { return r.records }

// Close closes the file Open opened.
func (r *Reader) Close() error {
	r.last = nil
	if r.file != nil {
		return r.file.Close()
	}
	return nil
}

// Next returns the next event, io.EOF after the last one (and after the
// last complete one of a cut-off file, see Truncated), or an error naming
// the file and the record. After an error every call returns it again.
func (r *Reader) Next() (Event, error) {
	if r.err != nil {
		return Event{}, r.err
	}
	ev, err := r.next()
	if err != nil {
		r.err = err
		r.last = nil
	}
	return ev, err
}

// readLine returns the next record's bytes, valid until the next call;
// io.EOF at a clean end.
func (r *Reader) readLine() ([]byte, error) {
	r.line = r.line[:0]
	for {
		chunk, err := r.in.ReadSlice('\n')
		if len(r.line)+len(chunk) > MaxRecordSize {
			return nil, fmt.Errorf("%s: record %d: longer than %d bytes", r.name, r.records+1, MaxRecordSize)
		}
		r.line = append(r.line, chunk...)
		switch {
		case err == nil:
			r.records++
			return r.line[:len(r.line)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(r.line) == 0:
			return nil, io.EOF
		case errors.Is(err, io.EOF):
			// The stream ended cleanly without the record's newline:
			// the writer never leaves one, so the file was cut.
			r.truncated = true
			return nil, io.EOF
		case errors.Is(err, io.ErrUnexpectedEOF):
			r.truncated = true
			return nil, io.EOF
		default:
			return nil, fmt.Errorf("%s: record %d: %w", r.name, r.records+1, err)
		}
	}
}

func (r *Reader) next() (Event, error) {
	line, err := r.readLine()
	if err != nil {
		return Event{}, err
	}
	fail := func(format string, args ...interface{}) (Event, error) {
		return Event{}, fmt.Errorf("%s: record %d: %s", r.name, r.records, fmt.Sprintf(format, args...))
	}
	var rec record
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rec); err != nil {
		return fail("not an event: %v", err)
	}
	if dec.More() {
		return fail("not an event: more than one JSON value")
	}
	typ, ok := eventTypes[rec.Event]
	if !ok {
		return fail("event type %q is not A, M or D", rec.Event)
	}
	k, err := r.decodeKey(rec.Key)
	if err != nil {
		return fail("%v", err)
	}
	if len(rec.Object) > 0 && len(rec.Patch) > 0 {
		return fail("an event holds both an object and a patch")
	}
	prev, known := r.last[k]
	var obj map[string]interface{}
	switch {
	case len(rec.Object) > 0:
		if err := utiljson.Unmarshal(rec.Object, &obj); err != nil || obj == nil {
			return fail("the object is not a JSON object: %v", err)
		}
	case !known:
		return fail("%s of %s, an object not recorded before", typ, r.describe(k))
	case len(rec.Patch) > 0:
		var patch map[string]interface{}
		if err := utiljson.Unmarshal(rec.Patch, &patch); err != nil || patch == nil {
			return fail("the patch is not a JSON object: %v", err)
		}
		if err := utiljson.Unmarshal(prev, &obj); err != nil {
			return fail("%v", err)
		}
		obj = applyMergePatch(obj, patch).(map[string]interface{})
	case typ == watch.Deleted:
		if err := utiljson.Unmarshal(prev, &obj); err != nil {
			return fail("%v", err)
		}
	default:
		return fail("%s of %s holds neither an object nor a patch", typ, r.describe(k))
	}
	u := &unstructured.Unstructured{Object: obj}
	if u.GetNamespace() != k.namespace || u.GetName() != k.name || u.GetUID() != k.uid {
		return fail("the object %s/%s (uid %q) does not match its key %s", u.GetNamespace(), u.GetName(), u.GetUID(), r.describe(k))
	}
	switch {
	case typ == watch.Deleted:
		delete(r.last, k)
	case len(rec.Object) > 0:
		r.last[k] = rec.Object
	default:
		b, err := json.Marshal(obj)
		if err != nil {
			return fail("%v", err)
		}
		if len(b) > MaxRecordSize {
			return fail("%s grows to %d bytes, more than %d", r.describe(k), len(b), MaxRecordSize)
		}
		r.last[k] = b
	}
	return Event{Time: rec.Time, Type: typ, Initial: rec.Initial, TypeIndex: k.typeIndex, Object: u}, nil
}

// decodeKey checks a record's key: [type index, namespace, name, uid].
func (r *Reader) decodeKey(raw json.RawMessage) (key, error) {
	var parts []json.RawMessage
	if err := json.Unmarshal(raw, &parts); err != nil || len(parts) != 4 {
		return key{}, fmt.Errorf("the key %.100s is not [type, namespace, name, uid]", raw)
	}
	var k key
	var uid string
	if err := json.Unmarshal(parts[0], &k.typeIndex); err != nil {
		return key{}, fmt.Errorf("the key's type %.40s is not an integer", parts[0])
	}
	if k.typeIndex < 0 || k.typeIndex >= len(r.header.Types) {
		return key{}, fmt.Errorf("the key's type %d is not one of the header's %d types", k.typeIndex, len(r.header.Types))
	}
	for i, dst := range []*string{&k.namespace, &k.name, &uid} {
		if err := json.Unmarshal(parts[i+1], dst); err != nil {
			return key{}, fmt.Errorf("the key's part %d is not a string", i+2)
		}
	}
	if k.name == "" {
		return key{}, fmt.Errorf("the key has no name")
	}
	k.uid = types.UID(uid)
	return k, nil
}

// describe names a key's object for errors.
func (r *Reader) describe(k key) string {
	s := r.header.Types[k.typeIndex].Resource + " "
	if k.namespace != "" {
		s += k.namespace + "/"
	}
	return s + k.name
}
