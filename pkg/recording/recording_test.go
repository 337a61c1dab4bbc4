package recording

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/watch"
)

var t0 = time.Date(2026, 11, 26, 1, 0, 0, 0, time.UTC)

func testHeader() Header {
	return Header{
		Started: t0,
		Server:  "https://127.0.0.1:6443",
		Types: []Type{
			{Version: "v1", Resource: "pods", Kind: "Pod", Namespaced: true, Singular: "pod", ShortNames: []string{"po"}},
			{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", Namespaced: true},
		},
		Namespaces:    []string{"demo"},
		LabelSelector: "app=web",
	}
}

// pod returns a pod as an informer holds one, with a sizeable spec so
// that patches are worth measuring.
func pod(name, uid, phase string, labels map[string]interface{}) *unstructured.Unstructured {
	containers := []interface{}{}
	for i := 0; i < 3; i++ {
		containers = append(containers, map[string]interface{}{
			"name":  fmt.Sprintf("c%d", i),
			"image": "registry.example/team/app:v1.2.3",
			"resources": map[string]interface{}{
				"requests": map[string]interface{}{"cpu": "100m", "memory": "128Mi"},
			},
			"env": []interface{}{map[string]interface{}{"name": "MODE", "value": "production"}},
		})
	}
	return &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "v1",
		"kind":       "Pod",
		"metadata": map[string]interface{}{
			"name": name, "namespace": "demo", "uid": uid, "resourceVersion": "1",
			"labels": labels,
			"managedFields": []interface{}{map[string]interface{}{
				"manager": "kube-controller-manager", "operation": "Update", "apiVersion": "v1",
				"fieldsType": "FieldsV1", "fieldsV1": map[string]interface{}{"f:metadata": map[string]interface{}{}},
			}},
		},
		"spec":   map[string]interface{}{"containers": containers, "nodeName": "node-1", "restartPolicy": "Always"},
		"status": map[string]interface{}{"phase": phase, "hostIP": "10.0.0.1", "restartCount": int64(0)},
	}}
}

func withRV(u *unstructured.Unstructured, rv string) *unstructured.Unstructured {
	u.SetResourceVersion(rv)
	return u
}

// testEvents is a sequence of events: an initial state, changes, a
// delete, a recreated object and a change a merge patch cannot express.
func testEvents() []Event {
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	web := map[string]interface{}{"app": "web"}
	nullLabel := pod("b", "uid-b2", "Running", web)
	_ = unstructured.SetNestedField(nullLabel.Object, nil, "status", "hostIP")
	return []Event{
		{Time: at(0), Type: watch.Added, Initial: true, Object: pod("a", "uid-a", "Pending", web)},
		{Time: at(0), Type: watch.Added, Initial: true, Object: pod("b", "uid-b", "Running", web)},
		{Time: at(0), Type: watch.Added, Initial: true, TypeIndex: 1, Object: &unstructured.Unstructured{Object: map[string]interface{}{
			"apiVersion": "apps/v1", "kind": "Deployment",
			"metadata": map[string]interface{}{"name": "web", "namespace": "demo", "uid": "uid-d"},
			"spec":     map[string]interface{}{"replicas": int64(2)},
		}}},
		{Time: at(1), Type: watch.Modified, Object: withRV(pod("a", "uid-a", "Running", web), "2")},
		{Time: at(2), Type: watch.Added, Object: pod("c", "uid-c", "Pending", web)},
		{Time: at(3), Type: watch.Deleted, Object: withRV(pod("b", "uid-b", "Running", web), "3")},
		{Time: at(4), Type: watch.Added, Object: pod("b", "uid-b2", "Pending", web)},
		{Time: at(5), Type: watch.Modified, Object: nullLabel},
		{Time: at(6), Type: watch.Modified, Object: withRV(pod("c", "uid-c", "Running", map[string]interface{}{"app": "web", "x": "1"}), "4")},
		{Time: at(7), Type: watch.Deleted, Object: withRV(pod("c", "uid-c", "Running", map[string]interface{}{"app": "web", "x": "1"}), "4")},
		{Time: at(8), Type: watch.Modified, Object: withRV(pod("a", "uid-a", "Succeeded", web), "5")},
	}
}

// write returns the recording of events, and the length of the file after
// each event's Flush.
func write(t *testing.T, events []Event) ([]byte, []int) {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, testHeader())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	var flushed []int
	for _, ev := range events {
		if err := w.Write(ev); err != nil {
			t.Fatalf("Write(%s %s): %v", ev.Type, ev.Object.GetName(), err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		flushed = append(flushed, buf.Len())
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), flushed
}

// readAll returns every event of data and whether it was truncated.
func readAll(t *testing.T, data []byte) ([]Event, bool) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("NewReader: %v", err)
	}
	var events []Event
	for {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			return events, r.Truncated()
		}
		if err != nil {
			t.Fatalf("Next after %d events: %v", len(events), err)
		}
		events = append(events, ev)
	}
}

