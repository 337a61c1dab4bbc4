package progress

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/targets"
	"github.com/kubectl-informer/kubectl-informer/pkg/terminal"
)

func TestFleetProgressOffTerminal(t *testing.T) {
	several := targets.Set{Targets: []targets.Target{{Name: "a"}, {Name: "b"}}, Several: true}
	if p := Of(&bytes.Buffer{}, several); p != nil {
		t.Fatalf("progress on a buffer, want none")
	}
	var p *Targets // nil: every method does nothing
	p.Set("a", "synced")
	p.Done("a", nil)
	p.End()
}

// TestFleetProgressStates draws each context's state in turn and erases
// the lines at the end.
func TestFleetProgressStates(t *testing.T) {
	var out bytes.Buffer
	p := newTargetsOn(&out, func() int { return 80 }, []string{"a", "b", "dead"})
	p.start = time.Now().Add(-time.Second) // past the quiet time
	steps := []struct {
		do   func()
		want []string
	}{
		{func() { p.Set("dead", "resolving") }, []string{"a: resolving", "b: resolving", "dead: resolving"}},
		{func() {
			p.EngineProgress("a")(engine.Progress{Types: []engine.TypeProgress{{Name: "pods", Received: 7}, {Name: "nodes", Received: 3, Synced: true}}})
		}, []string{"a: listing 10", "b: resolving"}},
		{func() {
			p.EngineProgress("b")(engine.Progress{Types: []engine.TypeProgress{{Name: "pods", Received: 2, Synced: true}}})
		}, []string{"a: listing 10", "b: synced"}},
		{func() { p.Done("dead", errors.New("connection refused")) }, []string{"dead: failed"}},
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
	p.End()
	if got := out.String(); !strings.HasSuffix(got, "\x1b[J"+terminal.ShowCursor) || !strings.Contains(got, "\x1b[2A") {
		t.Errorf("end wrote %q, want the three lines erased and the cursor shown", got)
	}
	out.Reset()
	p.Set("a", "synced")
	if out.Len() != 0 {
		t.Errorf("drawn after end: %q", out.String())
	}
}

// TestFleetProgressQuiet shows nothing for a query that ends within the
// quiet time.
func TestFleetProgressQuiet(t *testing.T) {
	var out bytes.Buffer
	p := newTargetsOn(&out, func() int { return 80 }, []string{"a"})
	p.start = time.Now().Add(time.Hour) // the quiet time never passes
	p.Set("a", "synced")
	p.End()
	if out.Len() != 0 {
		t.Errorf("wrote %q within the quiet time, want nothing", out.String())
	}
}

// TestFleetWatchProgress follows a watch's progress on a model of the
// terminal: lines printed while it is shown go above it, it ends by itself
// once every context is watching or has ended, and nothing of it is left.
func TestFleetWatchProgress(t *testing.T) {
	screen := terminal.NewScreen(10, 40)
	p := newTargetsOn(screen, func() int { return 40 }, []string{"a", "b", "c"}).UntilWatching()
	p.start = time.Now().Add(-time.Second) // past the quiet time
	line := func(s string) { p.Above(func() { screen.Write([]byte(s + "\n")) }) }
	steps := []struct {
		name string
		do   func()
		want []string
	}{
		{"a lists", func() {
			p.EngineProgress("a")(engine.Progress{Types: []engine.TypeProgress{{Name: "pods", Received: 4}}})
		},
			[]string{"a: listing 4", "b: resolving", "c: resolving"}},
		{"a synced", func() {
			p.EngineProgress("a")(engine.Progress{Types: []engine.TypeProgress{{Name: "pods", Received: 4, Synced: true}}})
		},
			[]string{"a: watching", "b: resolving", "c: resolving"}},
		{"an event of a", func() { line("a ADDED pod/x") },
			[]string{"a ADDED pod/x", "a: watching", "b: resolving", "c: resolving"}},
		{"a relation engine of a lists", func() {
			p.EngineProgress("a")(engine.Progress{Types: []engine.TypeProgress{{Name: "nodes", Received: 1}}})
		},
			[]string{"a ADDED pod/x", "a: watching", "b: resolving", "c: resolving"}},
		{"b fails", func() {
			line("error: context b: refused")
			p.Done("b", errors.New("refused"))
		}, []string{"a ADDED pod/x", "error: context b: refused", "a: watching", "b: failed", "c: resolving"}},
		{"c ends before a synced report", func() { p.Done("c", nil) },
			[]string{"a ADDED pod/x", "error: context b: refused"}},
		{"later lines", func() { line("a MODIFIED pod/x") },
			[]string{"a ADDED pod/x", "error: context b: refused", "a MODIFIED pod/x"}},
	}
	for _, s := range steps {
		s.do()
		if got := screen.Lines(); !reflect.DeepEqual(got, s.want) {
			t.Errorf("after %s: screen shows %q, want %q", s.name, got, s.want)
		}
	}
	if !p.ended {
		t.Errorf("the progress did not end once every context had settled")
	}
}

// TestFleetProgressAboveOffTerminal writes lines unchanged when no
// progress is shown (off a terminal, or within the quiet time).
func TestFleetProgressAboveOffTerminal(t *testing.T) {
	var nilProgress *Targets
	var out bytes.Buffer
	nilProgress.Above(func() { out.WriteString("x\n") })
	quiet := newTargetsOn(&out, func() int { return 80 }, []string{"a"}).UntilWatching()
	quiet.start = time.Now().Add(time.Hour)
	quiet.Above(func() { out.WriteString("y\n") })
	quiet.EngineProgress("a")(engine.Progress{Types: []engine.TypeProgress{{Name: "pods", Synced: true}}})
	if got := out.String(); got != "x\ny\n" {
		t.Errorf("wrote %q, want the lines alone", got)
	}
}

// TestFleetProgressListing sums a tree's engines, one after another, into
// one listing count and never says synced before the command ends.
func TestFleetProgressListing(t *testing.T) {
	var out bytes.Buffer
	p := newTargetsOn(&out, func() int { return 80 }, []string{"a"})
	p.start = time.Now().Add(-time.Second)
	listing := p.ListingProgress("a")
	steps := []struct {
		progress engine.Progress
		want     string
	}{
		{engine.Progress{Types: []engine.TypeProgress{{Name: "deployments", Received: 2}}}, "a: listing 2"},
		{engine.Progress{Types: []engine.TypeProgress{{Name: "deployments", Received: 3, Synced: true}}}, "a: listing 3"},
		{engine.Progress{Types: []engine.TypeProgress{{Name: "replicasets", Received: 4}, {Name: "pods", Received: 10, Synced: true}}}, "a: listing 17"},
		{engine.Progress{Types: []engine.TypeProgress{{Name: "replicasets", Received: 5, Synced: true}, {Name: "pods", Received: 10, Synced: true}}}, "a: listing 18"},
	}
	for i, s := range steps {
		out.Reset()
		listing(s.progress)
		if got := out.String(); !strings.Contains(got, s.want) || strings.Contains(got, "synced") {
			t.Errorf("step %d: frame %q, want %q and no synced", i, got, s.want)
		}
	}
	out.Reset()
	p.Done("a", nil)
	if got := out.String(); !strings.Contains(got, "a: synced") {
		t.Errorf("done drew %q, want a: synced", got)
	}
}
