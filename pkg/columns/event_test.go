package columns

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// pulled is the object of the test events.
var pulled = corev1.ObjectReference{Kind: "Pod", Name: "web-1", FieldPath: "spec.containers{app}"}

func TestEventRow(t *testing.T) {
	runRows(t, schema.GroupResource{Resource: "events"}, []rowCase{
		{
			// core/v1 event: LAST SEEN lastTimestamp, FIRST SEEN firstTimestamp, COUNT count;
			// OBJECT lower-case kind/name; SOURCE "component, host"; MESSAGE trimmed.
			name: "core event",
			obj: &corev1.Event{ObjectMeta: objMeta("web-1.17f3"), InvolvedObject: pulled, Type: corev1.EventTypeNormal,
				Reason: "Pulled", Message: "  Successfully pulled image\n", Count: 3,
				Source:         corev1.EventSource{Component: "kubelet", Host: "node-1"},
				FirstTimestamp: ago(2 * time.Hour), LastTimestamp: ago(90 * time.Second)},
			want: []string{"90s", "Normal", "Pulled", "pod/web-1", "spec.containers{app}", "kubelet, node-1",
				"Successfully pulled image", "120m", "3", "web-1.17f3"},
		},
		{
			// events.k8s.io singleton: no firstTimestamp, so FIRST SEEN is eventTime and LAST SEEN
			// follows it; count 0 prints 1; SOURCE from reportingController/-Instance.
			name: "new API singleton",
			obj: &corev1.Event{ObjectMeta: objMeta("web.17f4"), InvolvedObject: corev1.ObjectReference{Kind: "Deployment", Name: "web"},
				Type: corev1.EventTypeWarning, Reason: "Failed", Message: "boom",
				EventTime: metav1.NewMicroTime(now.Add(-10 * time.Minute)), ReportingController: "deployment-controller"},
			want: []string{"10m", "Warning", "Failed", "deployment/web", "", "deployment-controller", "boom", "10m", "1", "web.17f4"},
		},
		{
			// A series: LAST SEEN is series.lastObservedTime and COUNT series.count; an object with
			// no name prints its kind only; no times at all print "<unknown>".
			name: "series",
			obj: &corev1.Event{ObjectMeta: objMeta("cluster.1"), InvolvedObject: corev1.ObjectReference{Kind: "Node"},
				Reason: "Rebooted", Count: 2, ReportingInstance: "node-1",
				Series: &corev1.EventSeries{Count: 7, LastObservedTime: metav1.NewMicroTime(now.Add(-3 * time.Minute))}},
			want: []string{"3m", "", "Rebooted", "node", "", ", node-1", "", "<unknown>", "7", "cluster.1"},
		},
	})
}

func TestEventsV1Row(t *testing.T) {
	runRows(t, schema.GroupResource{Group: "events.k8s.io", Resource: "events"}, []rowCase{
		{
			// Converted as the API server converts it: regarding is OBJECT, note is MESSAGE,
			// the deprecated fields give SOURCE, FIRST SEEN, LAST SEEN and COUNT.
			name: "deprecated fields",
			obj: &eventsv1.Event{ObjectMeta: objMeta("web-1.17f3"), Regarding: pulled, Type: corev1.EventTypeNormal,
				Reason: "Pulled", Note: "Successfully pulled image ", DeprecatedCount: 3,
				DeprecatedSource:         corev1.EventSource{Component: "kubelet", Host: "node-1"},
				DeprecatedFirstTimestamp: ago(2 * time.Hour), DeprecatedLastTimestamp: ago(90 * time.Second)},
			want: []string{"90s", "Normal", "Pulled", "pod/web-1", "spec.containers{app}", "kubelet, node-1",
				"Successfully pulled image", "120m", "3", "web-1.17f3"},
		},
		{
			// The events.k8s.io way: eventTime, reportingController/-Instance and a series.
			name: "series",
			obj: &eventsv1.Event{ObjectMeta: objMeta("web.17f4"), Regarding: corev1.ObjectReference{Kind: "Deployment", Name: "web"},
				Type: corev1.EventTypeWarning, Reason: "Failed", Note: "boom", ReportingController: "deployment-controller",
				ReportingInstance: "cm-1", EventTime: metav1.NewMicroTime(now.Add(-10 * time.Minute)),
				Series: &eventsv1.EventSeries{Count: 4, LastObservedTime: metav1.NewMicroTime(now.Add(-time.Minute))}},
			want: []string{"60s", "Warning", "Failed", "deployment/web", "", "deployment-controller, cm-1", "boom", "10m", "4", "web.17f4"},
		},
	})
}
