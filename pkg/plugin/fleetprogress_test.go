package plugin

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-informer/kubectl-informer/pkg/cache"
	"github.com/kubectl-informer/kubectl-informer/pkg/terminal"
)

func TestFleetProgressOffTerminal(t *testing.T) {
	if p := newFleetProgress(&bytes.Buffer{}, []string{"a", "b"}); p != nil {
		t.Fatalf("progress on a buffer, want none")
	}
	var p *fleetProgress // nil: every method does nothing
	p.set("a", "synced")
	p.done("a", nil)
	p.end()
}

// TestFleetProgressStates draws each context's state in turn and erases
// the lines at the end.
func TestFleetProgressStates(t *testing.T) {
	var out bytes.Buffer
	p := newFleetProgressOn(&out, func() int { return 80 }, []string{"a", "b", "dead"})
	p.start = time.Now().Add(-time.Second) // past the quiet time
	steps := []struct {
		do   func()
		want []string
	}{
		{func() { p.set("dead", "resolving") }, []string{"a: resolving", "b: resolving", "dead: resolving"}},
		{func() {
			p.engineProgress("a")(cache.Progress{Types: []cache.TypeProgress{{Name: "pods", Received: 7}, {Name: "nodes", Received: 3, Synced: true}}})
		}, []string{"a: listing 10", "b: resolving"}},
		{func() {
			p.engineProgress("b")(cache.Progress{Types: []cache.TypeProgress{{Name: "pods", Received: 2, Synced: true}}})
		}, []string{"a: listing 10", "b: synced"}},
		{func() { p.done("dead", errors.New("connection refused")) }, []string{"dead: failed"}},
	}
	for i, s := range steps {
		out.Reset()
		s.do()
		frame := out.String()
		for _, w := range s.want {
			if !strings.Contains(frame, w) {
				t.Errorf("step %d: frame %q lacks %q", i, frame, w)
			}
		}
	}
	out.Reset()
	p.end()
	if got := out.String(); !strings.HasSuffix(got, "\x1b[J"+terminal.ShowCursor) || !strings.Contains(got, "\x1b[2A") {
		t.Errorf("end wrote %q, want the three lines erased and the cursor shown", got)
	}
	out.Reset()
	p.set("a", "synced")
	if out.Len() != 0 {
		t.Errorf("drawn after end: %q", out.String())
	}
}

// TestFleetProgressQuiet shows nothing for a query that ends within the
// quiet time.
func TestFleetProgressQuiet(t *testing.T) {
	var out bytes.Buffer
	p := newFleetProgressOn(&out, func() int { return 80 }, []string{"a"})
	p.start = time.Now().Add(time.Hour) // the quiet time never passes
	p.set("a", "synced")
	p.end()
	if out.Len() != 0 {
		t.Errorf("wrote %q within the quiet time, want nothing", out.String())
	}
}
