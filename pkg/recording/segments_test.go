package recording

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
)

// segPod is a small pod of namespace demo.
func segPod(name, uid, rv, phase string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]interface{}{"name": name, "namespace": "demo", "uid": uid, "resourceVersion": rv},
		"status":   map[string]interface{}{"phase": phase},
	}}
}

func segConfigMap(name string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]interface{}{"name": name, "namespace": "demo", "uid": "uid-" + name, "resourceVersion": "7"},
	}}
}

var (
	podsType       = Type{Version: "v1", Resource: "pods", Kind: "Pod", Namespaced: true}
	configMapsType = Type{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true}
)

// writeSegment writes a segment of dir starting at start.
func writeSegment(t *testing.T, dir string, start time.Time, types []Type, events []Event) string {
	t.Helper()
	path := filepath.Join(dir, start.UTC().Format(SegmentNameLayout)+SegmentExt)
	w, err := Create(path, Header{Started: start, Types: types})
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range events {
		if err := w.Write(ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// segmentDir writes three segments: pods a and b, a modified; then (a new
// segment adding configmaps) a unchanged, b gone, c and configmap x new,
// c deleted; then a modified in the initial state only.
func segmentDir(t *testing.T) (dir string, at func(int) time.Time) {
	dir = t.TempDir()
	at = func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	writeSegment(t, dir, at(0), []Type{podsType}, []Event{
		{Time: at(0), Type: watch.Added, Initial: true, Object: segPod("a", "ua", "1", "Pending")},
		{Time: at(0), Type: watch.Added, Initial: true, Object: segPod("b", "ub", "2", "Running")},
		{Time: at(5), Type: watch.Modified, Object: segPod("a", "ua", "3", "Running")},
	})
	writeSegment(t, dir, at(10), []Type{configMapsType, podsType}, []Event{
		{Time: at(10), Type: watch.Added, Initial: true, TypeIndex: 0, Object: segConfigMap("x")},
		{Time: at(10), Type: watch.Added, Initial: true, TypeIndex: 1, Object: segPod("a", "ua", "3", "Running")},
		{Time: at(10), Type: watch.Added, Initial: true, TypeIndex: 1, Object: segPod("c", "uc", "4", "Pending")},
		{Time: at(15), Type: watch.Deleted, TypeIndex: 1, Object: segPod("c", "uc", "4", "Pending")},
	})
	writeSegment(t, dir, at(20), []Type{podsType, configMapsType}, []Event{
		{Time: at(20), Type: watch.Added, Initial: true, TypeIndex: 0, Object: segPod("a", "ua", "9", "Failed")},
		{Time: at(20), Type: watch.Added, Initial: true, TypeIndex: 1, Object: segConfigMap("x")},
	})
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a segment"), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir, at
}

func TestSegmentAt(t *testing.T) {
	dir, at := segmentDir(t)
	tests := []struct {
		at      time.Time
		want    string // the segment's start, as at(n); "" for an error
		wantErr string
	}{
		{at: at(-1), wantErr: "before the first segment"},
		{at: at(0), want: at(0).Format(SegmentNameLayout)},
		{at: at(9), want: at(0).Format(SegmentNameLayout)},
		{at: at(10), want: at(10).Format(SegmentNameLayout)},
		{at: at(3600), want: at(20).Format(SegmentNameLayout)},
	}
	for _, tt := range tests {
		seg, err := SegmentAt(dir, tt.at)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("SegmentAt(%s) = %v, want error %q", tt.at, err, tt.wantErr)
			}
			continue
		}
		if err != nil || filepath.Base(seg.Path) != tt.want+SegmentExt {
			t.Errorf("SegmentAt(%s) = %s, %v, want %s", tt.at, seg.Path, err, tt.want)
		}
	}
	if _, err := SegmentAt(t.TempDir(), at(0)); err == nil || !strings.Contains(err.Error(), "no recording segments") {
		t.Errorf("SegmentAt(empty dir) = %v, want no segments", err)
	}
	if IsSegmentDir(t.TempDir()) || !IsSegmentDir(dir) {
		t.Errorf("IsSegmentDir: wrong for an empty dir or %s", dir)
	}
}

// names returns "type:name@rv" of objs.
func names(h Header, objs []*unstructured.Unstructured) []string {
	var out []string
	for _, o := range objs {
		out = append(out, o.GetKind()+":"+o.GetName()+"@"+o.GetResourceVersion())
	}
	return out
}

func TestStateAtDir(t *testing.T) {
	dir, at := segmentDir(t)
	tests := []struct {
		at   time.Time
		want []string
	}{
		{at(0), []string{"Pod:a@1", "Pod:b@2"}},
		{at(7), []string{"Pod:a@3", "Pod:b@2"}},
		{at(12), []string{"ConfigMap:x@7", "Pod:a@3", "Pod:c@4"}},
		{at(16), []string{"ConfigMap:x@7", "Pod:a@3"}},
		{at(25), []string{"Pod:a@9", "ConfigMap:x@7"}},
	}
	for _, tt := range tests {
		h, objs, err := StateAtDir(dir, tt.at)
		if err != nil {
			t.Fatalf("StateAtDir(%s): %v", tt.at, err)
		}
		if got := names(h, objs); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("StateAtDir(%s) = %v, want %v", tt.at, got, tt.want)
		}
	}
}

