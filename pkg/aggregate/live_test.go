package aggregate

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// changeStrings renders changes as "key: count before→after sums before→after".
func changeStrings(cs []GroupChange) []string {
	var out []string
	for _, c := range cs {
		s := strings.Join(c.Key, ",") + ": " + fmt.Sprintf("%d→%d", c.Before.Count, c.After.Count)
		for i := range c.After.Sums {
			before := "-"
			if i < len(c.Before.Sums) {
				before = c.Before.Sums[i].String()
			}
			s += " " + before + "→" + c.After.Sums[i].String()
		}
		if len(c.After.Sums) == 0 {
			for i := range c.Before.Sums {
				s += " " + c.Before.Sums[i].String() + "→-"
			}
		}
		out = append(out, s)
	}
	return out
}

func TestLive(t *testing.T) {
	l := NewLive([]string{"node"}, []Measure{mustMeasure(t, "requests.cpu")})
	set := func(key string, p *corev1.Pod) []string {
		t.Helper()
		cs, err := l.Set(key, p, [][]string{{p.Spec.NodeName}})
		if err != nil {
			t.Fatal(err)
		}
		return changeStrings(cs)
	}
	steps := []struct {
		name string
		do   func() []string
		want []string
	}{
		{"first pod makes its group", func() []string { return set("a", podOn("a", "node-1", ctr("c", rl("cpu", "1"), nil))) },
			[]string{"node-1: 0→1 -→1"}},
		{"second pod on the same node", func() []string { return set("b", podOn("b", "node-1", ctr("c", rl("cpu", "330m"), nil))) },
			[]string{"node-1: 1→2 1→1330m"}},
		{"an update that changes nothing grouped", func() []string { return set("b", podOn("b", "node-1", ctr("c", rl("cpu", "330m"), nil))) },
			nil},
		{"a pod moves: one group shrinks, one is made", func() []string { return set("b", podOn("b", "node-2", ctr("c", rl("cpu", "330m"), nil))) },
			[]string{"node-1: 2→1 1330m→1", "node-2: 0→1 -→330m"}},
		{"a pod completes: it counts, for nothing", func() []string {
			p := podOn("a", "node-1", ctr("c", rl("cpu", "1"), nil))
			p.Status.Phase = corev1.PodSucceeded
			return set("a", p)
		}, []string{"node-1: 1→1 1→0"}},
		{"delete empties a group", func() []string { return changeStrings(l.Delete("b")) },
			[]string{"node-2: 1→0 330m→-"}},
		{"delete of an unknown key", func() []string { return changeStrings(l.Delete("zzz")) }, nil},
	}
	for _, s := range steps {
		if got := s.do(); fmt.Sprint(got) != fmt.Sprint(s.want) {
			t.Errorf("%s: changes = %q, want %q", s.name, got, s.want)
		}
	}
	table := l.Table()
	_, rows := table.Strings()
	if fmt.Sprint(rows) != "[[node-1 1 0] [TOTAL 1 0]]" {
		t.Errorf("table after the steps = %v", rows)
	}
	if l.Len() != 1 {
		t.Errorf("Len() = %d, want 1", l.Len())
	}
}

// The table Live keeps equals the one a Grouper builds from the objects at the end.
func TestLiveMatchesGrouper(t *testing.T) {
	ms := []Measure{mustMeasure(t, "requests.cpu"), mustMeasure(t, "limits.memory"), mustMeasure(t, "restarts")}
	keys := func(p *corev1.Pod) [][]string { return [][]string{{p.Spec.NodeName}, {p.Namespace, "all"}} }
	l := NewLive([]string{"node", "ns"}, ms)
	pods := allocationPods()
	for i, p := range pods {
		if _, err := l.Set(p.Name, p, keys(p)); err != nil {
			t.Fatal(err)
		}
		// Move every other pod once, and delete every third.
		if i%2 == 0 {
			moved := p.DeepCopy()
			moved.Spec.NodeName = "node-9"
			if _, err := l.Set(p.Name, moved, keys(moved)); err != nil {
				t.Fatal(err)
			}
			pods[i] = moved
		}
	}
	g := NewGrouper([]string{"node", "ns"}, ms)
	for i, p := range pods {
		if i%3 == 0 {
			l.Delete(p.Name)
			continue
		}
		if err := g.Add(p, keys(p)); err != nil {
			t.Fatal(err)
		}
	}
	lt, gt := l.Table(), g.Table()
	_, got := lt.Strings()
	_, want := gt.Strings()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("live table = %v\nwant %v", got, want)
	}
}

func TestLiveWithoutKeys(t *testing.T) {
	l := NewLive(nil, []Measure{mustMeasure(t, "requests.cpu")})
	cs, err := l.Set("a", plainPod, nil)
	if err != nil || fmt.Sprint(changeStrings(cs)) != "[: 0→1 0→1330m]" {
		t.Errorf("Set = %q, %v", changeStrings(cs), err)
	}
	if _, err := l.Set("s", &corev1.Service{}, nil); err == nil {
		t.Errorf("Set(service) with a pod measure = nil error, want one")
	}
	if cs := l.Delete("a"); len(cs) != 1 || cs[0].After.Count != 0 || cs[0].Key != nil {
		t.Errorf("Delete = %+v, want the totals row emptied", cs)
	}
}
