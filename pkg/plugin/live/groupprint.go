package live

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/kubectl-informer/kubectl-informer/pkg/aggregate"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/printing"
	"github.com/kubectl-informer/kubectl-informer/pkg/terminal"
)

// draw prints the table: on a terminal a frame in place of the last one;
// off one, the whole table the first time, then the changed groups'
// rows (unless GroupsConfig.Lines, whose changes print as they come).
// g.mu is held.
func (g *Groups) draw() error {
	table, err := g.table()
	if err != nil {
		return err
	}
	if g.screen == nil && !g.cfg.Lines {
		return g.printRows(table)
	}
	header, rows := table.Strings()
	var buf bytes.Buffer
	if len(table.Rows) == 0 && g.cfg.Empty != nil && g.screen != nil {
		g.cfg.Empty(&buf)
	} else if err := printing.WriteTable(&buf, header, rows, g.cfg.NoHeaders); err != nil {
		return err
	}
	if g.screen == nil {
		if _, err := g.out.Write(buf.Bytes()); err != nil {
			return err
		}
		return g.out.Flush()
	}
	var lines []string
	if text := strings.TrimSuffix(buf.String(), "\n"); text != "" {
		lines = strings.Split(text, "\n")
	}
	return g.screen.Draw(lines, []string{fmt.Sprintf("%s: %d", g.cfg.Objects, g.live.Len())})
}

// printRows prints the rows of table that differ from those printed last
// (all of them and the header the first time, the header unless
// NoHeaders); a group that is gone prints with its count and sums at 0.
// g.mu is held.
func (g *Groups) printRows(table aggregate.Table) error {
	keyCells := len(table.Columns) - 1 - len(g.measures)
	header, rows := table.Strings()
	if g.rows == nil {
		g.rows = map[string][]string{}
		if !g.cfg.NoHeaders {
			printing.WriteCells(g.tabs, header, len(header))
		}
	}
	seen := map[string]bool{}
	for _, row := range rows {
		key := strings.Join(row[:min(keyCells, len(row))], "\x00")
		seen[key] = true
		if old, ok := g.rows[key]; ok && slices.Equal(old, row) {
			continue
		}
		g.rows[key] = row
		printing.WriteCells(g.tabs, row, len(row))
	}
	var gone []string
	for key := range g.rows {
		if !seen[key] {
			gone = append(gone, key)
		}
	}
	slices.Sort(gone)
	for _, key := range gone {
		row := slices.Clone(g.rows[key])
		for i := keyCells; i < len(row); i++ {
			row[i] = "0"
		}
		delete(g.rows, key)
		printing.WriteCells(g.tabs, row, len(row))
	}
	if err := g.tabs.Flush(); err != nil {
		return err
	}
	return g.out.Flush()
}

// changeLine is one changed group as a line: its key values, then its count
// and each sum, "before → after" where they changed:
//
//	node=worker-1 label:app=web: count 2 → 3, requests.cpu 500m → 750m
func (g *Groups) changeLine(c aggregate.GroupChange) string {
	var line strings.Builder
	if g.cfg.Timestamps {
		line.WriteString(g.now().Format("15:04:05.000 "))
	}
	if c.Key == nil {
		line.WriteString(aggregate.TotalLabel)
	}
	for i, v := range c.Key {
		if i > 0 {
			line.WriteByte(' ')
		}
		if v == "" {
			v = aggregate.NoValue
		}
		line.WriteString(terminal.SanitizeText(g.cfg.Keys[i] + "=" + v))
	}
	line.WriteString(": count ")
	line.WriteString(fromTo(fmt.Sprint(c.Before.Count), fmt.Sprint(c.After.Count)))
	for i, m := range g.measures {
		line.WriteString(", " + m.Name + " ")
		line.WriteString(fromTo(sumString(c.Before, i), sumString(c.After, i)))
	}
	line.WriteByte('\n')
	return line.String()
}

// sumString is the i-th sum of s, "0" for a group that was not there; a
// share measure's cell ("250m/1 (25%)").
func sumString(s aggregate.GroupState, i int) string {
	if i >= len(s.Sums) {
		return "0"
	}
	if i < len(s.Cells) && s.Cells[i].IsShare() {
		return s.Cells[i].String()
	}
	return s.Sums[i].String()
}

// fromTo is "a → b", or a alone when they are equal.
func fromTo(a, b string) string {
	if a == b {
		return a
	}
	return a + " → " + b
}
