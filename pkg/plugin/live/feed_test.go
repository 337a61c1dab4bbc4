package live

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-informer/kubectl-informer/internal/testpods"
	"github.com/kubectl-informer/kubectl-informer/pkg/aggregate"
	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
	"github.com/kubectl-informer/kubectl-informer/pkg/terminal"
)

// testGroups is the table of one watch of pods by label:app summing
// requests.cpu, writing to out as not a terminal, at a fixed time, and the
// watch's feed of it.
type testGroups struct {
	*Groups
	feed *Feed
}

func newTestGroupWatch(t *testing.T, out *bytes.Buffer) testGroups {
	t.Helper()
	defs, measures, err := engines.ParseGroups(&index.Set{}, []string{"label:app"}, []string{"requests.cpu"})
	if err != nil {
		t.Fatal(err)
	}
	g := NewGroups(out, GroupsConfig{Keys: []string{"label:app"}, Measures: measures, Contexts: []string{""}, Objects: "pods", Lines: true})
	g.now = func() time.Time { return time.Date(2026, 11, 25, 13, 0, 0, 0, time.UTC) }
	return testGroups{Groups: g, feed: g.Feed("", defs, nil)}
}

// run seeds the table with nothing, then prints it and follows q until ctx
// ends, as one watch's table does.
func (g testGroups) run(ctx context.Context, q *engine.Queue) error {
	if err := g.feed.Seed(ctx, &engines.EngineOptions{}, nil, io.Discard); err != nil {
		return err
	}
	return g.Run(func() error {
		err := g.feed.follow(ctx, q)
		g.Ended("", err)
		return err
	})
}

