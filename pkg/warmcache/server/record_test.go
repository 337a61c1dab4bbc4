package server

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubectl-informer/kubectl-informer/pkg/recording"
)

// fakeSource is a recorded source whose objects and events the test sets.
type fakeSource struct {
	mu   sync.Mutex
	objs map[string]interface{}
	push func(watch.EventType, interface{})
	src  *recSource
}

var configMapsMapping = &meta.RESTMapping{
	Resource:         schema.GroupVersionResource{Version: "v1", Resource: "configmaps"},
	GroupVersionKind: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"},
	Scope:            meta.RESTScopeNamespace,
}

func newFakeSource(id string, mapping *meta.RESTMapping) *fakeSource {
	f := &fakeSource{objs: map[string]interface{}{}}
	f.src = &recSource{id: id, resource: mapping.Resource.String(), mapping: mapping,
		list: func() []interface{} {
			f.mu.Lock()
			defer f.mu.Unlock()
			var objs []interface{}
			for _, o := range f.objs {
				objs = append(objs, o)
			}
			return objs
		},
		subscribe: func(push func(watch.EventType, interface{})) (func(), error) {
			f.push = push
			return func() { f.push = nil }, nil
		},
	}
	return f
}

func recPod(name, rv string) *corev1.Pod {
	return &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: name, UID: types.UID("uid-" + name), ResourceVersion: rv}}
}

// event sets obj in f's store (or removes it) and hands the event over, as
// an informer does: store first, then handlers.
func (f *fakeSource) event(typ watch.EventType, obj *corev1.Pod) {
	f.mu.Lock()
	if typ == watch.Deleted {
		delete(f.objs, obj.Name)
	} else {
		f.objs[obj.Name] = obj
	}
	f.mu.Unlock()
	if f.push != nil {
		f.push(typ, obj)
	}
}

// testRecorder is a recorder of the plan the test sets, on a fake clock.
type testRecorder struct {
	*Recorder
	plan  []recType
	clock time.Time
}

func newTestRecorder(t *testing.T, retain time.Duration) *testRecorder {
	tr := &testRecorder{clock: time.Date(2026, 11, 26, 2, 0, 0, 0, time.UTC)}
	tr.Recorder = newRecorder(t.TempDir(), retain, "https://test", func() []recType { return tr.plan }, nil)
	tr.now = func() time.Time { return tr.clock }
	t.Cleanup(tr.stop)
	return tr
}

func (tr *testRecorder) advance(d time.Duration) { tr.clock = tr.clock.Add(d) }

// readSegment returns the events of a segment as "A:name@rv" (initial
// ones with a "*") and its header's resources.
func readSegment(t *testing.T, path string) (resources, events []string) {
	t.Helper()
	r, err := recording.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, ty := range r.Header().Types {
		resources = append(resources, ty.Resource)
	}
	for {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			return resources, events
		}
		if err != nil {
			t.Fatal(err)
		}
		s := fmt.Sprintf("%s:%s@%s", string(ev.Type)[:1], ev.Object.GetName(), ev.Object.GetResourceVersion())
		if ev.Initial {
			s += "*"
		}
		events = append(events, s)
	}
}

func segmentPaths(t *testing.T, dir string) []string {
	t.Helper()
	segs, err := recording.ListSegments(dir)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, s := range segs {
		paths = append(paths, s.Path)
	}
	return paths
}

// TestRecorderDeduplicates records one type from two sources (two
// narrower entries) that hold one pod in common: each state once, the
// delete only when neither holds it.
func TestRecorderDeduplicates(t *testing.T) {
	tr := newTestRecorder(t, time.Hour)
	ns1, ns2 := newFakeSource("e1", podsMapping), newFakeSource("e2", podsMapping)
	ns1.objs["shared"], ns2.objs["shared"] = recPod("shared", "5"), recPod("shared", "5")
	ns1.objs["only1"] = recPod("only1", "6")
	tr.plan = []recType{{mapping: podsMapping, sources: []*recSource{ns1.src, ns2.src}}}
	tr.replan()

	ns1.event(watch.Modified, recPod("shared", "8"))
	ns2.event(watch.Modified, recPod("shared", "8")) // the same change, seen twice
	ns2.event(watch.Modified, recPod("shared", "7")) // older than recorded: a lagging source
	ns1.event(watch.Added, recPod("new", "9"))
	ns1.event(watch.Deleted, recPod("shared", "8")) // e2 still holds it
	ns1.event(watch.Deleted, recPod("gone", "3"))   // never recorded
	ns2.event(watch.Deleted, recPod("shared", "8")) // now no source does
	tr.drain()
	tr.flush()

	paths := segmentPaths(t, tr.dir)
	if len(paths) != 1 {
		t.Fatalf("segments %v, want 1", paths)
	}
	_, events := readSegment(t, paths[0])
	want := []string{"A:only1@6*", "A:shared@5*", "M:shared@8", "A:new@9", "D:shared@8"}
	if !reflect.DeepEqual(events, want) {
		t.Errorf("events %v, want %v", events, want)
	}
	if st := tr.Status(); st.Events != 3 || st.Files != 1 || st.Segment != paths[0] || st.SegmentBytes == 0 {
		t.Errorf("status %+v, want 3 events in 1 file, segment %s", st, paths[0])
	}
}

