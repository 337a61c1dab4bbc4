package recording

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
)

// This file reads a directory of segments: the rolling recording a warm
// cache keeps (kubectl informer cache start --record DIR). Each segment is
// a whole recording, named by the UTC time it starts at
// (SegmentNameLayout, then SegmentExt), that starts with the state of
// everything it records (Initial events); a segment ends where the next
// one starts. The state at an instant is the state at that instant of the
// segment with the latest start not after it (SegmentAt). Read in order
// (OpenDir), the segments are one recording whose later segments' initial
// states are turned into the changes from the previous segment's end
// state: an Added for an object the previous one did not hold, a Modified
// for one that differs, a Deleted for one the new segment does not hold
// (also when the new segment no longer records its type), nothing for one
// that is equal.

// SegmentNameLayout is the time layout of a segment's file name, in UTC:
// fixed width, so that names sort as their times.
const SegmentNameLayout = "20060102T150405.000000000Z"

// SegmentExt ends every segment's file name.
const SegmentExt = ".rec"

// Segment is one segment file of a directory.
type Segment struct {
	Path  string
	Start time.Time
}

// ListSegments returns the segments of dir sorted by start; other files
// are ignored.
func ListSegments(dir string) ([]Segment, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("reading the segments: %w", err)
	}
	var segs []Segment
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, SegmentExt) {
			continue
		}
		start, err := time.Parse(SegmentNameLayout, strings.TrimSuffix(name, SegmentExt))
		if err != nil {
			continue
		}
		segs = append(segs, Segment{Path: filepath.Join(dir, name), Start: start})
	}
	sort.Slice(segs, func(i, j int) bool { return segs[i].Start.Before(segs[j].Start) })
	return segs, nil
}

// IsSegmentDir reports whether path is a directory holding at least one
// segment.
func IsSegmentDir(path string) bool {
	fi, err := os.Stat(path)
	if err != nil || !fi.IsDir() {
		return false
	}
	segs, err := ListSegments(path)
	return err == nil && len(segs) > 0
}

// SegmentAt returns the segment of dir that holds instant at: the one with
// the latest start not after at. It fails when dir holds no segment or at
// is before the first.
func SegmentAt(dir string, at time.Time) (Segment, error) {
	segs, err := ListSegments(dir)
	if err != nil {
		return Segment{}, fmt.Errorf("%s: %w", dir, err)
	}
	if len(segs) == 0 {
		return Segment{}, fmt.Errorf("%s: no recording segments (files named %s%s)", dir, SegmentNameLayout, SegmentExt)
	}
	i := sort.Search(len(segs), func(i int) bool { return segs[i].Start.After(at) })
	if i == 0 {
		return Segment{}, fmt.Errorf("%s: %s is before the first segment, which starts at %s", dir,
			at.UTC().Format(time.RFC3339Nano), segs[0].Start.Format(time.RFC3339Nano))
	}
	return segs[i-1], nil
}

// StateAtDir returns the objects of dir's segments as they were at at (see
// SegmentAt and StateAt), with the header of the segment that holds them.
func StateAtDir(dir string, at time.Time) (Header, []*unstructured.Unstructured, error) {
	seg, err := SegmentAt(dir, at)
	if err != nil {
		return Header{}, nil, err
	}
	r, err := Open(seg.Path)
	if err != nil {
		return Header{}, nil, err
	}
	defer r.Close()
	objs, err := StateAt(r, at)
	return r.Header(), objs, err
}

// DirReader reads a directory of segments as one recording (see the file
// comment). It is not safe for concurrent use.
type DirReader struct {
	dir    string
	segs   []Segment
	header Header
	// typeMaps maps each segment's type indexes to the union header's.
	typeMaps [][]int

	next      int     // the next segment to open
	r         *Reader // the segment read now
	mapping   []int
	pending   []Event // events to return before reading on
	state     map[key]*unstructured.Unstructured
	truncated bool
	err       error
}

