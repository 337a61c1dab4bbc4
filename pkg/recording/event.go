package recording

import (
	"encoding/json"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
)

// MaxRecordSize bounds one record of a recording, and one object as the
// reader reconstructs it, in bytes of JSON.
const MaxRecordSize = 64 << 20

// Event is one recorded watch event.
type Event struct {
	// Time is when the recorder saw the event. A writer keeps times in
	// order: an event earlier than the one before it is recorded at the
	// time of the one before.
	Time time.Time
	// Type is watch.Added, watch.Modified or watch.Deleted.
	Type watch.EventType
	// Initial says the event is part of the state at the start of the
	// recording (the initial list), recorded before any live event.
	Initial bool
	// TypeIndex is the index of the object's type in the header's Types.
	TypeIndex int
	// Object is the object after the event; for watch.Deleted, its last
	// state. The reader returns a new object for each event, which the
	// caller may keep and modify.
	Object *unstructured.Unstructured
}

// key is what identifies an object in a recording: a recreated object (a
// new uid under the same name) is another object.
type key struct {
	typeIndex       int
	namespace, name string
	uid             types.UID
}

// record is an event as the file stores it.
type record struct {
	Time    time.Time       `json:"t"`
	Event   string          `json:"e"`
	Initial bool            `json:"i,omitempty"`
	Key     json.RawMessage `json:"k"`
	Object  json.RawMessage `json:"o,omitempty"`
	Patch   json.RawMessage `json:"p,omitempty"`
}

// eventCodes are the records' names of the watch event types.
var eventCodes = map[watch.EventType]string{
	watch.Added:    "A",
	watch.Modified: "M",
	watch.Deleted:  "D",
}

// eventTypes inverts eventCodes.
var eventTypes = map[string]watch.EventType{
	"A": watch.Added,
	"M": watch.Modified,
	"D": watch.Deleted,
}
