package live

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-informer/kubectl-informer/internal/testpods"
	"github.com/kubectl-informer/kubectl-informer/pkg/aggregate"
	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/fleet"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
	"github.com/kubectl-informer/kubectl-informer/pkg/terminal"
)

// fleetTestPods are the pods of two contexts: a node name (n1) in both,
// and a context (c) with no pod.
var fleetTestPods = map[string][]*corev1.Pod{
	"a": {testpods.CPUPod("web-1", "web", "n1", "250m"), testpods.CPUPod("web-2", "web", "n2", "500m"), testpods.CPUPod("api-1", "api", "n1", "1")},
	"b": {testpods.CPUPod("web-1", "web", "n1", "100m"), testpods.CPUPod("db-1", "db", "n3", "2")},
	"c": nil,
}

// TestFleetGroupsMergeAsAFleetQuery checks that the live table of a fleet
// watch, fed each context's pods, is the table a fleet query prints: the
// contexts' grouped tables merged by fleet.MergeTables.
func TestFleetGroupsMergeAsAFleetQuery(t *testing.T) {
	pods := &engine.Type{Mapping: &meta.RESTMapping{Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"}}}
	contexts := []string{"a", "b", "c"}
	for _, groupBy := range [][]string{{"node"}, {"context"}, {"context", "node"}, {"node", "context"}, {"label:app", "context"}} {
		for _, sums := range [][]string{nil, {"requests.cpu"}} {
			t.Run(fmt.Sprintf("%s sum %s", strings.Join(groupBy, ","), strings.Join(sums, ",")), func(t *testing.T) {
				rest := slices.DeleteFunc(slices.Clone(groupBy), func(k string) bool { return k == fleet.ContextIndex })
				at := slices.Index(groupBy, fleet.ContextIndex)
				defs, measures, err := engines.ParseGroups(&index.Set{}, rest, sums)
				if err != nil {
					t.Fatal(err)
				}
				var out bytes.Buffer
				s := newTestTable(t, groupBy, sums, contexts, &out)
				feed := defs
				var tables []fleet.ContextTable
				for _, c := range contexts {
					keys := make([]string, len(defs))
					for i, d := range defs {
						keys[i] = d.Name
					}
					grouper := aggregate.NewGrouper(keys, measures)
					for _, p := range fleetTestPods[c] {
						values := make([][]string, len(defs))
						for i, d := range defs {
							values[i] = index.Values(d, p)
						}
						if err := grouper.Add(p, values); err != nil {
							t.Fatal(err)
						}
						if _, err := setIn(s, c, feed, pods, "shop/"+p.Name, p); err != nil {
							t.Fatal(err)
						}
					}
					s.seeded[c] = true
					tables = append(tables, fleet.ContextTable{Context: c, Keys: len(defs), Table: grouper.Table()})
				}
				want := fleet.MergeTables(tables, at)
				if len(measures) == 0 {
					want.Total = nil // as a query prints it: a TOTAL only of sums
				}
				got, err := s.table()
				if err != nil {
					t.Fatal(err)
				}
				wantHeader, wantRows := want.Strings()
				gotHeader, gotRows := got.Strings()
				if !reflect.DeepEqual(gotHeader, wantHeader) || !reflect.DeepEqual(gotRows, wantRows) {
					t.Errorf("live table =\n%q\n%q\nwant the fleet query's\n%q\n%q", gotHeader, gotRows, wantHeader, wantRows)
				}
			})
		}
	}
}

// TestFleetGroupsFailedContextLeaves checks that a context that fails
// after it was counted is taken out of the table, printed as the changes
// of its groups, and that events change the groups of their own context.
func TestFleetGroupsFailedContextLeaves(t *testing.T) {
	pods := &engine.Type{Mapping: &meta.RESTMapping{Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"}}}
	var out bytes.Buffer
	s := newTestTable(t, []string{"context"}, []string{"requests.cpu"}, []string{"a", "b"}, &out)
	var feed []index.Definition
	for _, c := range []string{"a", "b"} {
		for _, p := range fleetTestPods[c] {
			if _, err := setIn(s, c, feed, pods, "shop/"+p.Name, p); err != nil {
				t.Fatal(err)
			}
		}
		s.seeded[c] = true
		s.settle()
	}
	done := make(chan struct{})
	close(done)
	if err := s.Print(done); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	changes, err := setIn(s, "b", feed, pods, "shop/web-1", nil)
	if err != nil {
		t.Fatal(err)
	}
	s.changes(changes)
	s.mu.Unlock()
	s.Ended("a", errors.New("watch forbidden"))
	want := `CONTEXT   COUNT   REQUESTS.CPU
a         3       1750m
b         2       2100m
TOTAL     5       3850m
context=b: count 2 → 1, requests.cpu 2100m → 2
context=a: count 3 → 0, requests.cpu 1750m → 0
`
	if got := out.String(); got != want {
		t.Errorf("printed\n%s\nwant\n%s", got, want)
	}
	table, err := s.table()
	if err != nil {
		t.Fatal(err)
	}
	header, rows := table.Strings()
	if want := [][]string{{"b", "1", "2"}, {"TOTAL", "1", "2"}}; !reflect.DeepEqual(rows, want) {
		t.Errorf("table after a failed = %q %q, want rows %q", header, rows, want)
	}
}

// TestFleetGroupsRedrawOnATerminal checks that on a terminal the merged
// table is drawn in place once every context is counted, and drawn again
// after a change in one context.
func TestFleetGroupsRedrawOnATerminal(t *testing.T) {
	pods := &engine.Type{Mapping: &meta.RESTMapping{Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"}}}
	var out bytes.Buffer
	s := newTestTable(t, []string{"node"}, nil, []string{"a", "b"}, &out)
	s.screen = NewScreen(&out)
	feed := []index.Definition{mustLookup(t, "node")}
	for _, c := range []string{"a", "b"} {
		for _, p := range fleetTestPods[c] {
			if _, err := setIn(s, c, feed, pods, "shop/"+p.Name, p); err != nil {
				t.Fatal(err)
			}
		}
		s.seeded[c] = true
		s.settle()
	}
	done := make(chan struct{})
	printed := make(chan error)
	go func() { printed <- s.Print(done) }()
	// frames waits until the screen shows n frames; draws hold s.mu.
	frames := func(n int) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			s.mu.Lock()
			drawn := strings.Count(out.String(), terminal.HideCursor)
			s.mu.Unlock()
			if drawn >= n {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d frames drawn after 10s, want %d", drawn, n)
			}
		}
	}
	frames(1)
	s.mu.Lock()
	changes, err := setIn(s, "b", feed, pods, "shop/db-1", nil)
	if err != nil {
		t.Fatal(err)
	}
	s.changes(changes)
	s.mu.Unlock()
	// The change is drawn after the least gap between two frames.
	frames(2)
	close(done)
	if err := <-printed; err != nil {
		t.Fatal(err)
	}
	drawn := strings.Split(out.String(), terminal.HideCursor)
	if len(drawn) < 3 {
		t.Fatalf("printed %d frames, want 2:\n%q", len(drawn)-1, out.String())
	}
	if !strings.Contains(drawn[1], "n1     3") || !strings.Contains(drawn[1], "n3     1") || !strings.Contains(drawn[1], "pods: 5 · ") {
		t.Errorf("frame 1 lacks the merged counts of n1 (3) and n3 (1), or the footer's 5 pods:\n%s", drawn[1])
	}
	if last := drawn[len(drawn)-1]; strings.Contains(last, "n3") {
		t.Errorf("the last frame still has node n3, whose only pod was deleted:\n%s", last)
	}
}

func mustLookup(t *testing.T, name string) index.Definition {
	t.Helper()
	def, err := (&index.Set{}).Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return def
}

// newTestTable is the table of a watch of pods in contexts, grouped by
// groupBy and summing sums, its change lines printed to out.
func newTestTable(t *testing.T, groupBy, sums, contexts []string, out *bytes.Buffer) *Groups {
	t.Helper()
	_, measures, err := engines.ParseGroups(&index.Set{}, nil, sums)
	if err != nil {
		t.Fatal(err)
	}
	return NewGroups(out, GroupsConfig{Keys: groupBy, Measures: measures, Contexts: contexts, Objects: "pods", Lines: true})
}

// setIn sets an object in s through the feed of context c with keys.
func setIn(s *Groups, c string, keys []index.Definition, typ *engine.Type, key string, obj interface{}) ([]aggregate.GroupChange, error) {
	_, changes, err := s.Feed(c, keys, nil).set(typ, key, obj)
	return changes, err
}

// TestGroupsPrintRows checks the rows printed off a terminal without
// GroupsConfig.Lines, across contexts: the merged table first, then only
// the rows that changed, a group that is gone at 0.
func TestGroupsPrintRows(t *testing.T) {
	pods := &engine.Type{Mapping: &meta.RESTMapping{Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"}}}
	var out bytes.Buffer
	s := NewGroups(&out, GroupsConfig{Keys: []string{"node"}, Contexts: []string{"a", "b"}, Objects: "pods"})
	keys := []index.Definition{mustLookup(t, "node")}
	a, b := s.Feed("a", keys, nil), s.Feed("b", keys, nil)
	for _, p := range []*corev1.Pod{testpods.CPUPod("web-1", "web", "n1", "1"), testpods.CPUPod("web-2", "web", "n1", "1"), testpods.CPUPod("web-3", "web", "n2", "1")} {
		if _, _, err := a.set(pods, "shop/"+p.Name, p); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := b.set(pods, "shop/db-1", testpods.CPUPod("db-1", "db", "n1", "1")); err != nil {
		t.Fatal(err)
	}
	s.seeded["a"], s.seeded["b"] = true, true
	draw := func(after, want string) {
		t.Helper()
		out.Reset()
		if err := s.draw(); err != nil {
			t.Fatal(err)
		}
		if out.String() != want {
			t.Errorf("%s =\n%s\nwant\n%s", after, out.String(), want)
		}
	}
	draw("first print", "NODE   COUNT\nn1     3\nn2     1\n")
	if _, _, err := b.set(pods, "shop/db-1", testpods.CPUPod("db-1", "db", "n3", "1")); err != nil {
		t.Fatal(err)
	}
	draw("after b's pod moved to n3", "n1     2\nn3     1\n")
	s.Ended("b", errors.New("connection refused"))
	draw("after b left", "n3     0\n")
}
