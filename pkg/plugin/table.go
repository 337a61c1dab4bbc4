package plugin

import (
	"bufio"
	"bytes"
	"io"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/kubectl-informer/kubectl-informer/pkg/terminal"
)

// writeTable prints rows under header the way kubectl prints tables: no
// borders, left-aligned, three spaces between columns, no trailing spaces.
// Cells come from the cluster, so control characters are escaped.
func writeTable(w io.Writer, header []string, rows [][]string, noHeaders bool) error {
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
	if !noHeaders {
		table.Header(header)
	}
	for _, row := range rows {
		safe := make([]string, len(row))
		for i, cell := range row {
			safe[i] = terminal.SanitizeText(cell)
		}
		if err := table.Append(safe); err != nil {
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
