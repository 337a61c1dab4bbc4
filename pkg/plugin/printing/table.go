package printing

import (
	"bufio"
	"bytes"
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
// least six wide, no trailing spaces. Cells come from the cluster, so control
// characters are escaped.
func WriteTable(w io.Writer, header []string, rows [][]string, noHeaders bool) error {
	safeRows := make([][]string, len(rows))
	for r, row := range rows {
		safeRows[r] = make([]string, len(row))
		for i, cell := range row {
			safeRows[r][i] = terminal.SanitizeText(cell)
		}
	}
	if !noHeaders {
		header = append([]string(nil), header...)
	} else {
		header = nil
	}
	padNarrowColumns(header, safeRows)
	var buf bytes.Buffer
	table := tablewriter.NewTable(&buf,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{
			Borders: tw.BorderNone,
			Symbols: tw.NewSymbols(tw.StyleNone),
			Settings: tw.Settings{
				Separators: tw.Separators{BetweenRows: tw.Off, BetweenColumns: tw.Off, ShowHeader: tw.Off},
				Lines:      tw.Lines{ShowHeaderLine: tw.Off},
			},
		})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignment(tw.AlignLeft),
		tablewriter.WithTrimSpace(tw.Off),
		tablewriter.WithPadding(tw.Padding{Left: "", Right: columnPadding, Overwrite: true}),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
	)
	if header != nil {
		table.Header(header)
	}
	for _, row := range safeRows {
		if err := table.Append(row); err != nil {
			return err
		}
	}
	if err := table.Render(); err != nil {
		return err
	}
	out := bufio.NewWriter(w)
	for _, line := range bytes.SplitAfter(buf.Bytes(), []byte("\n")) {
		trimmed := bytes.TrimRight(line, " \n")
		if len(trimmed) == 0 && len(line) == 0 {
			continue
		}
		out.Write(trimmed)
		if bytes.HasSuffix(line, []byte("\n")) {
			out.WriteByte('\n')
		}
	}
	return out.Flush()
}

// padNarrowColumns pads, in place, every cell of a column whose widest cell
// (header included) is narrower than minCellWidth less the padding, so that
// the column takes minCellWidth. The spaces of the last column are trimmed
// with the rest of the trailing space.
func padNarrowColumns(header []string, rows [][]string) {
	widths := map[int]int{}
	measure := func(cells []string) {
		for i, c := range cells {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	measure(header)
	for _, row := range rows {
		measure(row)
	}
	want := minCellWidth - len(columnPadding)
	pad := func(cells []string) {
		for i, c := range cells {
			if widths[i] < want {
				cells[i] = c + strings.Repeat(" ", want-utf8.RuneCountInString(c))
			}
		}
	}
	pad(header)
	for _, row := range rows {
		pad(row)
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
