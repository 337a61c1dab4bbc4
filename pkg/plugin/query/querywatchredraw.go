package query

import (
	"context"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/kubectl-informer/kubectl-informer/pkg/aggregate"
	"github.com/kubectl-informer/kubectl-informer/pkg/fleet"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/cmdutil"
)

// This file holds the answer of query -w computed again as it changes, of
// one target or several: on a terminal, the table redrawn in place
// (liveTable); off it, for --group-by and --sum, the rows of groups. Each
// target follows its own caches (watchOutput.run) and says when its answer
// changed; the shared output looks every target's answer up again and
// prints them merged as the one-shot query merges them (answerPrinter,
// mergeGroups, a context key column where --group-by names context),
// sorted and cut as it is. The rows of groups are every row with the
// header first, once every target has synced or failed, then the rows
// that differ from those printed, a group that is gone with its count and
// sums at 0.

// follow draws the answer once every target has synced or ended (or done
// is closed), then again as the targets' changes come, paced
// (livePacer), until ctx ends or done is closed. A live table's last
// frame is left on the screen, the cursor below it.
func (s *watchOutput) follow(ctx context.Context, done <-chan struct{}) error {
	pacer := newLivePacer(groupRowsInterval, time.Hour)
	resized := make(chan os.Signal, 1)
	if s.live != nil {
		pacer = newLivePacer(minRedrawGap, minIdleRedraw)
		cmdutil.NotifyResize(resized)
		defer cmdutil.StopResize(resized)
		defer func() { _, _ = s.live.out.Write(s.live.inPlace.End()) }()
	}
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-done:
			return nil
		case <-s.changed:
			pacer.dirty = true
		case <-resized:
			pacer.dirty, pacer.last = true, time.Time{}
		case <-timer.C:
		}
		draw, wait := pacer.next(time.Now())
		if draw {
			began := time.Now()
			if err := s.draw(ctx); err != nil {
				return err
			}
			pacer.drawn(time.Now(), time.Since(began))
			_, wait = pacer.next(time.Now())
		}
		timer.Reset(wait)
	}
}

// current looks up the answer of every target that has synced, in the
// order of the contexts, a grouped one grouped. A target of several whose
// answer fails is ended with its error (rowPrinter.fail), and left out.
func (s *watchOutput) current(ctx context.Context) ([]*targetAnswer, error) {
	s.mu.Lock()
	var answers []*targetAnswer
	var rps []*rowPrinter
	for _, name := range s.contexts {
		if rp := s.printers[name]; rp != nil {
			answers = append(answers, &targetAnswer{name: name, several: s.several, cfg: rp.w.cfg})
			rps = append(rps, rp)
		}
	}
	s.mu.Unlock()
	errs := make([]error, len(answers))
	for i, a := range answers {
		a.groups, errs[i] = rps[i].w.lookup(ctx)
	}
	if s.grouped {
		measures := s.fixedMeasures(answers, errs)
		for i, a := range answers {
			if errs[i] == nil {
				a.cfg.measures = measures
				a.table, errs[i] = a.groupTable()
				a.grouped = true
			}
		}
	}
	looked := answers[:0]
	for i, a := range answers {
		err := errs[i]
		switch {
		case err != nil && !s.several:
			return nil, err
		case err != nil:
			rps[i].fail(err)
		default:
			looked = append(looked, a)
		}
	}
	return looked, nil
}

// fixedMeasures returns the --sum measures of the grouped table: with
// globs, expanded against the objects the answers (those without errs)
// hold the first time, and the same columns from then on, so that the
// rows printed as they change keep the header's columns.
func (s *watchOutput) fixedMeasures(answers []*targetAnswer, errs []error) []aggregate.Measure {
	measures := answers[0].cfg.measures
	if !slices.ContainsFunc(measures, aggregate.Measure.IsGlob) {
		return measures
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.measures == nil {
		var objs []interface{}
		for i, a := range answers {
			if errs[i] != nil {
				continue
			}
			for _, g := range a.groups {
				objs = append(objs, g.objs...)
			}
		}
		s.measures, _ = aggregate.ExpandGlobsOver(measures, objs)
	}
	return s.measures
}

// draw draws the answer of every target that has synced: a frame of the
// live table, or the rows of groups that changed. Nothing is drawn before
// a target has synced.
func (s *watchOutput) draw(ctx context.Context) error {
	answers, err := s.current(ctx)
	if err != nil || len(answers) == 0 {
		return err
	}
	if s.live != nil {
		return s.live.draw(ctx, answers, s.several, s.contextAt)
	}
	tables := make([]fleet.ContextTable, len(answers))
	for i, a := range answers {
		tables[i] = a.table
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.printGroupRows(answers[0].cfg, tables)
}

// printGroupRows prints the rows of tables merged that differ from those
// printed last (all of them and the header the first time, header unless
// --no-headers); s.mu is held.
func (s *watchOutput) printGroupRows(cfg queryPrintConfig, tables []fleet.ContextTable) error {
	merged, err := cfg.mergeGroups(tables, s.contextAt)
	if err != nil {
		return err
	}
	keyCells := cfg.keyColumns(merged)
	header, rows := merged.Strings()
	if s.groupRows == nil {
		s.groupRows = map[string][]string{}
		if !cfg.noHeaders {
			s.writeCells(header)
		}
	}
	seen := map[string]bool{}
	for _, row := range rows {
		key := strings.Join(row[:min(keyCells, len(row))], "\x00")
		seen[key] = true
		if old, ok := s.groupRows[key]; ok && slices.Equal(old, row) {
			continue
		}
		s.groupRows[key] = row
		s.writeCells(row)
	}
	var gone []string
	for key := range s.groupRows {
		if !seen[key] {
			gone = append(gone, key)
		}
	}
	slices.Sort(gone)
	for _, key := range gone {
		row := slices.Clone(s.groupRows[key])
		for i := keyCells; i < len(row); i++ {
			row[i] = "0"
		}
		delete(s.groupRows, key)
		s.writeCells(row)
	}
	return s.flush()
}
