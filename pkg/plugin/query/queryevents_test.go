package query

import (
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/printing"
	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/protocol"
)

func TestDescribeEvent(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	tests := []struct {
		name string
		ev   corev1.Event
		want []string
	}{
		{
			name: "once, core/v1 recorder",
			ev: corev1.Event{Type: "Normal", Reason: "Pulled", Message: " pulled image \n", Source: corev1.EventSource{Component: "kubelet", Host: "n1"},
				FirstTimestamp: metav1.NewTime(ago(90 * time.Second)), LastTimestamp: metav1.NewTime(ago(90 * time.Second)), Count: 1},
			want: []string{"Normal", "Pulled", "90s", "kubelet", "pulled image"},
		},
		{
			name: "counted",
			ev: corev1.Event{Type: "Warning", Reason: "BackOff", Message: "back-off", Source: corev1.EventSource{Component: "kubelet"},
				FirstTimestamp: metav1.NewTime(ago(20 * time.Minute)), LastTimestamp: metav1.NewTime(ago(5 * time.Minute)), Count: 7,
				InvolvedObject: corev1.ObjectReference{FieldPath: "spec.containers{app}"}},
			want: []string{"Warning", "BackOff", "5m (x7 over 20m)", "kubelet", "spec.containers{app}: back-off"},
		},
		{
			name: "series, events.k8s.io recorder",
			ev: corev1.Event{Type: "Warning", Reason: "FailedScheduling", Message: "0/3 nodes are available", ReportingController: "default-scheduler",
				EventTime: metav1.NewMicroTime(ago(10 * time.Minute)), Series: &corev1.EventSeries{Count: 3, LastObservedTime: metav1.NewMicroTime(ago(time.Minute))}},
			want: []string{"Warning", "FailedScheduling", "60s (x3 over 10m)", "default-scheduler", "0/3 nodes are available"},
		},
		{
			name: "once, events.k8s.io recorder",
			ev: corev1.Event{Type: "Normal", Reason: "Scheduled", Message: "assigned", ReportingController: "default-scheduler",
				EventTime: metav1.NewMicroTime(ago(3 * time.Hour))},
			want: []string{"Normal", "Scheduled", "3h", "default-scheduler", "assigned"},
		},
		{
			name: "no times",
			ev:   corev1.Event{Type: "Normal", Reason: "Odd"},
			want: []string{"Normal", "Odd", "<unknown>", "", ""},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := describeEvent(&tt.ev, now); !slices.Equal(got, tt.want) {
				t.Errorf("describeEvent(%s) = %q, want %q", tt.name, got, tt.want)
			}
		})
	}
}

func TestEventCells(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	indexers := cache.Indexers{}
	for _, def := range index.EventRegardingIndexes() {
		indexers[def.Name] = def.Func
	}
	events := cache.NewIndexer(cache.MetaNamespaceKeyFunc, indexers)
	for _, ev := range []*corev1.Event{
		{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "e1"}, InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: "shop", Name: "web", UID: "u"},
			Type: "Normal", Reason: "Scheduled", Message: "assigned", ReportingController: "default-scheduler", EventTime: metav1.NewMicroTime(now.Add(-time.Hour))},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "e2"}, InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: "shop", Name: "web", UID: "u"},
			Type: "Warning", Reason: "BackOff", Message: "back-off", Source: corev1.EventSource{Component: "kubelet"},
			FirstTimestamp: metav1.NewTime(now.Add(-time.Minute)), LastTimestamp: metav1.NewTime(now.Add(-time.Minute)), Count: 1},
	} {
		if err := events.Add(ev); err != nil {
			t.Fatal(err)
		}
	}
	pod := func(uid string) *corev1.Pod {
		return &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", UID: types.UID(uid)}}
	}
	shown := queryPrintConfig{showEvents: true, events: index.EventIndexer{Indexers: []cache.Indexer{events}}}
	tests := []struct {
		name string
		cfg  queryPrintConfig
		obj  interface{}
		want []string
	}{
		{"latest event", shown, pod("u"), []string{"Warning", "BackOff", "60s", "kubelet", "back-off"}},
		{"no event", shown, pod("other"), []string{"<none>", "<none>", "<none>", "<none>", "<none>"}},
		{"events not read", queryPrintConfig{showEvents: true}, pod("u"), []string{"<none>", "<none>", "<none>", "<none>", "<none>"}},
		{"without --show-events", queryPrintConfig{}, pod("u"), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.cfg.eventCells(tt.obj, now); !slices.Equal(got, tt.want) {
				t.Errorf("eventCells(%s) = %q, want %q", tt.name, got, tt.want)
			}
			if got, want := len(tt.cfg.eventHeaders()), len(tt.want); got != want {
				t.Errorf("eventHeaders(%s) has %d headers, want %d", tt.name, got, want)
			}
		})
	}
}

func TestShowEventsValidate(t *testing.T) {
	tests := []struct {
		name    string
		output  string
		grouped bool
		wantErr string
	}{
		{"table", "", false, ""},
		{"wide", "wide", false, ""},
		{"json", "json", false, "--show-events adds columns to a table; it cannot be used with -o json"},
		{"custom columns", "custom-columns=N:.metadata.name", false, "--show-events adds columns to a table; it cannot be used with -o custom-columns=N:.metadata.name"},
		{"grouped", "", true, "--show-events adds columns to a table of objects; it cannot be used with --group-by or --sum"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := printing.ParseOutput(tt.output)
			if err != nil {
				t.Fatal(err)
			}
			o := &QueryOptions{QueryFlags: protocol.QueryFlags{ShowEvents: true, Output: tt.output}, print: queryPrintConfig{out: out}}
			if tt.grouped {
				// The context index groups too, though no target
				// groups by it.
				o.GroupBy = []string{"context"}
			}
			got := ""
			if err := o.validateShowEvents(); err != nil {
				got = err.Error()
			}
			if got != tt.wantErr {
				t.Errorf("validateShowEvents(%s) = %q, want %q", tt.name, got, tt.wantErr)
			}
		})
	}
}
