package object

import (
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
)

// CoreEvent converts an events.k8s.io/v1 Event to the core/v1 Event the API
// server stores and prints for it, as k8s.io/kubernetes/pkg/apis/events/v1's
// conversion does: regarding is the involved object, note the message, and the
// deprecated fields the source, first and last times and count. The result
// says apiVersion v1, kind Event, and shares e's metadata, references and
// series times; the caller must not change either.
func CoreEvent(e *eventsv1.Event) *corev1.Event {
	out := &corev1.Event{
		ObjectMeta:          e.ObjectMeta,
		InvolvedObject:      e.Regarding,
		Reason:              e.Reason,
		Message:             e.Note,
		Source:              e.DeprecatedSource,
		FirstTimestamp:      e.DeprecatedFirstTimestamp,
		LastTimestamp:       e.DeprecatedLastTimestamp,
		Count:               e.DeprecatedCount,
		Type:                e.Type,
		EventTime:           e.EventTime,
		Action:              e.Action,
		Related:             e.Related,
		ReportingController: e.ReportingController,
		ReportingInstance:   e.ReportingInstance,
	}
	out.APIVersion, out.Kind = "v1", "Event"
	if e.Series != nil {
		out.Series = &corev1.EventSeries{Count: e.Series.Count, LastObservedTime: e.Series.LastObservedTime}
	}
	return out
}
