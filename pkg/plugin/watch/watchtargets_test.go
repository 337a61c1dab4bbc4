package watch

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/kubectl-informer/kubectl-informer/internal/testpods"
)

// The lines of one write of a target go out together: two targets writing
// YAML documents at once never interleave their lines.
func TestLinePrefixerKeepsWritesWhole(t *testing.T) {
	var out bytes.Buffer
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, name := range []string{"a", "b"} {
		w := &LinePrefixer{Mu: &mu, W: &out}
		wg.Go(func() {
			for i := range 200 {
				fmt.Fprintf(w, "---\ncontext: %q\nobject:\n  name: %s-%d\ntype: ADDED\n", name, name, i)
			}
			w.Flush()
		})
	}
	wg.Wait()
	docs := strings.Split(strings.TrimPrefix(out.String(), "---\n"), "\n---\n")
	if len(docs) != 400 {
		t.Fatalf("%d documents, want 400", len(docs))
	}
	for _, d := range docs {
		lines := strings.Split(strings.TrimSuffix(d, "\n"), "\n")
		if len(lines) != 4 || lines[1] != "object:" || lines[3] != "type: ADDED" ||
			lines[0] != `context: "`+strings.TrimPrefix(lines[2], "  name: ")[:1]+`"` {
			t.Fatalf("document interleaved:\n%s", d)
		}
	}
	// An unfinished line waits for its end; Prefix changes each line.
	out.Reset()
	w := &LinePrefixer{Mu: &mu, W: &out, Prefix: func(line []byte) []byte { return append([]byte("c "), line...) }}
	fmt.Fprint(w, "ADDED pod/x")
	if out.Len() != 0 {
		t.Fatalf("an unfinished line was written: %q", out.String())
	}
	fmt.Fprint(w, "\n")
	w.Flush()
	if out.String() != "c ADDED pod/x\n" {
		t.Errorf("got %q, want %q", out.String(), "c ADDED pod/x\n")
	}
}

// TestEventsNameTheirContext prints an update of a watch of several
// targets in each format: every text line starts with the context, -o
// name's line with CONTEXT/, and -o json and yaml have a field context
// first.
func TestEventsNameTheirContext(t *testing.T) {
	old, new := testpods.Pair(testpods.Edits[0].Edit)
	for _, tt := range []struct {
		output, diff string
		check        func(out string) bool
	}{
		{"text", "compact", func(out string) bool { return everyLineStarts(out, "prod: eu ") }},
		{"text", "unified", func(out string) bool { return everyLineStarts(out, "prod: eu ") }},
		{"name", "compact", func(out string) bool { return out == "prod: eu/MODIFIED pod/"+new.Name+"\n" }},
		{"json", "compact", func(out string) bool { return strings.HasPrefix(out, `{"context":"prod: eu","type":"MODIFIED",`) }},
		{"yaml", "compact", func(out string) bool { return strings.HasPrefix(out, "---\ncontext: \"prod: eu\"\n") }},
	} {
		t.Run(tt.output+"-"+tt.diff, func(t *testing.T) {
			var out bytes.Buffer
			p := testPrinter(t, &out, tt.output, tt.diff)
			p.Cfg.Context = "prod: eu"
			if got := printEvent(t, p, &out, old, new); !tt.check(got) {
				t.Errorf("-o %s --diff %s printed:\n%s", tt.output, tt.diff, got)
			}
		})
	}
}

// everyLineStarts reports whether s has lines, each starting with prefix.
func everyLineStarts(s, prefix string) bool {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for _, l := range lines {
		if !strings.HasPrefix(l, prefix) {
			return false
		}
	}
	return len(lines) > 1
}

// TestEventBudget spends a budget of 5 from 4 goroutines that each try to
// print 10 events: exactly 5 are printed, and spent is called once.
func TestEventBudget(t *testing.T) {
	for _, tc := range []struct {
		name       string
		budget     int
		shownEvery int // every n-th attempt prints an event
		want       int
	}{
		{name: "all shown", budget: 5, shownEvery: 1, want: 5},
		{name: "some not shown", budget: 5, shownEvery: 3, want: 5},
		{name: "more than there are", budget: 100, shownEvery: 1, want: 40},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spent := 0
			b := &eventBudget{left: tc.budget, spent: func() { spent++ }}
			var mu sync.Mutex
			printed := 0
			var wg sync.WaitGroup
			for range 4 {
				wg.Go(func() {
					for i := 0; i < 10*tc.shownEvery; i++ {
						if !b.lock() {
							return
						}
						shown := i%tc.shownEvery == 0
						if shown {
							mu.Lock()
							printed++
							mu.Unlock()
						}
						b.unlock(shown)
					}
				})
			}
			wg.Wait()
			if printed != tc.want {
				t.Errorf("printed %d events, want %d", printed, tc.want)
			}
			wantSpent := 0
			if tc.want == tc.budget {
				wantSpent = 1
			}
			if spent != wantSpent {
				t.Errorf("spent called %d times, want %d", spent, wantSpent)
			}
		})
	}
}
