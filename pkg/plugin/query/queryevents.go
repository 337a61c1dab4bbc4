package query

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"

	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// This file holds query's events column (--show-events): the latest Kubernetes Event about each
// object, appended to kubectl's table in the words `kubectl describe` prints it.

// showEventsFlagUsage is the usage of --show-events.
const showEventsFlagUsage = "Add the latest Event about each object to the table, as 'kubectl describe' prints it: EVENT TYPE, EVENT REASON, EVENT AGE, EVENT FROM and EVENT MESSAGE columns after kubectl's. Events are read from core/v1 Events (see 'event.reason' in 'kubectl informer indexers')."

// eventColumnHeaders are the headers of the events column, describe's Type, Reason, Age, From
// and Message.
var eventColumnHeaders = []string{"EVENT TYPE", "EVENT REASON", "EVENT AGE", "EVENT FROM", "EVENT MESSAGE"}

// validateShowEvents checks --show-events against the output: its columns are a table's.
func (o *QueryOptions) validateShowEvents() error {
	if !o.ShowEvents {
		return nil
	}
	if o.grouped() {
		return fmt.Errorf("--show-events adds columns to a table of objects; it cannot be used with --group-by or --sum")
	}
	if !o.print.out.IsTable() || o.print.out.Format == "custom-columns" {
		return fmt.Errorf("--show-events adds columns to a table; it cannot be used with -o %s", o.Output)
	}
	return nil
}

// eventHeaders returns the headers the events column adds, none without --show-events.
func (c queryPrintConfig) eventHeaders() []string {
	if !c.showEvents {
		return nil
	}
	return eventColumnHeaders
}

// eventCells returns the cells the events column adds for obj, none without --show-events: the
// latest Event about obj (index.EventsOf) as describeEvent words it, or <none> in each.
func (c queryPrintConfig) eventCells(obj interface{}, now time.Time) []string {
	if !c.showEvents {
		return nil
	}
	if latest := index.EventsOf(c.events, obj); len(latest) > 0 {
		return describeEvent(latest[0], now)
	}
	return []string{"<none>", "<none>", "<none>", "<none>", "<none>"}
}

// describeEvent returns ev's Type, Reason, Age, From and Message as `kubectl describe` prints them
// (k8s.io/kubectl/pkg/describe, DescribeEvents), with now as the time of the printing: the age is
// "5m (x3 over 20m)" for a series or a count above one, the source the reporting component's
// name, the message prefixed with the field path of the involved object.
func describeEvent(ev *corev1.Event, now time.Time) []string {
	since := func(t time.Time) string {
		if t.IsZero() {
			return "<unknown>"
		}
		return duration.HumanDuration(now.Sub(t))
	}
	first := since(ev.EventTime.Time)
	if ev.EventTime.IsZero() {
		first = since(ev.FirstTimestamp.Time)
	}
	age := first
	switch {
	case ev.Series != nil:
		age = fmt.Sprintf("%s (x%d over %s)", since(microTime(ev.Series.LastObservedTime)), ev.Series.Count, first)
	case ev.Count > 1:
		age = fmt.Sprintf("%s (x%d over %s)", since(ev.LastTimestamp.Time), ev.Count, first)
	}
	source := ev.Source.Component
	if source == "" {
		source = ev.ReportingController
	}
	message := strings.TrimSpace(ev.Message)
	if ev.InvolvedObject.FieldPath != "" {
		message = fmt.Sprintf("%s: %s", ev.InvolvedObject.FieldPath, message)
	}
	return []string{ev.Type, ev.Reason, age, source, message}
}

// microTime is t as a time.Time (zero for zero).
func microTime(t metav1.MicroTime) time.Time { return t.Time }