// OpenDir opens the segments of dir and reads their headers: the
// recording's header lists the union of their types, in the order they
// first appear, and the first segment's start and server.
func OpenDir(dir string) (*DirReader, error) {
	segs, err := ListSegments(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	if len(segs) == 0 {
		return nil, fmt.Errorf("%s: no recording segments (files named %s%s)", dir, SegmentNameLayout, SegmentExt)
	}
	d := &DirReader{dir: dir, segs: segs, state: map[key]*unstructured.Unstructured{}}
	index := map[schema.GroupVersionResource]int{}
	for i, seg := range segs {
		r, err := Open(seg.Path)
		if err != nil {
			return nil, err
		}
		h := r.Header()
		_ = r.Close()
		if i == 0 {
			d.header = h
			d.header.Types = nil
		}
		var m []int
		for _, t := range h.Types {
			id := t.GroupVersionResource()
			j, ok := index[id]
			if !ok {
				j = len(d.header.Types)
				index[id] = j
				d.header.Types = append(d.header.Types, t)
			}
			m = append(m, j)
		}
		d.typeMaps = append(d.typeMaps, m)
	}
	// The segments may narrow namespaces and selectors differently.
	d.header.Namespaces, d.header.LabelSelector, d.header.FieldSelector = nil, "", ""
	return d, nil
}

// Header returns the union header (see OpenDir).
func (d *DirReader) Header() Header { return d.header }

// Segments returns the segments read, in order.
func (d *DirReader) Segments() []Segment { return d.segs }

// Truncated reports whether a segment read so far, the last one aside,
// was cut short. The last segment of a running cache is being written: it
// reads up to its last flushed event, as one cut short does.
func (d *DirReader) Truncated() bool { return d.truncated }

// Close closes the segment read now.
func (d *DirReader) Close() error {
	d.state = nil
	if d.r != nil {
		return d.r.Close()
	}
	return nil
}

// Next returns the next event of the directory, with its type index in
// the union header; io.EOF after the last segment's last event.
func (d *DirReader) Next() (Event, error) {
	if d.err != nil {
		return Event{}, d.err
	}
	ev, err := d.nextEvent()
	if err != nil {
		d.err = err
		return Event{}, err
	}
	k := key{typeIndex: ev.TypeIndex, namespace: ev.Object.GetNamespace(), name: ev.Object.GetName(), uid: ev.Object.GetUID()}
	if ev.Type == watch.Deleted {
		delete(d.state, k)
	} else {
		d.state[k] = ev.Object
	}
	return ev, nil
}

func (d *DirReader) nextEvent() (Event, error) {
	for {
		if len(d.pending) > 0 {
			ev := d.pending[0]
			d.pending = d.pending[1:]
			return ev, nil
		}
		if d.r == nil {
			if d.next == len(d.segs) {
				return Event{}, io.EOF
			}
			if err := d.openNext(); err != nil {
				return Event{}, err
			}
			continue
		}
		ev, err := d.r.Next()
		if errors.Is(err, io.EOF) {
			d.truncated = d.truncated || (d.r.Truncated() && d.next < len(d.segs))
			_ = d.r.Close()
			d.r = nil
			continue
		}
		if err != nil {
			return Event{}, err
		}
		ev.TypeIndex = d.mapping[ev.TypeIndex]
		return ev, nil
	}
}

// openNext opens the next segment; after the first, it reads the
// segment's initial state and queues its changes from the state so far.
func (d *DirReader) openNext() error {
	seg := d.segs[d.next]
	r, err := Open(seg.Path)
	if err != nil {
		return err
	}
	d.r, d.mapping = r, d.typeMaps[d.next]
	d.next++
	if d.next == 1 {
		return nil
	}
	initial := map[key]*unstructured.Unstructured{}
	var order []key
	at := r.Header().Started
	var first *Event
	for {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			d.truncated = d.truncated || r.Truncated()
			break
		}
		if err != nil {
			return err
		}
		ev.TypeIndex = d.mapping[ev.TypeIndex]
		if !ev.Initial {
			first = &ev
			break
		}
		at = ev.Time
		k := key{typeIndex: ev.TypeIndex, namespace: ev.Object.GetNamespace(), name: ev.Object.GetName(), uid: ev.Object.GetUID()}
		if _, ok := initial[k]; !ok {
			order = append(order, k)
		}
		initial[k] = ev.Object
	}
	var deleted []key
	for k := range d.state {
		if _, ok := initial[k]; !ok {
			deleted = append(deleted, k)
		}
	}
	sortKeys(deleted)
	for _, k := range deleted {
		d.pending = append(d.pending, Event{Time: at, Type: watch.Deleted, TypeIndex: k.typeIndex, Object: d.state[k]})
	}
	for _, k := range order {
		obj := initial[k]
		prev, ok := d.state[k]
		switch {
		case !ok:
			d.pending = append(d.pending, Event{Time: at, Type: watch.Added, TypeIndex: k.typeIndex, Object: obj})
		case !equality.Semantic.DeepEqual(prev.Object, obj.Object):
			d.pending = append(d.pending, Event{Time: at, Type: watch.Modified, TypeIndex: k.typeIndex, Object: obj})
		}
	}
	if first != nil {
		d.pending = append(d.pending, *first)
	}
	return nil
}

