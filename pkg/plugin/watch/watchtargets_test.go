package watch

import (
	"bytes"
	"strings"
	"sync"
	"testing"

	"github.com/kubectl-informer/kubectl-informer/internal/testpods"
)

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