func TestGroupWatchPrintsChangedGroups(t *testing.T) {
	var out bytes.Buffer
	g := newTestGroupWatch(t, &out)
	if g.screen != nil {
		t.Fatal("a buffer is not a terminal")
	}
	pods := &engine.Type{Mapping: &meta.RESTMapping{Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"}}}
	q := engine.NewQueue(100)
	web1, web2, api1 := testpods.CPUPod("web-1", "web", "n1", "250m"), testpods.CPUPod("web-2", "web", "n2", "250m"), testpods.CPUPod("api-1", "api", "n1", "1")
	moved := api1.DeepCopy()
	moved.Labels["app"] = "web"
	for _, ev := range []*engine.Event{
		{Type: engine.Added, Resource: pods, New: web1, Key: "shop/web-1", Initial: true},
		{Type: engine.Added, Resource: pods, New: web2, Key: "shop/web-2"},
		{Type: engine.Added, Resource: pods, New: api1, Key: "shop/api-1"},
		{Type: engine.Modified, Resource: pods, Old: web2, New: web2.DeepCopy(), Key: "shop/web-2"},
		{Type: engine.Modified, Resource: pods, Old: api1, New: moved, Key: "shop/api-1"},
		{Type: engine.Deleted, Resource: pods, Old: web1, Key: "shop/web-1"},
	} {
		q.Push(ev)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if err := g.run(ctx, q); err != nil {
		t.Fatal(err)
	}
	want := `LABEL:APP   COUNT   REQUESTS.CPU
TOTAL       0       0
label:app=web: count 0 → 1, requests.cpu 0 → 250m
label:app=web: count 1 → 2, requests.cpu 250m → 500m
label:app=api: count 0 → 1, requests.cpu 0 → 1
label:app=api: count 1 → 0, requests.cpu 1 → 0
label:app=web: count 2 → 3, requests.cpu 500m → 1500m
label:app=web: count 3 → 2, requests.cpu 1500m → 1250m
`
	if got := out.String(); got != want {
		t.Errorf("output =\n%s\nwant\n%s", got, want)
	}
	table := g.live.Table()
	_, rows := table.Strings()
	if len(rows) != 2 || strings.Join(rows[0], " ") != "web 2 1250m" {
		t.Errorf("table at the end = %v", rows)
	}
}

func TestGroupWatchSeedsFromCache(t *testing.T) {
	var out bytes.Buffer
	g := newTestGroupWatch(t, &out)
	pods := &engine.Type{Mapping: &meta.RESTMapping{Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"}}}
	web1 := testpods.CPUPod("web-1", "web", "n1", "250m")
	if typ, _, err := g.feed.set(pods, "shop/web-1", web1); err != nil || typ != engine.Added {
		t.Fatalf("set(a new pod) = %q, %v, want %q", typ, err, engine.Added)
	}
	// The initial list's event for an object already seeded changes nothing.
	if typ, changes, err := g.feed.set(pods, "shop/web-1", web1); err != nil || len(changes) != 0 || typ != engine.Modified {
		t.Errorf("set(initial add of a seeded pod) = %q, %v, %v, want %q and no change", typ, changes, err, engine.Modified)
	}
	if err := g.draw(); err != nil {
		t.Fatal(err)
	}
	if want := "LABEL:APP   COUNT   REQUESTS.CPU\nweb         1       250m\nTOTAL       1       250m\n"; out.String() != want {
		t.Errorf("table =\n%s\nwant\n%s", out.String(), want)
	}
}

func TestGroupWatchTerminalRedraw(t *testing.T) {
	var out bytes.Buffer
	g := newTestGroupWatch(t, &out)
	g.screen = NewScreen(&out)
	if err := g.draw(); err != nil {
		t.Fatal(err)
	}
	got := strings.Split(out.String(), "\n")
	want := []string{"LABEL:APP   COUNT   REQUESTS.CPU", "TOTAL       0       0", "", "pods: 0 · no change since "}
	if len(got) != len(want) {
		t.Fatalf("terminal draw = %q, want the lines %q", out.String(), want)
	}
	for i, w := range want {
		if !strings.Contains(got[i], w) {
			t.Errorf("terminal draw's line %d = %q, want %q in it", i, got[i], w)
		}
	}
}

func TestChangeLine(t *testing.T) {
	var out bytes.Buffer
	g := newTestGroupWatch(t, &out).Groups
	g.cfg.Timestamps = true
	q := func(s string) resource.Quantity { return resource.MustParse(s) }
	tests := []struct {
		name string
		c    aggregate.GroupChange
		want string
	}{
		{"sum unchanged", aggregate.GroupChange{Key: []string{"web"}, Before: aggregate.GroupState{Count: 1, Sums: []resource.Quantity{q("1")}},
			After: aggregate.GroupState{Count: 2, Sums: []resource.Quantity{q("1")}}},
			"13:00:00.000 label:app=web: count 1 → 2, requests.cpu 1\n"},
		{"no value, hostile text", aggregate.GroupChange{Key: []string{""}, After: aggregate.GroupState{Count: 1, Sums: []resource.Quantity{q("5m")}}},
			"13:00:00.000 label:app=<none>: count 0 → 1, requests.cpu 0 → 5m\n"},
		{"totals", aggregate.GroupChange{Before: aggregate.GroupState{Count: 1, Sums: []resource.Quantity{q("5m")}}, After: aggregate.GroupState{Sums: []resource.Quantity{q("0")}}},
			"13:00:00.000 TOTAL: count 1 → 0, requests.cpu 5m → 0\n"},
		{"escape sequences", aggregate.GroupChange{Key: []string{"a\x1b[2Jb"}, After: aggregate.GroupState{Count: 1, Sums: []resource.Quantity{q("1")}}},
			"13:00:00.000 label:app=a\\u001b[2Jb: count 0 → 1, requests.cpu 0 → 1\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := g.changeLine(tt.c); got != tt.want {
				t.Errorf("changeLine = %q, want %q", got, tt.want)
			}
		})
	}
}

// A burst of changes on a terminal is a few redraws, not one per change, and the last one
// shows the state after the burst.
func TestGroupWatchTerminalRedrawRate(t *testing.T) {
	var out bytes.Buffer
	g := newTestGroupWatch(t, &out)
	g.screen = NewScreen(&out)
	pods := &engine.Type{Mapping: &meta.RESTMapping{Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"}}}
	q := engine.NewQueue(1000)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	start := time.Now()
	var span time.Duration
	go func() {
		defer cancel()
		for i := range 200 {
			p := testpods.CPUPod(fmt.Sprintf("web-%d", i), "web", "n1", "10m")
			q.Push(&engine.Event{Type: engine.Added, Resource: pods, New: p, Key: "shop/" + p.Name})
			time.Sleep(2 * time.Millisecond)
		}
		// Until a frame shows the whole burst (draws hold g.mu), or 10s.
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			g.mu.Lock()
			text := out.String()
			g.mu.Unlock()
			if strings.Contains(text[strings.LastIndex(text, terminal.HideCursor)+1:], "web         200     2") {
				break
			}
		}
		span = time.Since(start)
	}()
	if err := g.run(ctx, q); err != nil {
		t.Fatal(err)
	}
	draws := strings.Count(out.String(), terminal.HideCursor)
	// The first draw, then at most one per minRedrawGap of the span, and one after it.
	if most := 2 + int(span/minRedrawGap) + 1; draws < 2 || draws > most {
		t.Errorf("%d draws for 200 changes in %s, want 2 to %d", draws, span, most)
	}
	last := out.String()[strings.LastIndex(out.String(), terminal.HideCursor):]
	if !strings.Contains(last, "web         200     2") {
		t.Errorf("last draw does not show the 200 pods:\n%s", last)
	}
}
