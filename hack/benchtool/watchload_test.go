package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestReadChurnStamps(t *testing.T) {
	path := filepath.Join(t.TempDir(), "stamps")
	data := "1000000000 label ns/a 10\n" +
		"2000000000 delete ns/b -\n" +
		"3000000000 create ns/b 12\n"
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := readChurnStamps(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.changes) != 2 || s.changes[10].key != "ns/a" || s.changes[12].at != time.Unix(3, 0) {
		t.Errorf("changes = %v", s.changes)
	}
	if s.deletes["ns/b"] != 1 || s.deleteCount() != 1 {
		t.Errorf("deletes = %v", s.deletes)
	}
	if err := os.WriteFile(path, []byte("1 label ns/a\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := readChurnStamps(path); err == nil {
		t.Error("a line of 3 fields was read without an error")
	}
}

func TestCheckLoadEvents(t *testing.T) {
	at := func(ms int) time.Time { return time.Unix(0, 0).Add(time.Duration(ms) * time.Millisecond) }
	stamps := churnStamps{
		changes: map[uint64]stampedChange{
			10: {at: at(0), key: "ns/a"},
			11: {at: at(0), key: "ns/b"},
			12: {at: at(5), key: "ns/a"},
			13: {at: at(5), key: "ns/c"},
			14: {at: at(9), key: "ns/b"},
		},
		deletes: map[string]int{"ns/b": 1},
	}
	events := []loadEvent{
		{at: at(2), typ: "MODIFIED", key: "ns/a", rv: 10},
		{at: at(3), typ: "MODIFIED", key: "ns/b", rv: 11},
		{at: at(6), typ: "DELETED", key: "ns/b", rv: 11},
		{at: at(8), typ: "MODIFIED", key: "ns/a", rv: 12},
		{at: at(9), typ: "MODIFIED", key: "ns/a", rv: 10}, // back in time
		{at: at(9), typ: "MODIFIED", key: "ns/a", rv: 12}, // again
		{at: at(12), typ: "ADDED", key: "ns/b", rv: 14},
		// ns/c's change 13 is never printed.
	}
	w := checkLoadEvents(events, stamps)
	if w.events != 7 || w.matched != 4 || w.missing != 1 || w.deletes != 1 || w.deletesMissing != 0 {
		t.Errorf("events %d, matched %d, missing %d, deletes %d/%d missing; want 7, 4, 1, 1/0", w.events, w.matched, w.missing, w.deletes, w.deletesMissing)
	}
	if w.reordered != 1 || w.duplicates != 1 {
		t.Errorf("reordered %d, duplicates %d; want 1, 1", w.reordered, w.duplicates)
	}
	if w.lost() != 1 {
		t.Errorf("lost = %d, want 1", w.lost())
	}
	if w.max != 3*time.Millisecond || w.p50 < 2*time.Millisecond {
		t.Errorf("lag p50 %s max %s, want max 3ms", w.p50, w.max)
	}
	// A change merged into a later event is not lost; a delete never
	// printed is.
	events[len(events)-1].coalesced = 1
	stamps.deletes["ns/c"] = 1
	w = checkLoadEvents(events, stamps)
	if w.coalesced != 1 || w.deletesMissing != 1 || w.lost() != 1 {
		t.Errorf("coalesced %d, deletes missing %d, lost %d; want 1, 1, 1", w.coalesced, w.deletesMissing, w.lost())
	}
}

func TestParseLoadEvent(t *testing.T) {
	line := `{"type":"MODIFIED","object":{"kind":"Pod","metadata":{"name":"p","namespace":"ns","resourceVersion":"42"}},"patch":[{"op":"replace","path":"/metadata/resourceVersion","value":"1"}],"coalesced":2}`
	ev, err := parseLoadEvent(time.Unix(1, 0), []byte(line))
	if err != nil {
		t.Fatal(err)
	}
	if ev.typ != "MODIFIED" || ev.key != "ns/p" || ev.rv != 42 || ev.coalesced != 2 {
		t.Errorf("parsed %+v", ev)
	}
	if _, err := parseLoadEvent(time.Time{}, []byte(`{"type":"ADDED","object":{"metadata":{}}}`)); err == nil {
		t.Error("an event without a resourceVersion was read without an error")
	}
}