// sortKeys orders keys by type, namespace, name and uid.
func sortKeys(keys []key) {
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.typeIndex != b.typeIndex {
			return a.typeIndex < b.typeIndex
		}
		if a.namespace != b.namespace {
			return a.namespace < b.namespace
		}
		if a.name != b.name {
			return a.name < b.name
		}
		return a.uid < b.uid
	})
}

// RecordedUntil returns, for a directory of segments, the modification
// time of its last segment: a running cache keeps it at most a second or
// so old (see pkg/warmcache/server's Recorder), so the directory holds the
// state up to then even when the last event is older. It returns the zero
// time for a file or a directory without segments.
func RecordedUntil(path string) time.Time {
	fi, err := os.Stat(path)
	if err != nil || !fi.IsDir() {
		return time.Time{}
	}
	segs, err := ListSegments(path)
	if err != nil || len(segs) == 0 {
		return time.Time{}
	}
	last, err := os.Stat(segs[len(segs)-1].Path)
	if err != nil {
		return time.Time{}
	}
	return last.ModTime()
}

// Events reads a recording's events in order: a Reader (one file) or a
// DirReader (a directory of segments).
type Events interface {
	Header() Header
	Next() (Event, error)
	Truncated() bool
	Close() error
}

// OpenEvents opens path as a recording: a directory of segments with
// OpenDir, a file with Open.
func OpenEvents(path string) (Events, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return OpenDir(path)
	}
	return Open(path)
}

// IsRecordingPath reports whether path is a recording file (IsRecording)
// or a directory of segments (IsSegmentDir).
func IsRecordingPath(path string) (bool, error) {
	if IsSegmentDir(path) {
		return true, nil
	}
	return IsRecording(path)
}

// StateAtPath returns the objects of the recording at path as they were at
// at, with its header: for a file, StateAt; for a directory of segments,
// StateAtDir's objects with OpenDir's header, which lists every type of
// every segment.
func StateAtPath(path string, at time.Time) (Header, []*unstructured.Unstructured, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		d, err := OpenDir(path)
		if err != nil {
			return Header{}, nil, err
		}
		_ = d.Close()
		_, objs, err := StateAtDir(path, at)
		return d.Header(), objs, err
	}
	r, err := Open(path)
	if err != nil {
		return Header{}, nil, err
	}
	defer r.Close()
	objs, err := StateAt(r, at)
	return r.Header(), objs, err
}
