package server

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/kubectl-informer/kubectl-informer/pkg/object"
	"github.com/kubectl-informer/kubectl-informer/pkg/recording"
)

// This file holds one segment of a rolling recording: a recording file
// that starts with the state of every recorded source, and the state the
// segment has recorded so far, which de-duplicates the events of several
// sources of one type.

// SegmentNameLayout is how a segment's file name (before ".rec") gives the
// UTC time it starts at: fixed width, so names sort as their times.
const SegmentNameLayout = recording.SegmentNameLayout

// segKey identifies an object in a segment, as recording keys do.
type segKey struct {
	typeIndex       int
	namespace, name string
	uid             types.UID
}

// segObject is what the segment knows of a recorded object: its last
// recorded resourceVersion and the sources that hold it now.
type segObject struct {
	resourceVersion string
	holders         map[*recSource]struct{}
}

// segment is one open segment file.
type segment struct {
	path    string
	started time.Time
	w       *recording.Writer
	types   map[string]int // by recSource.resource
	kinds   []schema.GroupVersionKind
	state   map[segKey]*segObject
	dirty   bool
}

// createSegment creates the segment file of a recording starting at
// started in dir, with header's types; a name taken already (two cuts in
// one nanosecond) moves the start on by a nanosecond.
func createSegment(dir string, header recording.Header) (*segment, error) {
	for {
		header.Started = header.Started.UTC()
		path := filepath.Join(dir, header.Started.Format(SegmentNameLayout)+recording.SegmentExt)
		w, err := recording.Create(path, header)
		if errors.Is(err, os.ErrExist) {
			header.Started = header.Started.Add(time.Nanosecond)
			continue
		}
		if err != nil {
			return nil, err
		}
		s := &segment{path: path, started: header.Started, w: w, types: map[string]int{}, state: map[segKey]*segObject{}}
		for i, t := range header.Types {
			s.types[t.GroupVersionResource().String()] = i
			s.kinds = append(s.kinds, t.GroupVersionKind())
		}
		return s, nil
	}
}

// apply records ev unless the segment holds its object at the same or a
// later resourceVersion already (another source, or the segment's initial
// state, saw it first). A delete is recorded once no source holds the
// object any more. initial marks the events of the segment's initial
// state.
func (s *segment) apply(ev recEvent, initial bool) (written bool, err error) {
	obj := ev.obj
	if tombstone, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	i, ok := s.types[ev.src.resource]
	if !ok {
		return false, nil // a source dropped since the segment started
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return false, fmt.Errorf("an event of %s: %w", ev.src.resource, err)
	}
	k := segKey{typeIndex: i, namespace: m.GetNamespace(), name: m.GetName(), uid: m.GetUID()}
	rv := m.GetResourceVersion()
	known := s.state[k]
	typ := ev.typ
	switch {
	case typ == watch.Deleted && known == nil:
		return false, nil
	case typ == watch.Deleted:
		delete(known.holders, ev.src)
		if len(known.holders) > 0 {
			return false, nil
		}
		delete(s.state, k)
	case known != nil:
		known.holders[ev.src] = struct{}{}
		if !newerVersion(rv, known.resourceVersion) {
			return false, nil
		}
		known.resourceVersion = rv
		typ = watch.Modified
	default:
		s.state[k] = &segObject{resourceVersion: rv, holders: map[*recSource]struct{}{ev.src: {}}}
		typ = watch.Added
	}
	content, err := object.Content(obj)
	if err != nil {
		return false, fmt.Errorf("an event of %s %s/%s: %w", ev.src.resource, k.namespace, k.name, err)
	}
	if content["apiVersion"] == nil || content["kind"] == nil {
		apiVersion, kind := s.kinds[i].ToAPIVersionAndKind()
		content["apiVersion"], content["kind"] = apiVersion, kind
	}
	s.dirty = true
	err = s.w.Write(recording.Event{Time: ev.time, Type: typ, Initial: initial, TypeIndex: i,
		Object: &unstructured.Unstructured{Object: content}})
	return err == nil, err
}

// newerVersion reports whether resourceVersion a is later than b: by
// number when both are numbers (as every etcd-backed server's are),
// otherwise when they differ.
func newerVersion(a, b string) bool {
	x, errA := strconv.ParseUint(a, 10, 64)
	y, errB := strconv.ParseUint(b, 10, 64)
	if errA == nil && errB == nil {
		return x > y
	}
	return a != b
}

func (s *segment) flush() error {
	if !s.dirty {
		return nil
	}
	s.dirty = false
	return s.w.Flush()
}

func (s *segment) close() error { return s.w.Close() }
