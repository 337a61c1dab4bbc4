package server

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/klog/v2"

	"github.com/kubectl-informer/kubectl-informer/pkg/recording"
	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/protocol"
)

// A Recorder keeps a rolling recording of what a Pool holds, in a
// directory of segment files (see pkg/recording's segments): each segment
// is a whole recording named by the UTC time it starts at, that starts
// with the state of every recorded object (Initial events) and then holds
// every change. The recorder starts a new segment every Every, whenever
// the set of recorded types or their sources changes (a type first used,
// an entry evicted: the new segment's header lists the types it records),
// and when its queue overflows; it deletes a segment whole once the next
// one started more than Retain ago. What it records of the pool is said in
// Pool.recordPlan: each type once, from its widest entry when there is one,
// else the union of its entries; objects as the entry keeps them, so
// managedFields only when that entry keeps them.
//
// The informers never wait for it: their handlers put events on a bounded
// queue (recordQueueLimit) that one goroutine writes; an overflow drops
// events and starts a new segment from the informers' state, and is
// logged. Nothing is written to the cluster.
type Recorder struct {
	dir           string
	retain, every time.Duration
	server        string
	plan          func() []recType
	changes       <-chan struct{}
	q             *recQueue
	now           func() time.Time

	// Owned by Run's goroutine.
	cur      []recType
	removers map[interface{}]func()
	sources  map[interface{}]*recSource
	seg      *segment
	// touched is when the segment's modification time was last set.
	touched time.Time

	mu     sync.Mutex
	status protocol.RecordingStatus
}

// RecordOptions configure a Recorder.
type RecordOptions struct {
	// Dir holds the segments; it is created (0700) when missing, and must
	// be a directory of the user's own.
	Dir string
	// Retain is how long the recording reaches back: a segment is deleted
	// once the one after it started more than Retain ago.
	Retain time.Duration
	// Server is the API server the pool reads, for the segments' headers.
	Server string
}

// MinRotation is the shortest time between two segments cut for their age.
const MinRotation = time.Minute

// flushEvery bounds how long a recorded event waits before it is flushed
// to disk (and so survives a crash).
const flushEvery = 250 * time.Millisecond

// NewRecorder returns a recorder of pool into opts.Dir, after checking
// (and making) the directory. Run starts it.
func NewRecorder(pool *Pool, opts RecordOptions) (*Recorder, error) {
	if opts.Retain <= 0 {
		return nil, fmt.Errorf("--retain must be positive, got %s", opts.Retain)
	}
	dir, err := PrepareRecordDir(opts.Dir)
	if err != nil {
		return nil, err
	}
	r := newRecorder(dir, opts.Retain, opts.Server, pool.recordPlan, pool.changes)
	return r, nil
}

func newRecorder(dir string, retain time.Duration, server string, plan func() []recType, changes <-chan struct{}) *Recorder {
	return &Recorder{
		dir: dir, retain: retain, every: max(retain/6, MinRotation), server: server,
		plan: plan, changes: changes, q: newRecQueue(recordQueueLimit), now: time.Now,
		removers: map[interface{}]func(){}, sources: map[interface{}]*recSource{},
		status: protocol.RecordingStatus{Dir: dir, Retain: protocol.Duration(retain)},
	}
}

