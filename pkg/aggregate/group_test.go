package aggregate

import (
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
)

// tableText renders t as lines of tab-separated cells, header first.
func tableText(t *Table) []string {
	header, rows := t.Strings()
	lines := []string{strings.Join(header, "\t")}
	for _, r := range rows {
		lines = append(lines, strings.Join(r, "\t"))
	}
	return lines
}

func TestGrouperOneKey(t *testing.T) {
	g := NewGrouper([]string{"node"}, []Measure{mustMeasure(t, "requests.cpu"), mustMeasure(t, "requests.memory")})
	for _, p := range allPods() {
		if err := g.Add(p, [][]string{{p.Spec.NodeName}}); err != nil {
			t.Fatal(err)
		}
	}
	table := g.Table()
	got := tableText(&table)
	want := []string{
		"NODE\tCOUNT\tREQUESTS.CPU\tREQUESTS.MEMORY",
		// node-1: plain 1330m/4256Mi, big-init 2/1Gi, done 0, resized 1/0.
		"node-1\t4\t4330m\t5280Mi",
		// node-2: sidecar 1200m/768Mi, overhead 370m/184Mi, pod-level 2/2Gi.
		"node-2\t3\t3570m\t3000Mi",
		// Equal counts: the value "" (no node) sorts first, as query --group-by has always done.
		"<none>\t1\t1\t0",
		"gpu-1\t1\t4\t16Gi",
		"TOTAL\t9\t12900m\t24664Mi",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Table() =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestGrouperSeveralKeysAndValues(t *testing.T) {
	g := NewGrouper([]string{"namespace", "img"}, []Measure{mustMeasure(t, "restarts")})
	add := func(ns string, imgs []string, restarts int64) {
		t.Helper()
		if err := g.AddValues([][]string{{ns}, imgs}, []resource.Quantity{*resource.NewQuantity(restarts, resource.DecimalSI)}); err != nil {
			t.Fatal(err)
		}
	}
	add("a", []string{"nginx", "envoy"}, 1)
	add("a", []string{"nginx", "nginx"}, 2) // a duplicate value counts once
	add("b", []string{"redis"}, 4)
	add("b", nil, 8)
	table := g.Table()
	got := tableText(&table)
	want := []string{
		"NAMESPACE\tIMG\tCOUNT\tRESTARTS",
		"a\tnginx\t2\t3",
		"a\tenvoy\t1\t1",
		"b\t<none>\t1\t8",
		"b\tredis\t1\t4",
		"TOTAL\t\t4\t15",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Table() =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if err := g.AddValues([][]string{{"a"}}, nil); err == nil {
		t.Errorf("AddValues with one key of two = nil error, want one")
	}
}

func TestGrouperNoKeys(t *testing.T) {
	g := NewGrouper(nil, []Measure{mustMeasure(t, "requests.nvidia.com/gpu")})
	for _, p := range allPods() {
		if err := g.Add(p, nil); err != nil {
			t.Fatal(err)
		}
	}
	table := g.Table()
	got := tableText(&table)
	want := []string{"GROUP\tCOUNT\tREQUESTS.NVIDIA.COM/GPU", "TOTAL\t9\t2"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Table() = %q, want %q", got, want)
	}
}

func TestGrouperMeasureError(t *testing.T) {
	g := NewGrouper([]string{"node"}, []Measure{mustMeasure(t, "requests.cpu")})
	if err := g.Add("not a pod", [][]string{{"x"}}); err == nil {
		t.Fatalf("Add(string) = nil error, want one")
	}
	table := g.Table()
	if len(table.Rows) != 0 || table.Total[1].String() != "0" {
		t.Errorf("after a failed Add, Table() = %v, want no rows and a zero count", tableText(&table))
	}
}
