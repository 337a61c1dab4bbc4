package index

import (
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	"github.com/kubectl-informer/kubectl-informer/pkg/object"
)

// at is a fixed reference time plus d, for event timestamps.
func at(d time.Duration) time.Time { return time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC).Add(d) }

// coreEvent is a core/v1 Event about the pod ns/name with uid, last seen at
// lastSeen (lastTimestamp).
func coreEvent(name, uid, pod, reason, typ, message string, lastSeen time.Duration) *corev1.Event {
	return &corev1.Event{
		TypeMeta:       metav1.TypeMeta{APIVersion: "v1", Kind: "Event"},
		ObjectMeta:     metav1.ObjectMeta{Namespace: "shop", Name: name, CreationTimestamp: metav1.NewTime(at(0))},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: "shop", Name: pod, UID: types.UID(uid)},
		Reason:         reason, Type: typ, Message: message,
		FirstTimestamp: metav1.NewTime(at(0)), LastTimestamp: metav1.NewTime(at(lastSeen)),
	}
}

// schedulerEvent is an events.k8s.io/v1 Event as the scheduler writes it:
// eventTime and a series, no deprecated fields.
func schedulerEvent(name, uid, pod, reason, note string, lastObserved time.Duration) *eventsv1.Event {
	return &eventsv1.Event{
		TypeMeta:            metav1.TypeMeta{APIVersion: "events.k8s.io/v1", Kind: "Event"},
		ObjectMeta:          metav1.ObjectMeta{Namespace: "shop", Name: name, CreationTimestamp: metav1.NewTime(at(0))},
		Regarding:           corev1.ObjectReference{Kind: "Pod", Namespace: "shop", Name: pod, UID: types.UID(uid)},
		Reason:              reason,
		Type:                "Warning",
		Note:                note,
		EventTime:           metav1.NewMicroTime(at(0)),
		Series:              &eventsv1.EventSeries{Count: 3, LastObservedTime: metav1.NewMicroTime(at(lastObserved))},
		ReportingController: "default-scheduler",
		ReportingInstance:   "default-scheduler-cp",
		Action:              "Scheduling",
	}
}

// unstructuredOf returns obj as an unstructured object.
func unstructuredOf(t *testing.T, obj runtime.Object) *unstructured.Unstructured {
	t.Helper()
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: content}
}

func TestCoreEvent(t *testing.T) {
	core := coreEvent("e1", "u1", "web", "BackOff", "Warning", "restarting", time.Minute)
	v1 := schedulerEvent("e2", "u1", "web", "FailedScheduling", "0/3 nodes are available", 2*time.Minute)
	tests := []struct {
		name                               string
		obj                                interface{}
		wantOK                             bool
		wantReason, wantMessage, wantUID   string
		wantSource                         string
		wantSeries                         int32
		wantLastSeen                       time.Time
		wantEventTime, wantFirstTimestamp0 bool
	}{
		{"core typed", core, true, "BackOff", "restarting", "u1", "", 0, at(time.Minute), false, false},
		{"core unstructured", unstructuredOf(t, core), true, "BackOff", "restarting", "u1", "", 0, at(time.Minute), false, false},
		{"core tombstone", cache.DeletedFinalStateUnknown{Obj: core}, true, "BackOff", "restarting", "u1", "", 0, at(time.Minute), false, false},
		{"events.k8s.io typed", v1, true, "FailedScheduling", "0/3 nodes are available", "u1", "default-scheduler", 3, at(2 * time.Minute), true, true},
		{"events.k8s.io unstructured", unstructuredOf(t, v1), true, "FailedScheduling", "0/3 nodes are available", "u1", "default-scheduler", 3, at(2 * time.Minute), true, true},
		{"a pod", &corev1.Pod{}, false, "", "", "", "", 0, time.Time{}, false, false},
		{"an unstructured pod", &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": "v1", "kind": "Pod"}}, false, "", "", "", "", 0, time.Time{}, false, false},
		{"nil event", (*corev1.Event)(nil), false, "", "", "", "", 0, time.Time{}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev, ok := CoreEvent(tt.obj)
			if ok != tt.wantOK {
				t.Fatalf("CoreEvent(%s) ok = %v, want %v", tt.name, ok, tt.wantOK)
			}
			if !ok {
				return
			}
			source := ev.Source.Component
			if source == "" {
				source = ev.ReportingController
			}
			var series int32
			if ev.Series != nil {
				series = ev.Series.Count
			}
			got := []interface{}{ev.Reason, ev.Message, string(ev.InvolvedObject.UID), source, series, LastSeen(ev).UTC(), !ev.EventTime.IsZero(), ev.FirstTimestamp.IsZero()}
			want := []interface{}{tt.wantReason, tt.wantMessage, tt.wantUID, tt.wantSource, tt.wantSeries, tt.wantLastSeen, tt.wantEventTime, tt.wantFirstTimestamp0}
			if !slices.Equal(got, want) {
				t.Errorf("CoreEvent(%s) = %v, want %v", tt.name, got, want)
			}
		})
	}
}

