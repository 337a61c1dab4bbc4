package printing

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/kubectl-informer/kubectl-informer/pkg/terminal"
)

// minCellWidth is the narrowest a column is, cell and padding together, as in
// kubectl's tab writer (printers.GetNewTabWriter: minwidth 6, padding 3).
const minCellWidth = 6

// columnPadding is the space between columns.
const columnPadding = "   "

// WriteTable prints rows under header the way kubectl prints tables: no
// borders, left-aligned, three spaces between columns and every column at
// least six wide, no trailing spaces. Cells and header cells come from the
// cluster, so control characters are escaped. Widths are display widths
// (an East Asian wide character takes two).
//
// Its cost grows with the bytes of the columns before the last: the last
// column is never padded, so a long last cell (an event's message) costs
// only its own bytes.
func WriteTable(w io.Writer, header []string, rows [][]string, noHeaders bool) error {
	// A line of no cells is not printed, as tablewriter prints none.
	lines := make([][]string, 0, len(rows)+1)
	if !noHeaders && len(header) > 0 {
		lines = append(lines, header)
	}
	for _, row := range rows {
		if len(row) > 0 {
			lines = append(lines, row)
		}
	}
	numCols := 0
	for _, line := range lines {
		numCols = max(numCols, len(line))
	}
	// The columns before the last are laid out by tablewriter; the last
	// one is written after them as it is, since nothing follows it.
	laidOut := make([][]string, len(lines))
	last := make([]string, len(lines))
	for r, line := range lines {
		laidOut[r] = make([]string, min(len(line), numCols-1))
		for i, cell := range line {
			if i < numCols-1 {
				laidOut[r][i] = terminal.SanitizeText(cell)
			} else {
				last[r] = terminal.SanitizeText(cell)
			}
		}
	}
	padNarrowColumns(laidOut)
	prefixes, err := layOut(laidOut)
	if err != nil {
		return err
	}
	out := bufio.NewWriter(w)
	for r := range lines {
		line := prefixes[r]
		if numCols > 1 {
			line = append(line, columnPadding...)
		}
		line = append(line, last[r]...)
		out.Write(bytes.TrimRight(line, " "))
		out.WriteByte('\n')
	}
	return out.Flush()
}

// layOut returns each row's line as tablewriter lays it out: cells
// left-aligned, each padded to its column's display width (a short row's
// missing cells empty), columns columnPadding apart, the last cell padded
// too. Rows have no newlines; either every row has cells or none has.
func layOut(rows [][]string) ([][]byte, error) {
	lines := make([][]byte, len(rows))
	if len(rows) == 0 || len(rows[0]) == 0 {
		return lines, nil
	}
	var buf bytes.Buffer
	table := tablewriter.NewTable(&buf,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{
			Borders: tw.BorderNone,
			Symbols: tw.NewSymbolCustom("kubectl").WithColumn(columnPadding),
			Settings: tw.Settings{
				Separators: tw.Separators{BetweenRows: tw.Off, BetweenColumns: tw.On, ShowHeader: tw.Off},
				Lines:      tw.Lines{ShowHeaderLine: tw.Off},
			},
		})),
		tablewriter.WithRowAlignment(tw.AlignLeft),
		tablewriter.WithTrimSpace(tw.Off),
		tablewriter.WithPadding(tw.Padding{Overwrite: true}),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
	)
	for _, row := range rows {
		if err := table.Append(row); err != nil {
			return nil, err
		}
	}
	if err := table.Render(); err != nil {
		return nil, err
	}
	rendered := bytes.Split(bytes.TrimSuffix(buf.Bytes(), []byte("\n")), []byte("\n"))
	if len(rendered) != len(rows) {
		return nil, fmt.Errorf("laying out a table of %d rows: tablewriter wrote %d lines", len(rows), len(rendered))
	}
	for r, line := range rendered {
		lines[r] = line[:len(line):len(line)]
	}
	return lines, nil
}

// padNarrowColumns pads, in place, every cell of a column whose widest cell
// is narrower than minCellWidth less the padding, so that the column takes
// minCellWidth. The spaces of the last column are trimmed with the rest of
// the trailing space.
func padNarrowColumns(rows [][]string) {
	var widths []int
	for _, row := range rows {
		for i, c := range row {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	want := minCellWidth - len(columnPadding)
	for _, row := range rows {
		for i, c := range row {
			if widths[i] < want {
				row[i] = c + strings.Repeat(" ", want-utf8.RuneCountInString(c))
			}
		}
	}
}

// WriteCells writes a line of n cells to tabs, a tab writer: cells, then
// empty ones; cells come from the cluster, so control characters are
// escaped.
func WriteCells(tabs io.Writer, cells []string, n int) {
	for i := range n {
		if i > 0 {
			io.WriteString(tabs, "\t")
		}
		if i < len(cells) {
			io.WriteString(tabs, terminal.SanitizeText(cells[i]))
		}
	}
	io.WriteString(tabs, "\n")
}
