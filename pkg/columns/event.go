package columns

import (
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"

	"github.com/kubectl-informer/kubectl-informer/pkg/object"
)

// eventTable is the Table of core/v1 events. Its first column is LAST SEEN, and NAME is its last,
// wide-only column.
var eventTable = Table{
	Columns: columnsOf([]string{"Last Seen", "Type", "Reason", "Object", "Subobject", "Source", "Message",
		"First Seen", "Count", "Name"},
		"Subobject", "Source", "First Seen", "Count", "Name"),
	Row: typedRow(eventRow),
}

// eventRow is printers.go's printEvent, in the wide mode the API server prints with.
func eventRow(e *corev1.Event, now time.Time) []string {
	firstSeen := age(e.FirstTimestamp, now)
	if e.FirstTimestamp.IsZero() {
		firstSeen = microAge(e.EventTime, now)
	}
	lastSeen := age(e.LastTimestamp, now)
	if e.LastTimestamp.IsZero() {
		lastSeen = firstSeen
	}
	count := e.Count
	if e.Series != nil {
		lastSeen = microAge(e.Series.LastObservedTime, now)
		count = e.Series.Count
	} else if count == 0 {
		// Singleton events of the events.k8s.io API have no count.
		count = 1
	}

	object := strings.ToLower(e.InvolvedObject.Kind)
	if e.InvolvedObject.Name != "" {
		object += "/" + e.InvolvedObject.Name
	}
	source := firstNonEmpty(e.Source.Component, e.ReportingController)
	if instance := firstNonEmpty(e.Source.Host, e.ReportingInstance); instance != "" {
		source += ", " + instance
	}
	return []string{
		lastSeen, e.Type, e.Reason, object, e.InvolvedObject.FieldPath, source, strings.TrimSpace(e.Message),
		firstSeen, strconv.FormatInt(int64(count), 10), e.Name,
	}
}

// firstNonEmpty returns the first of a and b that is not empty.
func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// eventsV1Table is the Table of events.k8s.io events: the API server stores them as core events and
// prints them with printEvent, so the columns are eventTable's.
var eventsV1Table = Table{
	Columns: eventTable.Columns,
	Row: typedRow(func(e *eventsv1.Event, now time.Time) []string {
		return eventRow(object.CoreEvent(e), now)
	}),
}
