package offline

import (
	"errors"
	"fmt"
	"io"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/kubectl-informer/kubectl-informer/pkg/recording"
)

// This file reads a recording as a source of the objects at one instant.

// Span is the stretch of time a recording can answer for.
type Span struct {
	// Start is when the state at the start of the recording (its initial
	// lists) is complete: the time of its last initial event, or the
	// header's start when that is later. End is the time of its last
	// event, or Start for a recording without live events.
	Start, End time.Time
	// Truncated says the file was cut after its last complete event; the
	// span ends there.
	Truncated bool
}

// ReadSpan reads the recording at path through and returns its span.
// Errors name the file.
func ReadSpan(path string) (Span, error) {
	r, err := recording.OpenEvents(path)
	if err != nil {
		return Span{}, err
	}
	defer r.Close()
	span := Span{Start: r.Header().Started}
	for {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Span{}, err
		}
		if ev.Initial && ev.Time.After(span.Start) {
			span.Start = ev.Time
		}
		span.End = ev.Time
	}
	if span.End.Before(span.Start) {
		span.End = span.Start
	}
	span.Truncated = r.Truncated()
	if until := recording.RecordedUntil(path); until.After(span.End) {
		span.End = until
	}
	return span, nil
}

// Recorded returns a Source holding the objects of the recording at path
// as they were at at: every event recorded at or before at applied. Its
// types are the recording's, whether or not it holds objects of them then.
// The source has no events to send: it is finished.
func Recorded(path string, at time.Time) (*Source, error) {
	header, objects, err := recording.StateAtPath(path, at)
	if err != nil {
		return nil, err
	}
	source, err := NewSource(objects, Mappings(header))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	source.Finish()
	return source, nil
}

// Mappings returns the REST mappings of a recording's types, in the
// header's order.
func Mappings(h recording.Header) []*meta.RESTMapping {
	mappings := make([]*meta.RESTMapping, len(h.Types))
	for i, t := range h.Types {
		scope := meta.RESTScopeRoot
		if t.Namespaced {
			scope = meta.RESTScopeNamespace
		}
		mappings[i] = &meta.RESTMapping{Resource: t.GroupVersionResource(), GroupVersionKind: t.GroupVersionKind(), Scope: scope}
	}
	return mappings
}
