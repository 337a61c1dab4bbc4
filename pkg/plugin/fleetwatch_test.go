package plugin

import (
	"sync"
	"testing"

	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/watch"
)

func TestWatchLinePrefixYAML(t *testing.T) {
	prefix := watch.WatchLinePrefix("yaml", "prod: eu")
	for _, tc := range []struct{ line, want string }{
		{"---", "---\ncontext: \"prod: eu\""},
		{"type: ADDED", "type: ADDED"},
		{"  text: ---", "  text: ---"},
		{"--- ", "--- "},
	} {
		if got := string(prefix([]byte(tc.line))); got != tc.want {
			t.Errorf("line %q: got %q, want %q", tc.line, got, tc.want)
		}
	}
}

func TestSplitContextWhere(t *testing.T) {
	for _, tc := range []struct {
		name     string
		where    []string
		contexts []string // the selectors' names
		rest     []string
		wantErr  bool
	}{
		{name: "none"},
		{name: "context only", where: []string{"context=a"}, contexts: []string{"context"}},
		{name: "mixed", where: []string{"node=n1", "context in (a,b)", "namespace!=x"}, contexts: []string{"context"}, rest: []string{"node=n1", "namespace!=x"}},
		{name: "bad selector", where: []string{"context in (a"}, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sels, rest, err := watch.SplitContextWhere(tc.where)
			if (err != nil) != tc.wantErr {
				t.Fatalf("error %v, want error %v", err, tc.wantErr)
			}
			if len(sels) != len(tc.contexts) {
				t.Fatalf("%d context selectors, want %d", len(sels), len(tc.contexts))
			}
			for i, s := range sels {
				if s.Name != tc.contexts[i] {
					t.Errorf("selector %d names %q, want %q", i, s.Name, tc.contexts[i])
				}
			}
			if len(rest) != len(tc.rest) {
				t.Fatalf("rest %q, want %q", rest, tc.rest)
			}
			for i := range rest {
				if rest[i] != tc.rest[i] {
					t.Errorf("rest %q, want %q", rest, tc.rest)
				}
			}
		})
	}
}

// TestFleetEventBudget spends a budget of 5 from 4 goroutines that each try
// to print 10 events: exactly 5 are printed, and spent is called once.
func TestFleetEventBudget(t *testing.T) {
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
			b := &watch.FleetEventBudget{Left: tc.budget, Spent: func() { spent++ }}
			var mu sync.Mutex
			printed := 0
			var wg sync.WaitGroup
			for g := 0; g < 4; g++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 0; i < 10*tc.shownEvery; i++ {
						if !b.Lock() {
							return
						}
						shown := i%tc.shownEvery == 0
						if shown {
							mu.Lock()
							printed++
							mu.Unlock()
						}
						b.Unlock(shown)
					}
				}()
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