// normalized returns obj as it reads back from JSON.
func normalized(t *testing.T, obj *unstructured.Unstructured) map[string]interface{} {
	t.Helper()
	b, err := json.Marshal(obj.Object)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]interface{}
	if err := utiljson.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func sameEvent(t *testing.T, got, want Event) error {
	t.Helper()
	if !got.Time.Equal(want.Time) || got.Type != want.Type || got.Initial != want.Initial || got.TypeIndex != want.TypeIndex {
		return fmt.Errorf("event = %v %s initial=%v type=%d, want %v %s initial=%v type=%d",
			got.Time, got.Type, got.Initial, got.TypeIndex, want.Time, want.Type, want.Initial, want.TypeIndex)
	}
	if g, w := normalized(t, got.Object), normalized(t, want.Object); !reflect.DeepEqual(g, w) {
		return fmt.Errorf("object of %s %s =\n%v\nwant\n%v", got.Type, got.Object.GetName(), g, w)
	}
	return nil
}

func TestRoundTrip(t *testing.T) {
	events := testEvents()
	data, _ := write(t, events)
	got, truncated := readAll(t, data)
	if truncated {
		t.Errorf("Truncated() = true for a closed recording")
	}
	if len(got) != len(events) {
		t.Fatalf("read %d events, want %d", len(got), len(events))
	}
	for i := range events {
		if err := sameEvent(t, got[i], events[i]); err != nil {
			t.Errorf("event %d: %v", i, err)
		}
	}
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if h := r.Header(); h.Server != testHeader().Server || !reflect.DeepEqual(h.Types, testHeader().Types) || !h.Started.Equal(t0) || h.LabelSelector != "app=web" {
		t.Errorf("Header() = %+v, want %+v", h, testHeader())
	}
}

// TestRecordForms checks how each event is stored: whole the first time,
// a patch after, a bare key for a delete of an unchanged object, whole
// again for a recreated object and for a change a patch cannot express.
func TestRecordForms(t *testing.T) {
	data, _ := write(t, testEvents())
	gz, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := io.ReadAll(gz)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(plain), "\n"), "\n")[1:]
	want := []string{"o", "o", "o", "p", "o", "p", "o", "o", "p", "key", "p"}
	if len(lines) != len(want) {
		t.Fatalf("%d event records, want %d", len(lines), len(want))
	}
	for i, line := range lines {
		var rec record
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		form := "key"
		switch {
		case len(rec.Object) > 0:
			form = "o"
		case len(rec.Patch) > 0:
			form = "p"
		}
		if form != want[i] {
			t.Errorf("record %d is stored as %s, want %s: %s", i+2, form, want[i], line)
		}
		if form == "p" {
			obj, _ := json.Marshal(testEvents()[i].Object.Object)
			if len(rec.Patch)*4 > len(obj) {
				t.Errorf("record %d: patch of %d bytes for an object of %d, want under a quarter", i+2, len(rec.Patch), len(obj))
			}
		}
	}
}

func TestTruncatedTail(t *testing.T) {
	events := testEvents()
	data, flushed := write(t, events)
	headerEnd := 0
	{
		var buf bytes.Buffer
		w, _ := NewWriter(&buf, testHeader())
		_ = w.Flush()
		headerEnd = buf.Len()
	}
	for n := headerEnd; n <= len(data); n++ {
		got, truncated := readAll(t, data[:n])
		complete := 0
		for _, f := range flushed {
			if f <= n {
				complete++
			}
		}
		if len(got) < complete {
			t.Fatalf("cut at %d of %d: read %d events, want at least the %d flushed before", n, len(data), len(got), complete)
		}
		for i := range got {
			if err := sameEvent(t, got[i], events[i]); err != nil {
				t.Fatalf("cut at %d: event %d: %v", n, i, err)
			}
		}
		if truncated != (n < len(data)) {
			t.Fatalf("cut at %d of %d: Truncated() = %v", n, len(data), truncated)
		}
	}
}

