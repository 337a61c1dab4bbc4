package fleet

import (
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubectl-informer/kubectl-informer/pkg/aggregate"
)

// grouped builds a table as aggregate.Grouper does: objects given as
// (key values, cpu request) pairs.
func grouped(keys []string, objs ...[2]string) aggregate.Table {
	m, err := aggregate.ParseMeasure("requests.cpu")
	if err != nil {
		panic(err)
	}
	g := aggregate.NewGrouper(keys, []aggregate.Measure{m})
	for _, o := range objs {
		var kv [][]string
		if len(keys) > 0 {
			kv = [][]string{{o[0]}}
		}
		if err := g.AddValues(kv, []resource.Quantity{resource.MustParse(o[1])}); err != nil {
			panic(err)
		}
	}
	return g.Table()
}

func strs(t aggregate.Table) [][]string {
	h, rows := t.Strings()
	return append([][]string{h}, rows...)
}

func TestMergeTables(t *testing.T) {
	a := ContextTable{Context: "a", Keys: 1, Table: grouped([]string{"node"}, [2]string{"n1", "100m"}, [2]string{"n1", "200m"}, [2]string{"n2", "1"})}
	b := ContextTable{Context: "b", Keys: 1, Table: grouped([]string{"node"}, [2]string{"n2", "500m"}, [2]string{"n3", "1"})}
	for _, tc := range []struct {
		name      string
		tables    []ContextTable
		contextAt int
		want      [][]string
	}{
		{
			name: "summed over contexts", tables: []ContextTable{a, b}, contextAt: -1,
			want: [][]string{
				{"NODE", "COUNT", "REQUESTS.CPU"},
				{"n1", "2", "300m"},
				{"n2", "2", "1500m"},
				{"n3", "1", "1"},
				{"TOTAL", "5", "2800m"},
			},
		},
		{
			name: "context first keeps contexts apart", tables: []ContextTable{a, b}, contextAt: 0,
			want: [][]string{
				{"CONTEXT", "NODE", "COUNT", "REQUESTS.CPU"},
				{"a", "n1", "2", "300m"},
				{"a", "n2", "1", "1"},
				{"b", "n2", "1", "500m"},
				{"b", "n3", "1", "1"},
				{"TOTAL", "", "5", "2800m"},
			},
		},
		{
			name: "context after the keys", tables: []ContextTable{a, b}, contextAt: 1,
			want: [][]string{
				{"NODE", "CONTEXT", "COUNT", "REQUESTS.CPU"},
				{"n1", "a", "2", "300m"},
				{"n2", "a", "1", "1"},
				{"n2", "b", "1", "500m"},
				{"n3", "b", "1", "1"},
				{"TOTAL", "", "5", "2800m"},
			},
		},
		{
			name: "by context alone: each context's total",
			tables: []ContextTable{
				{Context: "a", Keys: 0, Table: grouped(nil, [2]string{"", "1"}, [2]string{"", "2"})},
				{Context: "b", Keys: 0, Table: grouped(nil, [2]string{"", "3"})},
			},
			contextAt: 0,
			want: [][]string{
				{"CONTEXT", "COUNT", "REQUESTS.CPU"},
				{"a", "2", "3"},
				{"b", "1", "3"},
				{"TOTAL", "3", "6"},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := strs(MergeTables(tc.tables, tc.contextAt))
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("MergeTables:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
	if got := MergeTables(nil, 0); len(got.Columns) != 0 {
		t.Errorf("MergeTables(nil) = %+v, want an empty table", got)
	}
}

func TestMergeTablesAddsUpShares(t *testing.T) {
	m, err := aggregate.ParseMeasure("usage.cpu/requests.cpu")
	if err != nil {
		t.Fatal(err)
	}
	share := func(used, of string) aggregate.Table {
		g := aggregate.NewGrouper([]string{"namespace"}, []aggregate.Measure{m})
		if err := g.AddValues([][]string{{"web"}}, []resource.Quantity{resource.MustParse(used), resource.MustParse(of)}); err != nil {
			t.Fatal(err)
		}
		return g.Table()
	}
	// 100m of 1 and 500m of 1: 600m of 2, 30% (not 10% + 50%).
	got := strs(MergeTables([]ContextTable{{Context: "a", Keys: 1, Table: share("100m", "1")}, {Context: "b", Keys: 1, Table: share("500m", "1")}}, -1))
	want := [][]string{
		{"NAMESPACE", "COUNT", "USAGE.CPU/REQUESTS.CPU"},
		{"web", "2", "600m/2 (30%)"},
		{"TOTAL", "2", "600m/2 (30%)"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("MergeTables() = %v, want %v", got, want)
	}
}

func TestMergeTablesOfOtherColumns(t *testing.T) {
	table := func(measures ...string) aggregate.Table {
		var ms []aggregate.Measure
		var values []resource.Quantity
		for _, s := range measures {
			m, err := aggregate.ParseMeasure(s)
			if err != nil {
				t.Fatal(err)
			}
			ms, values = append(ms, m), append(values, resource.MustParse("1"))
		}
		g := aggregate.NewGrouper([]string{"namespace"}, ms)
		if err := g.AddValues([][]string{{"ns"}}, values); err != nil {
			t.Fatal(err)
		}
		return g.Table()
	}
	got := strs(MergeTables([]ContextTable{
		{Context: "a", Keys: 1, Table: table("requests.nvidia.com/gpu")},
		{Context: "b", Keys: 1, Table: table("requests.nvidia.com/mig-1g.5gb", "requests.nvidia.com/gpu")},
	}, -1))
	want := [][]string{
		{"NAMESPACE", "COUNT", "REQUESTS.NVIDIA.COM/GPU", "REQUESTS.NVIDIA.COM/MIG-1G.5GB"},
		{"ns", "2", "2", "1"},
		{"TOTAL", "2", "2", "1"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("MergeTables() = %v, want %v", got, want)
	}
}
