package watch

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-informer/kubectl-informer/internal/testpods"
	"github.com/kubectl-informer/kubectl-informer/pkg/aggregate"
	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/fleet"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
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
				rest, at, err := splitGroupByContext(groupBy)
				if err != nil {
					t.Fatal(err)
				}
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
				got := s.table()
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
	if err := s.print(done); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	changes, err := setIn(s, "b", feed, pods, "shop/web-1", nil)
	if err != nil {
		t.Fatal(err)
	}
	s.changed(changes)
	s.mu.Unlock()
	s.ended("a", errors.New("watch forbidden"))
	s.out.Flush()
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
	table := s.table()
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
	s.tty = true
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
	go func() { printed <- s.print(done) }()
	<-s.drawn
	s.mu.Lock()
	changes, err := setIn(s, "b", feed, pods, "shop/db-1", nil)
	if err != nil {
		t.Fatal(err)
	}
	s.changed(changes)
	s.mu.Unlock()
	close(done)
	if err := <-printed; err != nil {
		t.Fatal(err)
	}
	frames := strings.Split(out.String(), cursorHome)
	if len(frames) != 3 {
		t.Fatalf("printed %d frames, want 2:\n%q", len(frames)-1, out.String())
	}
	if !strings.Contains(frames[1], "n1     3"+eraseLine) || !strings.Contains(frames[1], "n3     1"+eraseLine) {
		t.Errorf("frame 1 lacks the merged counts of n1 (3) and n3 (1):\n%s", frames[1])
	}
	if strings.Contains(frames[2], "n3") {
		t.Errorf("frame 2 still has node n3, whose only pod was deleted:\n%s", frames[2])
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
// groupBy and summing sums, printed to out.
func newTestTable(t *testing.T, groupBy, sums, contexts []string, out *bytes.Buffer) *groupTable {
	t.Helper()
	_, measures, err := engines.ParseGroups(&index.Set{}, nil, sums)
	if err != nil {
		t.Fatal(err)
	}
	o := &WatchOptions{GroupBy: groupBy, Sums: sums, typeArgs: []string{"pods"}, measures: measures}
	return o.groupTable(contexts, out)
}

// setIn sets an object in s through the feed of context c with keys.
func setIn(s *groupTable, c string, keys []index.Definition, typ *engine.Type, key string, obj interface{}) ([]aggregate.GroupChange, error) {
	return (&groupFeed{table: s, name: c, keys: keys}).set(typ, key, obj)
}
