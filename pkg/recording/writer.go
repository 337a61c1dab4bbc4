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
	"time"

	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/watch"
)

// Writer writes a recording. It is not safe for concurrent use.
//
// Events are durable up to the last Flush: Flush ends the compressed
// stream's current block with a sync flush, writes it out and, for a file,
// syncs it to disk. After a write error every later call returns that
// error.
type Writer struct {
	header Header
	file   *os.File // nil for NewWriter
	buf    *bufio.Writer
	gz     *gzip.Writer
	last   map[key][]byte // each live object's last recorded JSON
	time   time.Time      // the last event's time
	err    error
	closed bool

	events, objects int
	line            bytes.Buffer
}

// Create creates a new recording file at path (it refuses a path that
// exists), writes h to it and flushes it.
func Create(path string, h Header) (*Writer, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("creating recording: %w", err)
	}
	w, err := newWriter(f, f, h)
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("writing %s: %w", path, err)
	}
	return w, nil
}

// NewWriter writes a recording with header h to out. Close does not close
// out.
func NewWriter(out io.Writer, h Header) (*Writer, error) {
	return newWriter(out, nil, h)
}

func newWriter(out io.Writer, f *os.File, h Header) (*Writer, error) {
	h.Format, h.Version = Format, CurrentVersion
	if err := h.validate(); err != nil {
		return nil, err
	}
	buf := bufio.NewWriterSize(out, 64<<10)
	gz, err := gzip.NewWriterLevel(buf, gzip.DefaultCompression)
	if err != nil {
		return nil, err
	}
	w := &Writer{header: h, file: f, buf: buf, gz: gz, last: map[key][]byte{}}
	line, err := marshalHeader(h)
	if err != nil {
		return nil, fmt.Errorf("encoding the header: %w", err)
	}
	if err := w.writeLine(line); err != nil {
		return nil, err
	}
	w.time = h.Started
	return w, nil
}

// Write records ev. The object is stored whole the first time its key
// (type, namespace, name, uid) is seen and as a merge patch against its
// last recorded state after that; a delete forgets the key.
func (w *Writer) Write(ev Event) error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return errors.New("writing to a closed recording")
	}
	code, ok := eventCodes[ev.Type]
	if !ok {
		return fmt.Errorf("recording a %q event: not Added, Modified or Deleted", ev.Type)
	}
	if ev.Object == nil {
		return fmt.Errorf("recording a %s event without an object", ev.Type)
	}
	if ev.TypeIndex < 0 || ev.TypeIndex >= len(w.header.Types) {
		return fmt.Errorf("recording an event of type index %d: the header has %d types", ev.TypeIndex, len(w.header.Types))
	}
	t := w.header.Types[ev.TypeIndex]
	if kind := ev.Object.GetKind(); kind != "" && kind != t.Kind {
		return fmt.Errorf("recording a %s as type %d, a %s", kind, ev.TypeIndex, t.Kind)
	}
	k := key{typeIndex: ev.TypeIndex, namespace: ev.Object.GetNamespace(), name: ev.Object.GetName(), uid: ev.Object.GetUID()}
	if k.name == "" {
		return fmt.Errorf("recording a %s without a name", t.Kind)
	}
	if ev.Time.Before(w.time) {
		ev.Time = w.time
	}
	cur, err := json.Marshal(ev.Object.Object)
	if err != nil {
		return fmt.Errorf("encoding %s %s/%s: %w", t.Kind, k.namespace, k.name, err)
	}
	if len(cur) > MaxRecordSize-1024 {
		return fmt.Errorf("recording %s %s/%s: %d bytes, more than a record holds", t.Kind, k.namespace, k.name, len(cur))
	}
	rec := record{Time: ev.Time, Event: code, Initial: ev.Initial}
	rec.Key, _ = json.Marshal([]interface{}{k.typeIndex, k.namespace, k.name, k.uid})
	prev, known := w.last[k]
	switch {
	case !known:
		rec.Object = cur
	default:
		patch, err := w.patch(prev, cur)
		if err != nil {
			return fmt.Errorf("recording %s %s/%s: %w", t.Kind, k.namespace, k.name, err)
		}
		switch {
		case patch == nil:
			rec.Object = cur
		case ev.Type == watch.Deleted && string(patch) == "{}":
		default:
			rec.Patch = patch
		}
	}
	line, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("encoding an event of %s %s/%s: %w", t.Kind, k.namespace, k.name, err)
	}
	if err := w.writeLine(line); err != nil {
		return err
	}
	w.time = ev.Time
	w.events++
	if !known {
		w.objects++
	}
	if ev.Type == watch.Deleted {
		delete(w.last, k)
	} else {
		w.last[k] = cur
	}
	return nil
}

// patch returns the merge patch from prev to cur, or nil when storing cur
// whole is exact where the patch is not, or smaller.
func (w *Writer) patch(prev, cur []byte) ([]byte, error) {
	var p, c map[string]interface{}
	if err := utiljson.Unmarshal(prev, &p); err != nil {
		return nil, err
	}
	if err := utiljson.Unmarshal(cur, &c); err != nil {
		return nil, err
	}
	patch, exact := createMergePatch(p, c)
	if !exact {
		return nil, nil
	}
	b, err := json.Marshal(patch)
	if err != nil {
		return nil, err
	}
	if len(b) >= len(cur) {
		return nil, nil
	}
	return b, nil
}

func (w *Writer) writeLine(line []byte) error {
	w.line.Reset()
	w.line.Write(line)
	w.line.WriteByte('\n')
	if _, err := w.gz.Write(w.line.Bytes()); err != nil {
		w.err = fmt.Errorf("writing the recording: %w", err)
		return w.err
	}
	return nil
}

// Events returns how many events w has written, and Objects how many
// distinct objects (keys) they held.
func (w *Writer) Events() int { return w.events }

// Objects returns how many distinct objects (keys) w's events held.
func (w *Writer) Objects() int { return w.objects }

// Flush makes every event written so far durable: a sync flush of the
// compressor, then the file's buffer, then (for a file) fsync.
func (w *Writer) Flush() error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return errors.New("flushing a closed recording")
	}
	if err := w.gz.Flush(); err != nil {
		w.err = fmt.Errorf("flushing the recording: %w", err)
		return w.err
	}
	return w.flushOut()
}

func (w *Writer) flushOut() error {
	if err := w.buf.Flush(); err != nil {
		w.err = fmt.Errorf("flushing the recording: %w", err)
		return w.err
	}
	if w.file != nil {
		if err := w.file.Sync(); err != nil {
			w.err = fmt.Errorf("syncing the recording: %w", err)
			return w.err
		}
	}
	return nil
}

// Close ends the compressed stream, flushes it and closes the file
// Create opened. Closing twice returns nil.
func (w *Writer) Close() error {
	if w.closed {
		return nil
	}
	w.closed = true
	err := w.err
	if err == nil {
		if cerr := w.gz.Close(); cerr != nil {
			err = fmt.Errorf("closing the recording: %w", cerr)
		} else {
			err = w.flushOut()
		}
	}
	if w.file != nil {
		if cerr := w.file.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("closing the recording: %w", cerr)
		}
	}
	w.last = nil
	return err
}