func TestStateAt(t *testing.T) {
	data, _ := write(t, testEvents())
	tests := []struct {
		at   time.Duration
		want []string // name/uid/phase per object, in order
	}{
		{-time.Second, nil},
		{0, []string{"a/uid-a/Pending", "b/uid-b/Running", "web/uid-d/"}},
		{3 * time.Second, []string{"a/uid-a/Running", "c/uid-c/Pending", "web/uid-d/"}},
		{4500 * time.Millisecond, []string{"a/uid-a/Running", "b/uid-b2/Pending", "c/uid-c/Pending", "web/uid-d/"}},
		{time.Hour, []string{"a/uid-a/Succeeded", "b/uid-b2/Running", "web/uid-d/"}},
	}
	for _, tt := range tests {
		t.Run(tt.at.String(), func(t *testing.T) {
			r, err := NewReader(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			state, err := StateAt(r, t0.Add(tt.at))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, o := range state {
				phase, _, _ := unstructured.NestedString(o.Object, "status", "phase")
				got = append(got, o.GetName()+"/"+string(o.GetUID())+"/"+phase)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("StateAt(%v) = %v, want %v", tt.at, got, tt.want)
			}
		})
	}
}

func TestSummarize(t *testing.T) {
	data, _ := write(t, testEvents())
	r, err := NewReader(bytes.NewReader(data[:len(data)-3]))
	if err != nil {
		t.Fatal(err)
	}
	s, err := Summarize(r)
	if err != nil {
		t.Fatal(err)
	}
	want := Summary{Events: 11, Objects: 5, Initial: 3, First: t0, Last: t0.Add(8 * time.Second), Truncated: true}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("Summarize = %+v, want %+v", s, want)
	}
}

func TestCreateOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rec")
	w, err := Create(path, testHeader())
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := IsRecording(path); !ok || err != nil {
		t.Errorf("IsRecording of a file just created = %v, %v, want true", ok, err)
	}
	for _, ev := range testEvents()[:4] {
		if err := w.Write(ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	// An open writer's file reads up to its last flush.
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Summarize(r)
	if err != nil || s.Events != 4 || !s.Truncated {
		t.Errorf("Summarize of a file being written = %+v, %v, want 4 events, truncated", s, err)
	}
	_ = r.Close()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := Create(path, testHeader()); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("Create over an existing file: err = %v, want an error naming it", err)
	}
	other := filepath.Join(t.TempDir(), "other")
	if err := os.WriteFile(other, []byte("apiVersion: v1\nkind: List\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if ok, err := IsRecording(other); ok || err != nil {
		t.Errorf("IsRecording(YAML) = %v, %v, want false", ok, err)
	}
	if _, err := Open(other); err == nil || !strings.Contains(err.Error(), other) {
		t.Errorf("Open(YAML): err = %v, want an error naming the file", err)
	}
}

func TestWriteErrors(t *testing.T) {
	w, err := NewWriter(io.Discard, testHeader())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		ev   Event
		want string
	}{
		{"no object", Event{Type: watch.Added}, "without an object"},
		{"bad type", Event{Type: watch.Bookmark, Object: pod("a", "u", "", nil)}, "not Added"},
		{"type index", Event{Type: watch.Added, TypeIndex: 2, Object: pod("a", "u", "", nil)}, "type index 2"},
		{"kind mismatch", Event{Type: watch.Added, TypeIndex: 1, Object: pod("a", "u", "", nil)}, "recording a Pod as type 1"},
		{"no name", Event{Type: watch.Added, Object: pod("", "u", "", nil)}, "without a name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := w.Write(tt.ev); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Write = %v, want an error containing %q", err, tt.want)
			}
		})
	}
	if _, err := NewWriter(io.Discard, Header{}); err == nil {
		t.Errorf("NewWriter without types: err = nil")
	}
}

// gzipLines compresses lines as a recording file.
func gzipLines(lines ...string) []byte {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	for _, l := range lines {
		_, _ = gz.Write([]byte(l + "\n"))
	}
	_ = gz.Close()
	return buf.Bytes()
}

