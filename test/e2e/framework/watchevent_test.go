package framework

import (
	"fmt"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps what Errorf reports.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func TestCheckPatch(t *testing.T) {
	prev := DecodeEvent(t, `{"type":"ADDED","object":{"kind":"Pod","metadata":{"name":"web","resourceVersion":"1","labels":{"tier":"a"}}}}`)
	tests := []struct {
		name    string
		cur     string
		wantErr string
	}{
		{"patch yields the object, resourceVersion ignored",
			`{"type":"MODIFIED","object":{"kind":"Pod","metadata":{"name":"web","resourceVersion":"2","labels":{"tier":"b"}}},"patch":[{"op":"replace","path":"/metadata/labels/tier","value":"b"}]}`, ""},
		{"patch misses a change",
			`{"type":"MODIFIED","object":{"kind":"Pod","metadata":{"name":"web","resourceVersion":"2","labels":{"tier":"b","app":"x"}}},"patch":[{"op":"replace","path":"/metadata/labels/tier","value":"b"}]}`, "want the event's object"},
		{"no patch",
			`{"type":"MODIFIED","object":{"kind":"Pod","metadata":{"name":"web"}}}`, "has no patch"},
		{"patch does not apply",
			`{"type":"MODIFIED","object":{"kind":"Pod","metadata":{"name":"web"}},"patch":[{"op":"replace","path":"/spec/x","value":1}]}`, "applying the patch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &recorder{TB: t}
			CheckPatch(r, prev, DecodeEvent(t, tt.cur), "resourceVersion")
			got := strings.Join(r.errors, "\n")
			switch {
			case tt.wantErr == "" && got != "":
				t.Errorf("unexpected failure: %s", got)
			case tt.wantErr != "" && !strings.Contains(got, tt.wantErr):
				t.Errorf("failure = %q, want one containing %q", got, tt.wantErr)
			}
		})
	}
}