// PrepareRecordDir makes dir (0700) if it is missing and checks that it
// is a directory owned by the user; it returns its absolute path.
func PrepareRecordDir(dir string) (string, error) {
	if dir == "" {
		return "", fmt.Errorf("--record needs a directory")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("--record %s: %w", dir, err)
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return "", fmt.Errorf("--record %s: %w", dir, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("--record %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("--record %s: not a directory", dir)
	}
	if err := checkOwner(fi); err != nil {
		return "", fmt.Errorf("--record %s: %w", dir, err)
	}
	return abs, nil
}

// Run records until ctx ends, then closes the current segment.
func (r *Recorder) Run(ctx context.Context) {
	flush := time.NewTicker(flushEvery)
	defer flush.Stop()
	rotate := time.NewTicker(min(r.every, 10*time.Second))
	defer rotate.Stop()
	r.replan()
	for {
		select {
		case <-ctx.Done():
			r.drain()
			r.stop()
			return
		case <-r.changes:
			r.replan()
		case <-r.q.ready:
			r.drain()
		case <-flush.C:
			r.flush()
		case <-rotate.C:
			if r.seg == nil && len(r.cur) > 0 {
				r.cut("retrying after an error")
			} else if r.seg != nil && r.now().Sub(r.seg.started) >= r.every {
				r.cut("rotation")
			}
			r.deleteOld()
		}
	}
}

// replan updates the sources to what the pool holds now and, when they
// changed, starts a new segment.
func (r *Recorder) replan() {
	plan := r.plan()
	if samePlan(plan, r.cur) {
		return
	}
	keep := map[interface{}]bool{}
	for i, rt := range plan {
		for j, src := range rt.sources {
			keep[src.id] = true
			if old, ok := r.sources[src.id]; ok {
				plan[i].sources[j] = old
				continue
			}
			remove, err := src.subscribe(func(typ watch.EventType, obj interface{}) {
				r.q.push(recEvent{src: src, typ: typ, obj: obj, time: r.now()})
			})
			if err != nil {
				klog.ErrorS(err, "recording: cannot follow a type; it is not recorded", "resource", src.resource)
				continue
			}
			r.sources[src.id], r.removers[src.id] = src, remove
		}
	}
	for id, remove := range r.removers {
		if !keep[id] {
			remove()
			delete(r.removers, id)
			delete(r.sources, id)
		}
	}
	r.cur = plan
	r.cut("the recorded types changed")
}

// cut closes the current segment and starts the next from the sources'
// current state. Events pending are dropped first: each is already part of
// the state the sources list, since an informer updates its store before
// it hands an event to handlers; events after the drop that the listing
// holds too are de-duplicated by resourceVersion.
func (r *Recorder) cut(reason string) {
	r.q.take()
	r.closeSegment()
	var types []recording.Type
	var names []string
	for _, rt := range r.cur {
		types = append(types, recordingType(rt.mapping))
		names = append(names, rt.mapping.Resource.GroupResource().String())
	}
	r.setStatus(func(st *protocol.RecordingStatus) { st.Types = names })
	if len(types) == 0 {
		return
	}
	started := r.now()
	seg, err := createSegment(r.dir, recording.Header{Started: started, Server: r.server, Types: types})
	if err != nil {
		r.failed(err)
		return
	}
	r.seg = seg
	var initial []recEvent
	for _, rt := range r.cur {
		for _, src := range rt.sources {
			if _, ok := r.sources[src.id]; !ok {
				continue
			}
			for _, obj := range src.list() {
				initial = append(initial, recEvent{src: src, typ: watch.Added, obj: obj, time: started})
			}
		}
	}
	sortEvents(initial)
	for _, ev := range initial {
		if _, err := seg.apply(ev, true); err != nil {
			r.failed(err)
			return
		}
	}
	if err := seg.flush(); err != nil {
		r.failed(err)
		return
	}
	klog.V(1).InfoS("recording: new segment", "file", seg.path, "reason", reason, "types", strings.Join(names, ","), "objects", len(seg.state))
	r.setStatus(func(st *protocol.RecordingStatus) {
		st.Segment, st.SegmentStarted, st.LastError = seg.path, &seg.started, ""
		st.Segments++
	})
	r.deleteOld()
}

// sortEvents orders initial events by resource, namespace and name.
func sortEvents(evs []recEvent) {
	key := func(ev recEvent) (string, string, string) {
		m, err := meta.Accessor(ev.obj)
		if err != nil {
			return ev.src.resource, "", ""
		}
		return ev.src.resource, m.GetNamespace(), m.GetName()
	}
	sort.SliceStable(evs, func(i, j int) bool {
		a1, a2, a3 := key(evs[i])
		b1, b2, b3 := key(evs[j])
		if a1 != b1 {
			return a1 < b1
		}
		if a2 != b2 {
			return a2 < b2
		}
		return a3 < b3
	})
}

// drain writes the pending events; after an overflow it starts a new
// segment instead.
func (r *Recorder) drain() {
	items, overflowed := r.q.take()
	if overflowed {
		_, dropped := r.q.stats()
		klog.InfoS("recording: the writer fell behind and dropped events; starting a new segment from the current state", "dropped", dropped)
		r.setStatus(func(st *protocol.RecordingStatus) { st.Overflows++ })
		r.cut("overflow")
		return
	}
	if r.seg == nil {
		return
	}
	var written int64
	for _, ev := range items {
		ok, err := r.seg.apply(ev, false)
		if err != nil {
			r.failed(err)
			return
		}
		if ok {
			written++
		}
	}
	r.setStatus(func(st *protocol.RecordingStatus) { st.Events += written })
}

func (r *Recorder) flush() {
	if r.seg == nil {
		return
	}
	if err := r.seg.flush(); err != nil {
		r.failed(err)
		return
	}
	r.touch()
}

// touchEvery is how often the current segment's modification time is set
// while no event comes: readers take it as the time the directory is
// recorded up to (recording.RecordedUntil).
const touchEvery = time.Second

// touch sets the segment's modification time to now, at most every
// touchEvery.
func (r *Recorder) touch() {
	now := r.now()
	if now.Sub(r.touched) < touchEvery {
		return
	}
	r.touched = now
	if err := os.Chtimes(r.seg.path, time.Time{}, now); err != nil {
		klog.V(1).InfoS("recording: setting the segment's time", "file", r.seg.path, "err", err)
	}
}

// failed logs a write error and drops the segment; the next rotation tick
// starts another.
func (r *Recorder) failed(err error) {
	klog.ErrorS(err, "recording: writing the segment failed; retrying with a new one")
	if r.seg != nil {
		_ = r.seg.close()
		r.seg = nil
	}
	r.setStatus(func(st *protocol.RecordingStatus) { st.Segment, st.SegmentStarted, st.LastError = "", nil, err.Error() })
}

func (r *Recorder) closeSegment() {
	if r.seg == nil {
		return
	}
	if err := r.seg.close(); err != nil {
		klog.ErrorS(err, "recording: closing the segment", "file", r.seg.path)
	}
	r.seg = nil
	r.setStatus(func(st *protocol.RecordingStatus) { st.Segment, st.SegmentStarted = "", nil })
}

// stop removes the handlers and closes the segment.
func (r *Recorder) stop() {
	for id, remove := range r.removers {
		remove()
		delete(r.removers, id)
	}
	r.flush()
	r.closeSegment()
}

// deleteOld deletes every segment but the current one whose successor
// started more than retain ago; the last segment, when not current, ends
// when it was last written.
func (r *Recorder) deleteOld() {
	segs, err := recording.ListSegments(r.dir)
	if err != nil {
		klog.ErrorS(err, "recording: listing the segments")
		return
	}
	cutoff := r.now().Add(-r.retain)
	for i, s := range segs {
		if r.seg != nil && s.Path == r.seg.path {
			continue
		}
		end := s.Start
		if i+1 < len(segs) {
			end = segs[i+1].Start
		} else if fi, err := os.Stat(s.Path); err == nil {
			end = fi.ModTime()
		}
		if end.Before(cutoff) {
			if err := os.Remove(s.Path); err != nil && !errors.Is(err, os.ErrNotExist) {
				klog.ErrorS(err, "recording: deleting an old segment", "file", s.Path)
				continue
			}
			klog.V(1).InfoS("recording: deleted an old segment", "file", s.Path)
		}
	}
}

// Status returns what the recorder does now, with the current segment's
// size.
func (r *Recorder) Status() *protocol.RecordingStatus {
	r.mu.Lock()
	st := r.status
	r.mu.Unlock()
	st.Types = append([]string(nil), st.Types...)
	if st.Segment != "" {
		if fi, err := os.Stat(st.Segment); err == nil {
			st.SegmentBytes = fi.Size()
		}
	}
	if segs, err := recording.ListSegments(r.dir); err == nil {
		st.Files = len(segs)
	}
	_, st.Dropped = r.q.stats()
	return &st
}

func (r *Recorder) setStatus(f func(*protocol.RecordingStatus)) {
	r.mu.Lock()
	f(&r.status)
	r.mu.Unlock()
}

// recordingType is the header's type of mapping.
func recordingType(m *meta.RESTMapping) recording.Type {
	return recording.Type{
		Group:      m.Resource.Group,
		Version:    m.Resource.Version,
		Resource:   m.Resource.Resource,
		Kind:       m.GroupVersionKind.Kind,
		Namespaced: m.Scope != nil && m.Scope.Name() == meta.RESTScopeNameNamespace,
		BuiltIn:    scheme.Scheme.Recognizes(m.GroupVersionKind),
	}
}