func TestReaderRefusesGarbage(t *testing.T) {
	header := `{"format":"kubectl-informer-recording","version":1,"started":"2026-11-26T01:00:00Z","types":[{"version":"v1","resource":"pods","kind":"Pod","namespaced":true}]}`
	obj := `{"metadata":{"name":"a","namespace":"n","uid":"u"}}`
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"not gzip", []byte("hello"), "not gzip"},
		{"empty stream", gzipLines(), "ends before its header"},
		{"header not JSON", gzipLines("nope"), "record 1: not a recording header"},
		{"other format", gzipLines(`{"format":"x","version":1}`), `record 1: not a recording (format "x"`},
		{"newer version", gzipLines(`{"format":"kubectl-informer-recording","version":2,"types":[{"version":"v1","resource":"pods","kind":"Pod"}]}`), "version 2"},
		{"no types", gzipLines(`{"format":"kubectl-informer-recording","version":1}`), "no types"},
		{"event not JSON", gzipLines(header, "{"), "record 2: not an event"},
		{"bad event type", gzipLines(header, `{"t":"2026-11-26T01:00:00Z","e":"X","k":[0,"n","a","u"],"o":`+obj+`}`), `record 2: event type "X"`},
		{"type out of range", gzipLines(header, `{"t":"2026-11-26T01:00:00Z","e":"A","k":[1,"n","a","u"],"o":`+obj+`}`), "record 2: the key's type 1"},
		{"short key", gzipLines(header, `{"t":"2026-11-26T01:00:00Z","e":"A","k":[0,"n"],"o":`+obj+`}`), "record 2: the key"},
		{"patch first", gzipLines(header, `{"t":"2026-11-26T01:00:00Z","e":"M","k":[0,"n","a","u"],"p":{}}`), "record 2: MODIFIED of pods n/a, an object not recorded before"},
		{"delete first", gzipLines(header, `{"t":"2026-11-26T01:00:00Z","e":"D","k":[0,"n","a","u"]}`), "record 2: DELETED of pods n/a"},
		{"object not an object", gzipLines(header, `{"t":"2026-11-26T01:00:00Z","e":"A","k":[0,"n","a","u"],"o":[1]}`), "record 2: the object is not a JSON object"},
		{"key mismatch", gzipLines(header, `{"t":"2026-11-26T01:00:00Z","e":"A","k":[0,"n","b","u"],"o":`+obj+`}`), "does not match its key"},
		{"modify without content", gzipLines(header, `{"t":"2026-11-26T01:00:00Z","e":"A","k":[0,"n","a","u"],"o":`+obj+`}`, `{"t":"2026-11-26T01:00:01Z","e":"M","k":[0,"n","a","u"]}`), "record 3: MODIFIED of pods n/a holds neither"},
		{"patch renames", gzipLines(header, `{"t":"2026-11-26T01:00:00Z","e":"A","k":[0,"n","a","u"],"o":`+obj+`}`, `{"t":"2026-11-26T01:00:01Z","e":"M","k":[0,"n","a","u"],"p":{"metadata":{"name":"z"}}}`), "record 3: the object n/z"},
		{"unknown field", gzipLines(header, `{"t":"2026-11-26T01:00:00Z","e":"A","x":1,"k":[0,"n","a","u"],"o":`+obj+`}`), "record 2: not an event"},
		{"huge record", gzipLines(header, strings.Repeat(" ", MaxRecordSize+1)), "record 2: longer than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := NewReader(bytes.NewReader(tt.data))
			for err == nil {
				_, err = r.Next()
			}
			if errors.Is(err, io.EOF) || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "recording: ") {
				t.Errorf("reading: err = %v, want an error naming the recording and containing %q", err, tt.want)
			}
		})
	}
}

func FuzzReader(f *testing.F) {
	data, _ := writeFuzzSeed()
	f.Add(data)
	f.Add(data[:len(data)/2])
	f.Add(gzipLines(`{"format":"kubectl-informer-recording","version":1,"types":[{"version":"v1","resource":"pods","kind":"Pod"}]}`,
		`{"t":"2026-11-26T01:00:00Z","e":"A","k":[0,"n","a","u"],"o":{"metadata":{"name":"a","namespace":"n","uid":"u"}}}`,
		`{"t":"2026-11-26T01:00:01Z","e":"M","k":[0,"n","a","u"],"p":{"spec":{"x":[1,{"y":null}]}}}`,
		`{"t":"2026-11-26T01:00:02Z","e":"D","k":[0,"n","a","u"]}`))
	f.Add([]byte{0x1f, 0x8b})
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := NewReader(bytes.NewReader(data))
		if err != nil {
			return
		}
		for i := 0; ; i++ {
			ev, err := r.Next()
			if err != nil {
				if errors.Is(err, io.EOF) && i > 0 && r.Records() != i+1 {
					t.Fatalf("read %d events in %d records", i, r.Records())
				}
				return
			}
			if ev.Object == nil || ev.Object.GetName() == "" {
				t.Fatalf("event %d has no object or no name", i)
			}
		}
	})
}

// writeFuzzSeed is the test sequence's recording, without a *testing.T.
func writeFuzzSeed() ([]byte, error) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, testHeader())
	if err != nil {
		return nil, err
	}
	for _, ev := range testEvents() {
		if err := w.Write(ev); err != nil {
			return nil, err
		}
		_ = w.Flush()
	}
	return buf.Bytes(), w.Close()
}
