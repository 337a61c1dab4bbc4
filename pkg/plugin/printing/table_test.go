package printing

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
)

// TestWriteTable checks the layout of kubectl's tables: columns at least
// six wide and three spaces apart, no trailing spaces, a short row's
// missing cells empty, widths counted as the terminal shows them.
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
		{"a row longer than the header", []string{"NAME"}, [][]string{{"web", "extra"}, {"db"}},
			false, "NAME\nweb    extra\ndb\n"},
		{"no headers", []string{"NAME", "STATUS"}, [][]string{{"web", "Running"}},
			true, "web   Running\n"},
		{"no rows", []string{"NAME", "STATUS"}, nil,
			false, "NAME   STATUS\n"},
		{"nothing", []string{"NAME", "STATUS"}, nil,
			true, ""},
		{"one column", []string{"NAME"}, [][]string{{"web  "}, {""}},
			false, "NAME\nweb\n\n"},
		{"East Asian wide text takes two columns a character", []string{"NAME", "X"}, [][]string{{"évé", "1"}, {"日本語", "2"}},
			false, "NAME     X\névé      1\n日本語   2\n"},
		{"a long last cell is not padded", []string{"NAME", "MESSAGE"}, [][]string{{"a", strings.Repeat("m", 5000)}, {"b", "short"}},
			false, "NAME   MESSAGE\na      " + strings.Repeat("m", 5000) + "\nb      short\n"},
		{"control characters are escaped, in header cells too", []string{"NAME\x1b[2J", "VALUE"}, [][]string{{"evil\x1b[31m", "ok\n"}},
			false, "NAME\\u001b[2J    VALUE\nevil\\u001b[31m   ok\\n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteTable(&b, tt.header, tt.rows, tt.noHeaders); err != nil {
				t.Fatal(err)
			}
			if got := b.String(); got != tt.want {
				t.Errorf("WriteTable(%q, %q, %v) =\n%q\nwant\n%q", tt.header, tt.rows, tt.noHeaders, got, tt.want)
			}
		})
	}
}

// cellPieces are what random cells are made of: ASCII, spaces, East Asian
// wide and ambiguous characters, combining and zero-width ones, emoji,
// control characters and bytes that are not UTF-8.
var cellPieces = []string{
	"", "a", "web-5fc9f4bf66-6zwrp", "Running", " ", "  ", "x y", "0", "250m",
	"日本語", "한국어", "ｱｲｳ", "é", "e\u0301", "Ω", "±", "→", "\u200b", "🙂", "👩\u200d💻",
	strings.Repeat("long-", 12),
	"\x1b[31m", "\t", "\n", "\r", "\x7f", "\xff", "\u202e",
}

// randomCell joins up to three pieces; control characters only when
// controls is set.
func randomCell(rng *rand.Rand, controls bool) string {
	pieces := cellPieces
	if !controls {
		pieces = pieces[:len(pieces)-7]
	}
	var b strings.Builder
	for range rng.IntN(4) {
		b.WriteString(pieces[rng.IntN(len(pieces))])
	}
	return b.String()
}

// TestWriteTableKeepsTablewriterLayout compares WriteTable with every cell
// laid out by tablewriter (referenceTable) over random tables: rows shorter
// and longer than the header, empty cells, wide text. Header cells have no
// control characters, which WriteTable escapes and the reference did not.
func TestWriteTableKeepsTablewriterLayout(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 5373))
	for n := range 2000 {
		header := make([]string, rng.IntN(6))
		for i := range header {
			header[i] = randomCell(rng, false)
		}
		rows := make([][]string, rng.IntN(12))
		for r := range rows {
			rows[r] = make([]string, rng.IntN(len(header)+3))
			for i := range rows[r] {
				rows[r][i] = randomCell(rng, true)
			}
		}
		noHeaders := rng.IntN(4) == 0
		var got, want bytes.Buffer
		if err := WriteTable(&got, header, rows, noHeaders); err != nil {
			t.Fatal(err)
		}
		if err := referenceTable(&want, header, rows, noHeaders); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Fatalf("table %d: WriteTable(%q, %q, %v) =\n%s\nwant\n%s", n, header, rows, noHeaders, got.String(), want.String())
		}
	}
}

// TestWriteTableLongLastCell checks that a long cell in the last column
// (an event's message) costs its own bytes, not its width again on every
// row: what a table allocates grows by a few times the long cell, whatever
// the rows.
func TestWriteTableLongLastCell(t *testing.T) {
	allocated := func(longest int) uint64 {
		header, rows := eventTable(2000, longest)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if err := WriteTable(io.Discard, header, rows, false); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	short, long := allocated(100), allocated(20100)
	if grown := int64(long) - int64(short); grown > 10*20000 {
		t.Errorf("a table of 2,000 rows allocated %d bytes with its longest last cell 100 bytes and %d with it 20,100 bytes: %d more, want at most %d", short, long, grown, 10*20000)
	}
}

// eventTable is a table of n events whose longest message is longest bytes.
func eventTable(n, longest int) ([]string, [][]string) {
	header := []string{"NAMESPACE", "LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"}
	rows := make([][]string, n)
	for i := range rows {
		message := fmt.Sprintf("Container image \"quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:%064d\" already present on machine", i)
		if i == n/2 {
			message = strings.Repeat("x", longest)
		}
		rows[i] = []string{fmt.Sprintf("openshift-namespace-%d", i%56), fmt.Sprintf("%dm", i%90), "Normal", "Pulled",
			fmt.Sprintf("pod/apiserver-7d9f8c5b6-%05d", i), message}
	}
	return header, rows
}

// BenchmarkWriteTable writes a table of 5,000 events.
func BenchmarkWriteTable(b *testing.B) {
	header, rows := eventTable(5000, 10000)
	b.ReportAllocs()
	for b.Loop() {
		if err := WriteTable(io.Discard, header, rows, false); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReferenceTable writes the same table with every cell laid out
// by tablewriter.
func BenchmarkReferenceTable(b *testing.B) {
	header, rows := eventTable(5000, 10000)
	b.ReportAllocs()
	for b.Loop() {
		if err := referenceTable(io.Discard, header, rows, false); err != nil {
			b.Fatal(err)
		}
	}
}
