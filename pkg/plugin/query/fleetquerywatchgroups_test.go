package query

import (
	"bytes"
	"errors"
	"testing"

	"github.com/kubectl-informer/kubectl-informer/pkg/aggregate"
	"github.com/kubectl-informer/kubectl-informer/pkg/fleet"
)

// The grouped rows of query -w across contexts: the merged table first,
// then only the rows that changed, a group that is gone at 0.
func TestFleetRowsPrintGroupRows(t *testing.T) {
	table := func(rows ...[]aggregate.Value) aggregate.Table {
		return aggregate.Table{Columns: []string{"node", aggregate.ColumnCount}, Rows: rows}
	}
	row := func(node string, n int64) []aggregate.Value {
		return []aggregate.Value{aggregate.Text(node), aggregate.Count(n)}
	}
	var out bytes.Buffer
	s := newFleetRows(&out, []string{"a", "b"}, false, true, -1, true)
	cfg := queryPrintConfig{}
	s.groups.tables["a"] = fleet.ContextTable{Context: "a", Keys: 1, Table: table(row("n1", 2), row("n2", 1))}
	s.groups.tables["b"] = fleet.ContextTable{Context: "b", Keys: 1, Table: table(row("n1", 1))}
	if err := s.printGroupRows(cfg); err != nil {
		t.Fatal(err)
	}
	if want := "NODE   COUNT\nn1     3\nn2     1\n"; out.String() != want {
		t.Fatalf("first print =\n%s\nwant\n%s", out.String(), want)
	}
	out.Reset()
	s.groups.tables["b"] = fleet.ContextTable{Context: "b", Keys: 1, Table: table(row("n3", 1))}
	if err := s.printGroupRows(cfg); err != nil {
		t.Fatal(err)
	}
	if want := "n1     2\nn3     1\n"; out.String() != want {
		t.Errorf("after b's pod moved to n3 =\n%s\nwant\n%s", out.String(), want)
	}
	out.Reset()
	close(s.printed)
	s.ended("b", errors.New("connection refused"))
	if want := "n3     0\n"; out.String() != want {
		t.Errorf("after b failed =\n%s\nwant\n%s", out.String(), want)
	}
	out.Reset()
	s.ended("a", nil)
	if out.String() != "" {
		t.Errorf("a context that ended without an error (Ctrl-C) changed the table: %q", out.String())
	}
}
