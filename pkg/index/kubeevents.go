package index

import (
	"cmp"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"

	"github.com/kubectl-informer/kubectl-informer/pkg/object"
)

// This file holds the event relation indexes: event.reason, event.type and event.message, which
// join Kubernetes Events (core/v1 or events.k8s.io/v1, the Event objects controllers and the
// scheduler write, not the cache's watch events) onto the objects they are about.
//
// The rule: an object's events are the cached Events whose involvedObject (core/v1) or regarding
// (events.k8s.io/v1) names it, by UID when the event carries one, else by kind, namespace and
// name. Of those, the most recent event of each reason counts (LatestEvents); the cache holds
// what the API server still serves, which deletes events after its --event-ttl (1h by default).

// Index names of the event relation indexes.
const (
	eventReasonIndexName  = "event.reason"
	eventTypeIndexName    = "event.type"
	eventMessageIndexName = "event.message"
)

// Descriptions of the event relation indexes, for `kubectl informer indexers`.
const (
	eventReasonDescription  = "the reason of each recent Event about the object, e.g. FailedScheduling (the most recent event per reason)"
	eventTypeDescription    = "the type (Normal, Warning) of the most recent Event of each reason about the object"
	eventMessageDescription = "the message of the most recent Event of each reason about the object"
)

// Index names of the plain indexes of Events by the object they are about, which the engine
// registers on the Events' informers (EventRegardingIndexes). Their names have a colon, which no
// custom index name has.
const (
	eventRegardingUIDIndexName  = "event:regarding-uid"
	eventRegardingNameIndexName = "event:regarding-name"
)

// KubeEvents is what the event relation indexes read: the cached Events about an object. An
// implementation must be safe for concurrent use.
type KubeEvents interface {
	// EventsAbout returns the cached Events about the object of kind in namespace ("" for a
	// cluster-scoped object) with name and uid: those whose regarding object has uid, and those
	// whose regarding object has no UID and has kind, namespace and name. Each is returned once,
	// as a core/v1 Event (see CoreEvent); the caller must not change them.
	EventsAbout(kind, namespace, name, uid string) []*corev1.Event
}

// EventIndexer is a KubeEvents over informers' indexers of Events (one per namespace cached), each
// with the indexes of EventRegardingIndexes.
type EventIndexer struct{ Indexers []cache.Indexer }

// EventsAbout implements KubeEvents.
func (e EventIndexer) EventsAbout(kind, namespace, name, uid string) []*corev1.Event {
	var out []*corev1.Event
	seen := map[string]bool{}
	add := func(objs []interface{}) {
		for _, obj := range objs {
			ev, ok := CoreEvent(obj)
			if !ok {
				continue
			}
			key := ev.Namespace + "/" + ev.Name
			if seen[key] {
				continue
			}
			seen[key] = true
			out = append(out, ev)
		}
	}
	for _, indexer := range e.Indexers {
		if uid != "" {
			objs, err := indexer.ByIndex(eventRegardingUIDIndexName, uid)
			if err == nil {
				add(objs)
			}
		}
		if kind != "" {
			objs, err := indexer.ByIndex(eventRegardingNameIndexName, regardingName(kind, namespace, name))
			if err == nil {
				add(objs)
			}
		}
	}
	return out
}

// EventRegardingIndexes returns the plain indexes the engine registers on the Events' informers so
// that EventIndexer finds an object's events: by the UID of the regarding object, and, for events
// whose regarding object has no UID, by its kind, namespace and name.
func EventRegardingIndexes() []Definition {
	return []Definition{
		{Name: eventRegardingUIDIndexName, Func: func(obj interface{}) ([]string, error) {
			if ev, ok := CoreEvent(obj); ok && ev.InvolvedObject.UID != "" {
				return []string{string(ev.InvolvedObject.UID)}, nil
			}
			return nil, nil
		}},
		{Name: eventRegardingNameIndexName, Func: func(obj interface{}) ([]string, error) {
			if ev, ok := CoreEvent(obj); ok && ev.InvolvedObject.UID == "" && ev.InvolvedObject.Kind != "" {
				ref := ev.InvolvedObject
				return []string{regardingName(ref.Kind, ref.Namespace, ref.Name)}, nil
			}
			return nil, nil
		}},
	}
}

// regardingName is the value of the event:regarding-name index: kind, namespace and name.
func regardingName(kind, namespace, name string) string {
	return kind + "/" + namespace + "/" + name
}

// RegardingKey returns the storage key ("ns/name", or "name" for a cluster-scoped object) of the
// object an Event is about, and whether obj is an Event that names one.
func RegardingKey(obj interface{}) (string, bool) {
	ev, ok := CoreEvent(obj)
	if !ok || ev.InvolvedObject.Name == "" {
		return "", false
	}
	if ev.InvolvedObject.Namespace == "" {
		return ev.InvolvedObject.Name, true
	}
	return ev.InvolvedObject.Namespace + "/" + ev.InvolvedObject.Name, true
}

