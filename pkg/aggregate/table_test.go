package aggregate

import (
	"reflect"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
)

func TestCompareNatural(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"node-2", "node-10", -1},
		{"node-10", "node-2", 1},
		{"node-2", "node-2", 0},
		{"a", "b", -1},
		{"a", "a1", -1},
		{"a01", "a1", -1}, // equal as numbers: byte order decides
		{"a1b", "a1a", 1},
		{"10.0.0.9", "10.0.0.10", -1},
		{"", "a", -1},
		{"z", "10", 1},
		{"x99999999999999999999999", "x100000000000000000000000", -1}, // beyond int64
	}
	for _, tt := range tests {
		if got := CompareNatural(tt.a, tt.b); got != tt.want {
			t.Errorf("CompareNatural(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
	names := []string{"w-10", "w-2", "w-1", "m", "w-02"}
	sort.Slice(names, func(i, j int) bool { return CompareNatural(names[i], names[j]) < 0 })
	if want := []string{"m", "w-1", "w-02", "w-2", "w-10"}; !reflect.DeepEqual(names, want) {
		t.Errorf("natural sort = %q, want %q", names, want)
	}
}

func q(s string) resource.Quantity { return resource.MustParse(s) }

func TestValueString(t *testing.T) {
	tests := []struct {
		name string
		v    Value
		want string
	}{
		{"text", Text("node-1"), "node-1"},
		{"empty text", Text(""), "<none>"},
		{"blank", Value{}, ""},
		{"count", Count(12), "12"},
		{"count of thousands", Count(10000), "10000"},
		{"quantity", Quantity(q("1330m")), "1330m"},
		{"share", Share(q("1330m"), q("4"), true), "1330m (33%)"},
		{"share rounds down", Share(q("999m"), q("1"), true), "999m (99%)"},
		{"share over 100%", Share(q("12"), q("4"), true), "12 (300%)"},
		{"share exact where a float is not", Share(q("29"), q("100"), true), "29 (29%)"},
		{"memory share", Share(q("4256Mi"), q("16Gi"), true), "4256Mi (25%)"},
		{"mixed formats", Share(q("1Gi"), q("2G"), true), "1Gi (53%)"},
		{"unknown allocatable", Share(q("1330m"), resource.Quantity{}, false), "1330m (?)"},
		{"zero allocatable", Share(q("1"), q("0"), true), "1 (?)"},
		{"pods", CountShare(12, q("110"), true), "12/110 (10%)"},
		{"pods unknown", CountShare(12, resource.Quantity{}, false), "12 (?)"},
		{"thousands of pods", CountShare(10000, q("12k"), true), "10000/12000 (83%)"},
		{"thousands of pods unknown", CountShare(10000, resource.Quantity{}, false), "10000 (?)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.v.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
		})
	}
}

// sortedTable is a grouped table to sort: NODE, COUNT, REQUESTS.CPU, SHARE.
func sortedTable() Table {
	return Table{
		Columns: []string{"node", "count", "requests.cpu", "share"},
		Headers: []string{"", "", "", "CPU SHARE"},
		Rows: [][]Value{
			{Text("node-10"), Count(2), Quantity(q("1500m")), Share(q("1"), q("4"), true)},
			{Text("node-2"), Count(5), Quantity(q("2")), Share(q("1"), q("2"), true)},
			{Text("node-1"), Count(2), Quantity(q("250m")), Share(q("3"), resource.Quantity{}, false)},
			{Text(""), Count(1), Quantity(q("10")), Share(q("1"), q("8"), true)},
		},
		Total: []Value{Text(TotalLabel), Count(10), Quantity(q("13750m")), Share(q("6"), q("14"), true)},
	}
}

func firstColumn(t *Table) []string {
	var names []string
	for _, r := range t.Rows {
		names = append(names, r[0].String())
	}
	return names
}

func TestTableSortBy(t *testing.T) {
	tests := []struct {
		column     string
		descending bool
		top        int
		want       []string
	}{
		{"node", false, 0, []string{"<none>", "node-1", "node-2", "node-10"}},
		{"NODE", true, 0, []string{"node-10", "node-2", "node-1", "<none>"}},
		{"count", false, 0, []string{"<none>", "node-10", "node-1", "node-2"}}, // ties keep their order
		{"count", true, 0, []string{"node-2", "node-10", "node-1", "<none>"}},
		{"requests.cpu", true, 0, []string{"<none>", "node-2", "node-10", "node-1"}},
		{"requests.cpu", true, 2, []string{"<none>", "node-2"}},
		{"requests.cpu", false, 1, []string{"node-1"}},
		{"share", true, 0, []string{"node-2", "node-10", "<none>", "node-1"}}, // unknown last
		{"cpu share", false, 0, []string{"<none>", "node-10", "node-2", "node-1"}},
		{"count", true, 10, []string{"node-2", "node-10", "node-1", "<none>"}},
	}
	for _, tt := range tests {
		t.Run(tt.column, func(t *testing.T) {
			table := sortedTable()
			if err := table.SortBy(tt.column, tt.descending); err != nil {
				t.Fatal(err)
			}
			table.Top(tt.top)
			if got := firstColumn(&table); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("SortBy(%q, %t), Top(%d) = %q, want %q", tt.column, tt.descending, tt.top, got, tt.want)
			}
			if table.Total[2].String() != "13750m" {
				t.Errorf("totals changed by sorting: %v", table.Total)
			}
		})
	}
	table := sortedTable()
	err := table.SortBy("cpu", false)
	if want := `--sort-by: no column "cpu"; columns are node, count, requests.cpu, share`; err == nil || err.Error() != want {
		t.Errorf("SortBy(cpu) error = %v, want %q", err, want)
	}
}

func TestTableStrings(t *testing.T) {
	table := sortedTable()
	header, rows := table.Strings()
	if want := []string{"NODE", "COUNT", "REQUESTS.CPU", "CPU SHARE"}; !reflect.DeepEqual(header, want) {
		t.Errorf("header = %q, want %q", header, want)
	}
	last := strings.Join(rows[len(rows)-1], " | ")
	if want := "TOTAL | 10 | 13750m | 6 (42%)"; last != want {
		t.Errorf("totals row = %q, want %q", last, want)
	}
}
