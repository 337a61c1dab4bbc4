package printing

import (
	"bufio"
	"bytes"
	"io"

	"k8s.io/cli-runtime/pkg/printers"

	"github.com/kubectl-informer/kubectl-informer/pkg/terminal"
)

// WriteTable prints rows under header the way kubectl prints tables, with
// kubectl's tab writer (printers.GetNewTabWriter): no borders,
// left-aligned, three spaces between columns and every column at least six
// wide, and no trailing spaces. Cells come from the cluster, so control
// characters are escaped.
func WriteTable(w io.Writer, header []string, rows [][]string, noHeaders bool) error {
	// A short row is padded with empty cells: the tab writer aligns a
	// column only over consecutive lines that have it.
	width := len(header)
	for _, row := range rows {
		width = max(width, len(row))
	}
	var buf bytes.Buffer
	tabs := printers.GetNewTabWriter(&buf)
	if !noHeaders {
		WriteCells(tabs, header, width)
	}
	for _, row := range rows {
		WriteCells(tabs, row, width)
	}
	if err := tabs.Flush(); err != nil {
		return err
	}
	out := bufio.NewWriter(w)
	for _, line := range bytes.SplitAfter(buf.Bytes(), []byte("\n")) {
		out.Write(bytes.TrimRight(line, " \n"))
		if bytes.HasSuffix(line, []byte("\n")) {
			out.WriteByte('\n')
		}
	}
	return out.Flush()
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
