package aggregate

import (
	"encoding/json"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestParseShareMeasure(t *testing.T) {
	for _, s := range []string{"usage.cpu/requests.cpu", "usage.memory/requests.memory", "usage.cpu/limits.cpu", "usage.memory/limits.memory"} {
		m, err := ParseMeasure(s)
		if err != nil || !m.IsShare() || !m.ReadsUsage() || m.IsUsage() || !m.PodsOnly || m.Name != s {
			t.Errorf("ParseMeasure(%q) = %+v, %v, want a share measure of pods", s, m, err)
		}
	}
	for _, s := range []string{"usage.cpu/requests.memory", "usage.cpu/usage.cpu", "usage.cpu/restarts", "usage.cpu/requests.*", "usage.gpu/requests.gpu", "usage.cpu/", "usage.cpu/x=.spec.x"} {
		if _, err := ParseMeasure(s); err == nil || !strings.HasPrefix(err.Error(), "--sum") {
			t.Errorf("ParseMeasure(%q) error = %v, want one naming --sum", s, err)
		}
	}
	if _, err := Values(mustMeasures(t, "usage.cpu/requests.cpu"), plainPod); err == nil {
		t.Error("Values(a share measure) error = nil, want one: a share is of a group's sums")
	}
}

// sharePod is a pod of ns with cpu requests, for the samples of sharedUsage.
func sharePod(name, cpu string) *corev1.Pod {
	p := podOn(name, "node-1", ctr("app", rl("cpu", cpu), nil))
	p.Namespace = "default"
	return p
}

func TestGrouperShares(t *testing.T) {
	ms := BindUsage(mustMeasures(t, "usage.cpu", "usage.cpu/requests.cpu", "requests.cpu"), usageSnapshot())
	g := NewGrouper([]string{"pod"}, ms)
	// plain uses 250m of 1 (25%); sidecar 2m (1500000n rounded up) of nothing.
	for _, p := range []*corev1.Pod{sharePod("plain", "1"), podOn("sidecar", "node-1", ctr("app", nil, nil))} {
		p.Namespace = "default"
		if err := g.Add(p, [][]string{{p.Name}}); err != nil {
			t.Fatal(err)
		}
	}
	table := g.Table()
	if got, want := strings.Join(table.Columns, ","), "pod,count,usage.cpu,usage.cpu/requests.cpu,requests.cpu"; got != want {
		t.Errorf("Columns = %s, want %s", got, want)
	}
	if err := table.SortBy("usage.cpu/requests.cpu", true); err != nil {
		t.Fatal(err)
	}
	_, rows := table.Strings()
	want := [][]string{
		{"plain", "1", "250m", "250m/1 (25%)", "1"},
		{"sidecar", "1", "2m", "2m/0", "0"},
		{"TOTAL", "2", "252m", "252m/1 (25%)", "1"},
	}
	for i := range want {
		if got := strings.Join(rows[i], " "); got != strings.Join(want[i], " ") {
			t.Errorf("row %d = %q, want %q", i, got, strings.Join(want[i], " "))
		}
	}
	// A share of nothing sorts last either way.
	if err := table.SortBy("usage.cpu/requests.cpu", false); err != nil {
		t.Fatal(err)
	}
	if got := table.Rows[1][0].Text(); got != "sidecar" {
		t.Errorf("ascending, the last row is %s, want sidecar (a share of nothing)", got)
	}

	// Without the metrics API the share is blank, as the usage is.
	g = NewGrouper(nil, BindUsage(mustMeasures(t, "usage.cpu/requests.cpu"), nil))
	if err := g.Add(sharePod("plain", "1"), nil); err != nil {
		t.Fatal(err)
	}
	if total := g.Table().Total; !total[2].IsBlank() {
		t.Errorf("the share without samples = %q, want a blank cell", total[2].String())
	}
}

func TestLiveShares(t *testing.T) {
	ms := BindUsage(mustMeasures(t, "usage.cpu/requests.cpu"), usageSnapshot())
	l := NewLive([]string{"namespace"}, ms)
	if _, err := l.Set("a", sharePod("plain", "500m"), [][]string{{"default"}}); err != nil {
		t.Fatal(err)
	}
	// The same usage of more requests changes the group's share.
	cs, err := l.Set("a", sharePod("plain", "1"), [][]string{{"default"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 1 || cs[0].Before.Cells[0].String() != "250m/500m (50%)" || cs[0].After.Cells[0].String() != "250m/1 (25%)" {
		t.Errorf("changes = %+v, want default's share 250m/500m (50%%) → 250m/1 (25%%)", cs)
	}
	if got := l.Table().Rows[0][2].String(); got != "250m/1 (25%)" {
		t.Errorf("table cell = %s, want 250m/1 (25%%)", got)
	}
}

func TestShareCellJSON(t *testing.T) {
	for _, v := range []Value{ShareCell(q("721m"), q("1500m")), ShareCell(q("2m"), q("0"))} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var back Value
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if back.String() != v.String() {
			t.Errorf("%s after JSON = %s", v.String(), back.String())
		}
	}
}