func TestLastSeen(t *testing.T) {
	base := func() *corev1.Event {
		return &corev1.Event{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(at(time.Second))}}
	}
	withAll := base()
	withAll.FirstTimestamp = metav1.NewTime(at(2 * time.Second))
	withAll.EventTime = metav1.NewMicroTime(at(3 * time.Second))
	withAll.LastTimestamp = metav1.NewTime(at(4 * time.Second))
	withAll.Series = &corev1.EventSeries{Count: 2, LastObservedTime: metav1.NewMicroTime(at(5 * time.Second))}
	noSeries := withAll.DeepCopy()
	noSeries.Series = nil
	noLast := noSeries.DeepCopy()
	noLast.LastTimestamp = metav1.Time{}
	noEventTime := noLast.DeepCopy()
	noEventTime.EventTime = metav1.MicroTime{}
	tests := []struct {
		name string
		ev   *corev1.Event
		want time.Time
	}{
		{"series", withAll, at(5 * time.Second)},
		{"lastTimestamp", noSeries, at(4 * time.Second)},
		{"eventTime", noLast, at(3 * time.Second)},
		{"firstTimestamp", noEventTime, at(2 * time.Second)},
		{"creation", base(), at(time.Second)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := LastSeen(tt.ev); !got.Equal(tt.want) {
				t.Errorf("LastSeen(%s) = %v, want %v", tt.name, got, tt.want)
			}
		})
	}
}

func TestLatestEvents(t *testing.T) {
	old := coreEvent("a", "u", "web", "BackOff", "Warning", "old back-off", time.Minute)
	recent := coreEvent("b", "u", "web", "BackOff", "Warning", "recent back-off", 3*time.Minute)
	pulled := coreEvent("c", "u", "web", "Pulled", "Normal", "pulled", 2*time.Minute)
	tieLow := coreEvent("d", "u", "web", "Killing", "Normal", "tie d", 4*time.Minute)
	tieHigh := coreEvent("e", "u", "web", "Killing", "Normal", "tie e", 4*time.Minute)
	tests := []struct {
		name   string
		events []*corev1.Event
		want   []string // names, most recent first
	}{
		{"none", nil, []string{}},
		{"most recent per reason, most recent first", []*corev1.Event{old, pulled, recent}, []string{"b", "c"}},
		{"order of input does not matter", []*corev1.Event{recent, old, pulled}, []string{"b", "c"}},
		{"a tie goes to the greater name", []*corev1.Event{tieHigh, tieLow, old}, []string{"e", "a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := []string{}
			for _, ev := range LatestEvents(tt.events) {
				got = append(got, ev.Name)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("LatestEvents(%s) = %q, want %q", tt.name, got, tt.want)
			}
		})
	}
}

// eventIndexer returns an EventIndexer over objs, indexed as the engine
// indexes the Events' informers.
func eventIndexer(t *testing.T, objs ...interface{}) EventIndexer {
	t.Helper()
	indexers := cache.Indexers{}
	for _, def := range EventRegardingIndexes() {
		indexers[def.Name] = def.Func
	}
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, indexers)
	for _, obj := range objs {
		if err := indexer.Add(obj); err != nil {
			t.Fatal(err)
		}
	}
	return EventIndexer{Indexers: []cache.Indexer{indexer}}
}

