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

// referenceTable writes a table as WriteTable wrote it when every cell went
// through tablewriter with three spaces of right padding: the output
// WriteTable must keep, byte for byte.
func referenceTable(w io.Writer, header []string, rows [][]string, noHeaders bool) error {
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
	referencePadNarrowColumns(header, safeRows)
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
		tablewriter.WithPadding(tw.Padding{Left: "", Right: "   ", Overwrite: true}),
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

// referencePadNarrowColumns pads the cells of every column narrower than
// three runes, header included, to three runes.
func referencePadNarrowColumns(header []string, rows [][]string) {
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
