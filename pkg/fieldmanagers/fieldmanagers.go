package fieldmanagers

import (
	"bytes"
	"sort"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// Entry is one managedFields entry: who wrote, through what, when, and the
// fields it owns.
type Entry struct {
	Manager     string
	Operation   string
	Subresource string
	// Time is the entry's time, zero when the server sent none.
	Time time.Time
	// Fields is the set of fields the entry owns; nil when the entry has no
	// fieldsV1 or it does not parse. Sets returned by Entries are shared
	// through a cache and must not be mutated.
	Fields *fieldpath.Set
}

// Name is how the entry is printed: MANAGER/Operation, with /subresource
// when it wrote through one, such as kube-controller-manager/Update/status.
func (e Entry) Name() string {
	name := e.Manager + "/" + e.Operation
	if e.Subresource != "" {
		name += "/" + e.Subresource
	}
	return name
}

// sameWriter reports whether e and o are the entries of one writer in two
// versions of an object.
func (e Entry) sameWriter(o Entry) bool {
	return e.Manager == o.Manager && e.Operation == o.Operation && e.Subresource == o.Subresource
}

// Entries converts managedFields into Entries, parsing each fieldsV1 set.
// Parsed sets are cached by their bytes, so the identical sets of many
// objects (the pods of one ReplicaSet) and of successive versions of one
// object are parsed once.
func Entries(fields []metav1.ManagedFieldsEntry) []Entry {
	if len(fields) == 0 {
		return nil
	}
	out := make([]Entry, len(fields))
	for i, f := range fields {
		e := Entry{Manager: f.Manager, Operation: string(f.Operation), Subresource: f.Subresource}
		if f.Time != nil {
			e.Time = f.Time.Time
		}
		if f.FieldsV1 != nil {
			e.Fields = ParseFieldsV1(f.FieldsV1.GetRawBytes())
		}
		out[i] = e
	}
	return out
}

// parseCacheLimit bounds the sets the parse cache holds; it is emptied when
// full, which keeps it simple and bounded.
const parseCacheLimit = 4096

var parseCache = struct {
	sync.Mutex
	sets map[string]*fieldpath.Set
}{sets: map[string]*fieldpath.Set{}}

// ParseFieldsV1 parses a fieldsV1 set, through a cache keyed by its bytes.
// It returns nil for an empty or invalid set. The set returned may be shared
// with other callers and must not be mutated.
func ParseFieldsV1(raw []byte) *fieldpath.Set {
	if len(raw) == 0 {
		return nil
	}
	parseCache.Lock()
	s, ok := parseCache.sets[string(raw)]
	parseCache.Unlock()
	if ok {
		return s
	}
	s = &fieldpath.Set{}
	if err := s.FromJSON(bytes.NewReader(raw)); err != nil {
		s = nil
	}
	parseCache.Lock()
	if len(parseCache.sets) >= parseCacheLimit {
		clear(parseCache.sets)
	}
	parseCache.sets[string(raw)] = s
	parseCache.Unlock()
	return s
}

// Authors returns the names (Entry.Name) of the entries of newEntries that own
// what changed between old and new, sorted and without duplicates; nil when
// no changed path has an owner.
//
// old and new are the two versions as JSON-like maps (what encoding/json or
// the unstructured converter produce); parts equal on both sides, or absent
// from both, are not changes, so maps holding only the parts that differ
// give the same answer. metadata.managedFields is never a change.
// oldEntries are the old version's entries, read only for their times.
//
// The changed paths are the leaves that differ, a map or list added or
// removed whole counting by its leaves. List elements are identified as the
// sets identify them (by key fields, value or index); where a changed
// element is not named by any set, the change is to the list itself. Each
// changed path is owned by the entries that hold it or, when none does, by
// those that hold its nearest ancestor whole, as a leaf of their set (an
// atomic map or list; "." in fieldsV1 beside children owns a node's
// existence, not what others put in it); of several, those whose time moved
// (or that are new) are kept when any moved.
func Authors(old, new map[string]interface{}, oldEntries, newEntries []Entry) []string {
	if len(newEntries) == 0 {
		return nil
	}
	w := walker{entries: newEntries, owned: make([]bool, len(newEntries)), moved: make([]bool, len(newEntries))}
	for i, e := range newEntries {
		w.moved[i] = true
		for _, o := range oldEntries {
			if e.sameWriter(o) && e.Time.Equal(o.Time) {
				w.moved[i] = false
				break
			}
		}
	}
	roots := make([]*fieldpath.Set, len(newEntries))
	for i, e := range newEntries {
		roots[i] = e.Fields
	}
	w.maps(roots, old, true, new, true)
	var names []string
	for i, owned := range w.owned {
		if owned {
			names = append(names, newEntries[i].Name())
		}
	}
	sort.Strings(names)
	return compact(names)
}

func compact(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
