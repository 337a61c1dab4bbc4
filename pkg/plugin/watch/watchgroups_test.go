package watch

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-informer/kubectl-informer/internal/testpods"
	"github.com/kubectl-informer/kubectl-informer/pkg/aggregate"
	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// testGroups is the table of one watch of pods by label:app summing requests.cpu, writing to
// out as not a terminal, at a fixed time, and the watch's feed of it.
type testGroups struct {
	*groupTable
	feed *groupFeed
}

func newTestGroupWatch(t *testing.T, out *bytes.Buffer) testGroups {
	t.Helper()
	streams, _, _, _ := genericiooptions.NewTestIOStreams()
	o := NewWatchOptions(nil, streams)
	o.typeArgs, o.GroupBy, o.Sums, o.IndexSet = []string{"pods"}, []string{"label:app"}, []string{"requests.cpu"}, &index.Set{}
	if _, err := o.completeGroups(o.GroupBy, nil); err != nil {
		t.Fatal(err)
	}
	s := o.groupTable([]string{""}, out)
	s.now = func() time.Time { return time.Date(2026, 11, 25, 13, 0, 0, 0, time.UTC) }
	return testGroups{groupTable: s, feed: &groupFeed{table: s, keys: o.groupDefs, cfg: o.print}}
}

// run seeds the table with nothing, then prints it and follows q until ctx ends, as one
// watch's table does.
func (g testGroups) run(ctx context.Context, q *engine.Queue) error {
	if err := g.feed.seed(nil); err != nil {
		return err
	}
	return runGroupTargets(g.groupTable, func() error {
		err := g.feed.follow(ctx, q)
		g.ended("", err)
		return err
	})
}

func TestGroupWatchPrintsChangedGroups(t *testing.T) {
	var out bytes.Buffer
	g := newTestGroupWatch(t, &out)
	if g.tty {
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
	if _, err := g.feed.set(pods, "shop/web-1", web1); err != nil {
		t.Fatal(err)
	}
	// The initial list's event for an object already seeded changes nothing.
	if changes, err := g.feed.set(pods, "shop/web-1", web1); err != nil || len(changes) != 0 {
		t.Errorf("set(initial add of a seeded pod) = %v, %v, want no change", changes, err)
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
	g.tty = true
	if err := g.draw(); err != nil {
		t.Fatal(err)
	}
	want := "\x1b[Hpods by label:app; sum of requests.cpu — 0 objects — 13:00:00\x1b[K\n\x1b[K\n" +
		"LABEL:APP   COUNT   REQUESTS.CPU\x1b[K\nTOTAL       0       0\x1b[K\n\x1b[J"
	if got := out.String(); got != want {
		t.Errorf("terminal draw = %q, want %q", got, want)
	}
}

func TestChangeLine(t *testing.T) {
	var out bytes.Buffer
	g := newTestGroupWatch(t, &out).groupTable
	g.timestamps = true
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
	g.tty, g.now = true, time.Now
	pods := &engine.Type{Mapping: &meta.RESTMapping{Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"}}}
	q := engine.NewQueue(1000)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	start := time.Now()
	var burst time.Duration
	go func() {
		for i := range 200 {
			p := testpods.CPUPod(fmt.Sprintf("web-%d", i), "web", "n1", "10m")
			q.Push(&engine.Event{Type: engine.Added, Resource: pods, New: p, Key: "shop/" + p.Name})
			time.Sleep(2 * time.Millisecond)
		}
		burst = time.Since(start)
		time.Sleep(2 * redrawInterval)
		cancel()
	}()
	if err := g.run(ctx, q); err != nil {
		t.Fatal(err)
	}
	draws := strings.Count(out.String(), cursorHome)
	// The first draw, then at most one per redrawInterval of the burst, and one after it.
	if most := 2 + int(burst/redrawInterval) + 1; draws < 2 || draws > most {
		t.Errorf("%d draws for 200 changes in %s, want 2 to %d", draws, burst, most)
	}
	last := out.String()[strings.LastIndex(out.String(), cursorHome):]
	if !strings.Contains(last, "web         200     2") {
		t.Errorf("last draw does not show the 200 pods:\n%s", last)
	}
}