func TestOpenDir(t *testing.T) {
	dir, at := segmentDir(t)
	d, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	h := d.Header()
	var types []string
	for _, ty := range h.Types {
		types = append(types, ty.Resource)
	}
	if want := []string{"pods", "configmaps"}; !reflect.DeepEqual(types, want) || !h.Started.Equal(at(0)) {
		t.Fatalf("header types %v started %s, want %v at %s", types, h.Started, want, at(0))
	}
	type got struct {
		t       int
		typ     watch.EventType
		initial bool
		obj     string
	}
	var events []got
	for {
		ev, err := d.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, got{int(ev.Time.Sub(t0) / time.Second), ev.Type, ev.Initial,
			h.Types[ev.TypeIndex].Kind + ":" + ev.Object.GetName() + "@" + ev.Object.GetResourceVersion()})
	}
	want := []got{
		{0, watch.Added, true, "Pod:a@1"},
		{0, watch.Added, true, "Pod:b@2"},
		{5, watch.Modified, false, "Pod:a@3"},
		// Segment 2's initial state as changes: b gone, x and c new,
		// a equal and so not repeated.
		{10, watch.Deleted, false, "Pod:b@2"},
		{10, watch.Added, false, "ConfigMap:x@7"},
		{10, watch.Added, false, "Pod:c@4"},
		{15, watch.Deleted, false, "Pod:c@4"},
		// Segment 3: a changed between the segments.
		{20, watch.Modified, false, "Pod:a@9"},
	}
	if !reflect.DeepEqual(events, want) {
		t.Errorf("events:\n got %v\nwant %v", events, want)
	}
	if d.Truncated() {
		t.Errorf("Truncated() = true for whole segments")
	}
}

func TestOpenDirErrors(t *testing.T) {
	if _, err := OpenDir(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no recording segments") {
		t.Errorf("OpenDir(empty) = %v, want no segments", err)
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, t0.Format(SegmentNameLayout)+SegmentExt)
	if err := os.WriteFile(bad, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenDir(dir); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("OpenDir(a bad segment) = %v, want an error naming %s", err, bad)
	}
}

// TestPaths: a directory of segments and a file answer through the same
// functions.
func TestPaths(t *testing.T) {
	dir, at := segmentDir(t)
	file := writeSegment(t, t.TempDir(), at(0), []Type{podsType}, []Event{
		{Time: at(0), Type: watch.Added, Initial: true, Object: segPod("a", "ua", "1", "Pending")},
	})
	for _, tt := range []struct {
		path      string
		wantTypes int
		wantObjs  []string
	}{
		{dir, 2, []string{"ConfigMap:x@7", "Pod:a@3"}},
		{file, 1, []string{"Pod:a@1"}},
	} {
		if ok, err := IsRecordingPath(tt.path); !ok || err != nil {
			t.Errorf("IsRecordingPath(%s) = %v, %v", tt.path, ok, err)
		}
		h, objs, err := StateAtPath(tt.path, at(16))
		if err != nil || len(h.Types) != tt.wantTypes || !reflect.DeepEqual(names(h, objs), tt.wantObjs) {
			t.Errorf("StateAtPath(%s) = %d types, %v, %v; want %d, %v", tt.path, len(h.Types), names(h, objs), err, tt.wantTypes, tt.wantObjs)
		}
		r, err := OpenEvents(tt.path)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Header().Types) != tt.wantTypes {
			t.Errorf("OpenEvents(%s): %d types, want %d", tt.path, len(r.Header().Types), tt.wantTypes)
		}
		r.Close()
	}
	if ok, _ := IsRecordingPath(t.TempDir()); ok {
		t.Errorf("IsRecordingPath(an empty dir) = true")
	}
}

// TestLiveSegment: the last segment of a running cache, flushed but not
// closed, reads without being called truncated, and the directory is
// recorded up to its modification time.
func TestLiveSegment(t *testing.T) {
	dir := t.TempDir()
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	writeSegment(t, dir, at(0), []Type{podsType}, []Event{
		{Time: at(0), Type: watch.Added, Initial: true, Object: segPod("a", "ua", "1", "Pending")},
	})
	path := filepath.Join(dir, at(10).Format(SegmentNameLayout)+SegmentExt)
	w, err := Create(path, Header{Started: at(10), Types: []Type{podsType}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, ev := range []Event{
		{Time: at(10), Type: watch.Added, Initial: true, Object: segPod("a", "ua", "1", "Pending")},
		{Time: at(12), Type: watch.Added, Object: segPod("b", "ub", "2", "Pending")},
	} {
		if err := w.Write(ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, time.Time{}, at(30)); err != nil {
		t.Fatal(err)
	}
	if got := RecordedUntil(dir); !got.Equal(at(30)) {
		t.Errorf("RecordedUntil = %s, want %s", got, at(30))
	}
	if got := RecordedUntil(path); !got.IsZero() {
		t.Errorf("RecordedUntil(a file) = %s, want zero", got)
	}
	d, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	n := 0
	for {
		_, err := d.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 2 || d.Truncated() {
		t.Errorf("read %d events, truncated %v; want 2 (a, then b), not truncated", n, d.Truncated())
	}
}