// CoreEvent returns obj, an Event of either API in any of its cached forms (typed, unstructured,
// in a tombstone), as a core/v1 Event, and whether it is one. An events.k8s.io/v1 Event is
// converted as the API server converts it (regarding → involvedObject, note → message,
// reportingController → reportingComponent, deprecatedSource, deprecatedFirstTimestamp,
// deprecatedLastTimestamp and deprecatedCount to their core/v1 fields); a core/v1 Event is
// returned as it is, and must not be changed.
func CoreEvent(obj interface{}) (*corev1.Event, bool) {
	switch e := Unwrap(obj).(type) {
	case *corev1.Event:
		return e, e != nil
	case *eventsv1.Event:
		if e == nil {
			return nil, false
		}
		return object.CoreEvent(e), true
	case *unstructured.Unstructured:
		if e == nil || e.GetKind() != "Event" {
			return nil, false
		}
		switch e.GetAPIVersion() {
		case "v1":
			var ev corev1.Event
			if runtime.DefaultUnstructuredConverter.FromUnstructured(e.Object, &ev) != nil {
				return nil, false
			}
			return &ev, true
		case "events.k8s.io/v1":
			var ev eventsv1.Event
			if runtime.DefaultUnstructuredConverter.FromUnstructured(e.Object, &ev) != nil {
				return nil, false
			}
			return object.CoreEvent(&ev), true
		}
	}
	return nil, false
}

// LastSeen is when ev last happened, as kubectl get events' LAST SEEN reads it: the series' last
// observation, else lastTimestamp, else eventTime, else firstTimestamp, else the creation time.
func LastSeen(ev *corev1.Event) time.Time {
	switch {
	case ev.Series != nil && !ev.Series.LastObservedTime.IsZero():
		return ev.Series.LastObservedTime.Time
	case !ev.LastTimestamp.IsZero():
		return ev.LastTimestamp.Time
	case !ev.EventTime.IsZero():
		return ev.EventTime.Time
	case !ev.FirstTimestamp.IsZero():
		return ev.FirstTimestamp.Time
	}
	return ev.CreationTimestamp.Time
}

// LatestEvents returns, of events, the most recent of each reason (by LastSeen; of two at the
// same time, the later created, then the greater name), most recent first.
func LatestEvents(events []*corev1.Event) []*corev1.Event {
	byReason := map[string]*corev1.Event{}
	for _, ev := range events {
		if cur, ok := byReason[ev.Reason]; !ok || compareEvents(ev, cur) > 0 {
			byReason[ev.Reason] = ev
		}
	}
	latest := make([]*corev1.Event, 0, len(byReason))
	for _, ev := range byReason {
		latest = append(latest, ev)
	}
	slices.SortFunc(latest, func(a, b *corev1.Event) int { return compareEvents(b, a) })
	return latest
}

// compareEvents orders events by when they last happened, then by creation, then by name.
func compareEvents(a, b *corev1.Event) int {
	if c := LastSeen(a).Compare(LastSeen(b)); c != 0 {
		return c
	}
	if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
		return c
	}
	return cmp.Compare(a.Name, b.Name)
}

// EventsOf returns the most recent Event of each reason about obj in events (LatestEvents), most
// recent first; none when events is nil or obj has no metadata. The object's kind is read from
// its type meta, which the engine sets on cached objects; without one, events that name the
// object without a UID are not found.
func EventsOf(events KubeEvents, obj interface{}) []*corev1.Event {
	if events == nil {
		return nil
	}
	m, err := accessor(obj)
	if err != nil {
		return nil
	}
	kind := ""
	if t, err := meta.TypeAccessor(Unwrap(obj)); err == nil {
		kind = t.GetKind()
	}
	return LatestEvents(events.EventsAbout(kind, m.GetNamespace(), m.GetName(), string(m.GetUID())))
}

// eventRelation returns the Definition of event.reason, event.type or event.message (name) over
// related: the reason, type or message of the most recent Event of each reason about the object
// (see EventsOf), most recent first, without repeats. Its values read the Events cache at the
// time of the call: hold them in a RelationIndex, never in a client-go indexer, and refresh the
// object an Event is about when the Event changes (see RelationIndex).
func eventRelation(name string, related KubeEvents) Definition {
	description, field := eventReasonDescription, func(ev *corev1.Event) string { return ev.Reason }
	switch name {
	case eventTypeIndexName:
		description, field = eventTypeDescription, func(ev *corev1.Event) string { return ev.Type }
	case eventMessageIndexName:
		description, field = eventMessageDescription, func(ev *corev1.Event) string { return strings.TrimSpace(ev.Message) }
	}
	return Definition{
		Name:         name,
		Description:  description,
		MetadataOnly: true,
		Relation:     EventRelation,
		Func: func(obj interface{}) ([]string, error) {
			if _, err := accessor(obj); err != nil {
				return nil, err
			}
			var values []string
			for _, ev := range EventsOf(related, obj) {
				values = appendUniqueNonEmpty(values, field(ev))
			}
			return values, nil
		},
	}
}

// lookupEventRelation returns the unbound Definition of an event relation index name, and
// whether name is one.
func lookupEventRelation(name string) (Definition, bool) {
	switch name {
	case eventReasonIndexName, eventTypeIndexName, eventMessageIndexName:
		return eventRelation(name, nil), true
	}
	return Definition{}, false
}
