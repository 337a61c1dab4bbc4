package printing

import (
	"bytes"
	"testing"
)

// TestWriteTable checks the layout of kubectl's tables: columns at least
// six wide and three spaces apart, no trailing spaces, a short row's
// missing cells empty, widths counted in runes as kubectl's tab writer
// counts them.
func TestWriteTable(t *testing.T) {
	tests := []struct {
		name      string
		header    []string
		rows      [][]string
		noHeaders bool
		want      string
	}{
		{"narrow columns are six wide", []string{"A", "B", "C"}, [][]string{{"1", "2", "3"}},
			false, "A     B     C\n1     2     3\n"},
		{"three spaces after the widest cell", []string{"NAME", "STATUS"}, [][]string{{"web-5fc9f4bf66-6zwrp", "Running"}, {"db", "Pending"}},
			false, "NAME                   STATUS\nweb-5fc9f4bf66-6zwrp   Running\ndb                     Pending\n"},
		{"an empty last cell leaves no trailing space", []string{"NAME", "LABEL"}, [][]string{{"web", ""}, {"db", "x"}},
			false, "NAME   LABEL\nweb\ndb     x\n"},
		{"a short row", []string{"NODE", "COUNT", "CPU"}, [][]string{{"node-1", "3", "250m"}, {"TOTAL", "3"}},
			false, "NODE     COUNT   CPU\nnode-1   3       250m\nTOTAL    3\n"},
		{"no headers", []string{"NAME", "STATUS"}, [][]string{{"web", "Running"}},
			true, "web   Running\n"},
		{"runes, not bytes", []string{"NAME", "X"}, [][]string{{"évé", "1"}, {"日本語", "2"}},
			false, "NAME   X\névé    1\n日本語    2\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteTable(&b, tt.header, tt.rows, tt.noHeaders); err != nil {
				t.Fatal(err)
			}
			if got := b.String(); got != tt.want {
				t.Errorf("WriteTable(%q, %q) =\n%q\nwant\n%q", tt.header, tt.rows, got, tt.want)
			}
		})
	}
}