// TestRecorderRotates cuts segments by age and when the types change,
// each starting with the whole state.
func TestRecorderRotates(t *testing.T) {
	tr := newTestRecorder(t, 12*time.Minute) // a segment every 2m
	pods := newFakeSource("pods", podsMapping)
	pods.objs["p1"] = recPod("p1", "1")
	tr.plan = []recType{{mapping: podsMapping, sources: []*recSource{pods.src}}}
	tr.replan()
	pods.event(watch.Modified, recPod("p1", "2"))
	tr.drain()

	tr.replan() // the same plan: no new segment
	tr.advance(2 * time.Minute)
	tr.cut("rotation")
	pods.event(watch.Added, recPod("p2", "3"))
	tr.drain()

	tr.advance(time.Second)
	cms := newFakeSource("cms", configMapsMapping)
	tr.plan = []recType{{mapping: configMapsMapping, sources: []*recSource{cms.src}}, tr.plan[0]}
	tr.replan()
	tr.flush()

	paths := segmentPaths(t, tr.dir)
	if len(paths) != 3 {
		t.Fatalf("segments %v, want 3", paths)
	}
	want := []struct {
		resources, events []string
	}{
		{[]string{"pods"}, []string{"A:p1@1*", "M:p1@2"}},
		{[]string{"pods"}, []string{"A:p1@2*", "A:p2@3"}},
		{[]string{"configmaps", "pods"}, []string{"A:p1@2*", "A:p2@3*"}},
	}
	for i, p := range paths {
		resources, events := readSegment(t, p)
		if !reflect.DeepEqual(resources, want[i].resources) || !reflect.DeepEqual(events, want[i].events) {
			t.Errorf("segment %d: types %v events %v, want %v %v", i, resources, events, want[i].resources, want[i].events)
		}
	}
	// Dropping every type closes the segment and starts none.
	tr.plan = nil
	tr.replan()
	if st := tr.Status(); st.Segment != "" || len(segmentPaths(t, tr.dir)) != 3 {
		t.Errorf("after the last type left: status %+v, %d files; want no segment, 3 files", st, len(segmentPaths(t, tr.dir)))
	}
}

// TestRecorderOverflow: events beyond the queue's bound are dropped and
// the next segment starts from the state that includes them.
func TestRecorderOverflow(t *testing.T) {
	tr := newTestRecorder(t, time.Hour)
	tr.q = newRecQueue(2)
	pods := newFakeSource("pods", podsMapping)
	tr.plan = []recType{{mapping: podsMapping, sources: []*recSource{pods.src}}}
	tr.replan()
	for i := range 5 {
		pods.event(watch.Added, recPod(fmt.Sprintf("p%d", i), fmt.Sprint(i+1)))
	}
	tr.advance(time.Second)
	tr.drain()
	tr.flush()
	paths := segmentPaths(t, tr.dir)
	if len(paths) != 2 {
		t.Fatalf("segments %v, want 2", paths)
	}
	_, first := readSegment(t, paths[0])
	_, second := readSegment(t, paths[1])
	want := []string{"A:p0@1*", "A:p1@2*", "A:p2@3*", "A:p3@4*", "A:p4@5*"}
	if len(first) != 0 || !reflect.DeepEqual(second, want) {
		t.Errorf("segments %v then %v, want none then %v", first, second, want)
	}
	if st := tr.Status(); st.Overflows != 1 || st.Dropped != 3 {
		t.Errorf("status %+v, want 1 overflow, 3 dropped", st)
	}
}

// TestRecorderRetention deletes the segments whose successor started more
// than retain ago, never the current one.
func TestRecorderRetention(t *testing.T) {
	tr := newTestRecorder(t, 10*time.Minute)
	start := tr.clock
	for _, ago := range []time.Duration{40, 25, 12, 8} {
		name := start.Add(-ago*time.Minute).Format(SegmentNameLayout) + recording.SegmentExt
		if err := os.WriteFile(filepath.Join(tr.dir, name), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	other := filepath.Join(tr.dir, "keep.txt")
	if err := os.WriteFile(other, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	pods := newFakeSource("pods", podsMapping)
	tr.plan = []recType{{mapping: podsMapping, sources: []*recSource{pods.src}}}
	tr.replan() // starts a segment now, and deletes
	var left []string
	for _, p := range segmentPaths(t, tr.dir) {
		left = append(left, filepath.Base(p))
	}
	// -40m ends at -25m, -25m at -12m: gone; -12m ends at -8m, -8m now.
	want := []string{
		start.Add(-12*time.Minute).Format(SegmentNameLayout) + recording.SegmentExt,
		start.Add(-8*time.Minute).Format(SegmentNameLayout) + recording.SegmentExt,
		start.Format(SegmentNameLayout) + recording.SegmentExt,
	}
	sort.Strings(left)
	if !reflect.DeepEqual(left, want) {
		t.Errorf("left %v, want %v", left, want)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("a file not a segment was touched: %v", err)
	}
	// Much later the current segment is still kept, the others go.
	tr.advance(time.Hour)
	tr.deleteOld()
	if got := segmentPaths(t, tr.dir); len(got) != 1 || filepath.Base(got[0]) != want[2] {
		t.Errorf("an hour later: %v, want only the current %s", got, want[2])
	}
}

func TestPrepareRecordDir(t *testing.T) {
	base := t.TempDir()
	file := filepath.Join(base, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	made := filepath.Join(base, "new", "rec")
	dir, err := PrepareRecordDir(made)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("made %s: %v %v, want mode 0700", dir, fi.Mode(), err)
	}
	for _, bad := range []string{"", file} {
		if _, err := PrepareRecordDir(bad); err == nil {
			t.Errorf("PrepareRecordDir(%q) = nil, want an error", bad)
		}
	}
}