func TestEventRelation(t *testing.T) {
	byName := coreEvent("by-name", "", "legacy", "Created", "Normal", "made by name", time.Minute)
	events := eventIndexer(t,
		coreEvent("w1", "uid-web", "web", "BackOff", "Warning", "old back-off", time.Minute),
		coreEvent("w2", "uid-web", "web", "BackOff", "Warning", "recent back-off", 3*time.Minute),
		coreEvent("w3", "uid-web", "web", "Pulled", "Normal", "pulled", 2*time.Minute),
		// The same name, an earlier pod: its UID is not the current pod's.
		coreEvent("old-web", "uid-old-web", "web", "Evicted", "Warning", "evicted", 5*time.Minute),
		schedulerEvent("s1", "uid-pending", "pending", "FailedScheduling", "0/3 nodes are available", time.Minute),
		byName,
		// A Service named like the pod, without a UID: not the pod's.
		func() *corev1.Event {
			ev := coreEvent("svc", "", "legacy", "Updated", "Normal", "service", time.Minute)
			ev.InvolvedObject.Kind = "Service"
			return ev
		}(),
	)
	pod := func(name, uid string) *corev1.Pod {
		return &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name, UID: types.UID(uid)}}
	}
	var set *Set
	lookup := func(name string) Definition {
		def, err := set.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if def.Relation != EventRelation || !def.MetadataOnly {
			t.Fatalf("%s: relation %v, metadata-only %v; want EventRelation, true", name, def.Relation, def.MetadataOnly)
		}
		if got := Values(def, pod("web", "uid-web")); got != nil {
			t.Errorf("unbound %s values = %q, want none", name, got)
		}
		return Bind(def, Relations{Events: events})
	}
	reason, typ, message := lookup("event.reason"), lookup("event.type"), lookup("event.message")
	tests := []struct {
		name string
		def  Definition
		obj  interface{}
		want []string
	}{
		{"reasons by uid, most recent first", reason, pod("web", "uid-web"), []string{"BackOff", "Pulled"}},
		{"types of the latest per reason", typ, pod("web", "uid-web"), []string{"Warning", "Normal"}},
		{"messages of the latest per reason", message, pod("web", "uid-web"), []string{"recent back-off", "pulled"}},
		{"another uid, same name", reason, pod("web", "uid-new-web"), nil},
		{"events.k8s.io event", reason, pod("pending", "uid-pending"), []string{"FailedScheduling"}},
		{"events.k8s.io note", message, pod("pending", "uid-pending"), []string{"0/3 nodes are available"}},
		{"no uid: by kind, namespace and name", reason, pod("legacy", "uid-legacy"), []string{"Created"}},
		{"no uid, metadata-only pod", reason, &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "legacy"}}, []string{"Created"}},
		{"no uid, object without a kind", reason, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "legacy"}}, nil},
		{"tombstone", reason, cache.DeletedFinalStateUnknown{Obj: pod("web", "uid-web")}, []string{"BackOff", "Pulled"}},
		{"no events", reason, pod("quiet", "uid-quiet"), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Values(tt.def, tt.obj); !slices.Equal(got, tt.want) {
				t.Errorf("%s(%s) = %q, want %q", tt.def.Name, tt.name, got, tt.want)
			}
		})
	}
	if key, ok := RegardingKey(byName); !ok || key != "shop/legacy" {
		t.Errorf("RegardingKey = %q, %v; want shop/legacy, true", key, ok)
	}
}

// TestEventIndexerCountsAnEventOnce reads one event through both APIs (as
// two informers of one cluster would serve it): it is one event.
func TestEventIndexerCountsAnEventOnce(t *testing.T) {
	v1 := schedulerEvent("s1", "uid-pending", "pending", "FailedScheduling", "0/3 nodes are available", time.Minute)
	both := eventIndexer(t, v1)
	core := eventIndexer(t, object.CoreEvent(v1))
	events := EventIndexer{Indexers: append(both.Indexers, core.Indexers...)}
	if got := events.EventsAbout("Pod", "shop", "pending", "uid-pending"); len(got) != 1 {
		t.Errorf("EventsAbout = %d events, want 1", len(got))
	}
}
