package query

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/fleet"
)

// This file holds the rows of query -w --group-by/--sum, one target or
// several: each target keeps its own table of groups
// (targetAnswer.groupTable over its cache), and the shared output prints
// the tables merged as the one-shot query merges them (mergeGroups, a
// context key column where --group-by names context), sorted and cut as
// it is: first every row with the header, once every target has synced or
// failed, then, as the targets change, the rows that differ from those
// printed, a group that is gone with its count and sums at 0.

// groupState is what the shared output of a grouped query -w keeps: each
// context's table, and the rows printed last by their key.
type groupState struct {
	contextAt int
	tables    map[string]fleet.ContextTable
	printed   map[string][]string
}

// setTable records context name's table, computed from its objects now.
func (s *fleetRows) setTable(ctx context.Context, name string, w *running) error {
	groups, err := w.lookup(ctx)
	if err != nil {
		return err
	}
	t, err := (&targetAnswer{name: name, several: true, p: w.printer, groups: groups}).groupTable()
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.groups.tables[name] = t
	return nil
}

// printGroupRows prints the merged table's rows that differ from those
// printed last (all of them and the header the first time, header unless
// --no-headers); s.mu is held.
func (s *fleetRows) printGroupRows(cfg queryPrintConfig) error {
	tables := make([]fleet.ContextTable, 0, len(s.contexts))
	for _, name := range s.contexts {
		if t, ok := s.groups.tables[name]; ok {
			tables = append(tables, t)
		}
	}
	if len(tables) == 0 {
		return nil
	}
	merged, err := cfg.mergeGroups(tables, s.groups.contextAt)
	if err != nil {
		return err
	}
	keyCells := cfg.keyColumns(merged)
	header, rows := merged.Strings()
	first := s.groups.printed == nil
	if first {
		s.groups.printed = map[string][]string{}
		if !cfg.noHeaders {
			s.writeCells(header)
		}
	}
	seen := map[string]bool{}
	for _, row := range rows {
		key := strings.Join(row[:min(keyCells, len(row))], "\x00")
		seen[key] = true
		if old, ok := s.groups.printed[key]; ok && slices.Equal(old, row) {
			continue
		}
		s.groups.printed[key] = row
		s.writeCells(row)
	}
	var gone []string
	for key := range s.groups.printed {
		if !seen[key] {
			gone = append(gone, key)
		}
	}
	slices.Sort(gone)
	for _, key := range gone {
		row := slices.Clone(s.groups.printed[key])
		for i := keyCells; i < len(row); i++ {
			row[i] = "0"
		}
		delete(s.groups.printed, key)
		s.writeCells(row)
	}
	return s.flush()
}

// runGroups is run for one context of a grouped query -w: its table goes
// to the shared output, then, once the merged table is printed, its
// changes, at most every groupRowsInterval, until ctx ends.
func (s *fleetRows) runGroups(ctx context.Context, name string, w *running) error {
	if err := s.setTable(ctx, name, w); err != nil {
		return err
	}
	s.mu.Lock()
	s.groupCfg = w.printer.cfg
	s.printers[name] = nil
	s.settle()
	s.mu.Unlock()
	select {
	case <-s.printed:
	case <-ctx.Done():
		return nil
	}
	changed, stop := w.changed(ctx, func(engine.EventType) {})
	defer stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-changed:
		}
		if err := s.setTable(ctx, name, w); err != nil {
			return err
		}
		s.mu.Lock()
		err := s.printGroupRows(w.printer.cfg)
		s.mu.Unlock()
		if err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(groupRowsInterval):
		}
	}
}
