package watch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/expr"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/live"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/progress"
)

// targetWatch is the watch of one target: the flags completed once (o,
// read only) and what is the target's own: its engine options, connected
// to it, its stdout and stderr, and its part of what the watches of
// several targets share.
type targetWatch struct {
	o  *WatchOptions
	eo engines.EngineOptions
	// out and errOut are the target's stdout and stderr.
	out, errOut io.Writer
	// print is o.print with its colour resolved for out. Its --where
	// clauses and groupDefs read defs, the target's own copy of each
	// index the watch reads, bound to its relations once they start
	// (bind).
	print     WatchPrintConfig
	groupDefs []index.Definition
	defs      []index.Definition
	// until is o.until's program with the target's own failures, as
	// print.Filter is o.print.Filter's.
	until *expr.Guard
	// name is the target's; groups, for --group-by and --sum, is the one
	// table of the targets; warnings are where the watch's warnings go
	// once it is synced: errOut, or the frame of a table redrawn in place.
	name     string
	groups   *live.Groups
	warnings io.Writer
}

// target returns the watch of a target, its engine options o's until it
// connects, writing to out and errOut: its engine's progress and watch
// errors go to errOut.
func (o *WatchOptions) target(out, errOut io.Writer) *targetWatch {
	w := &targetWatch{o: o, eo: o.EngineOptions, out: out, errOut: errOut, warnings: errOut, print: o.print}
	w.print.Color = o.color.Enabled(out)
	w.print.Filter, w.until = engines.OwnGuard(o.print.Filter), engines.OwnGuard(o.until)
	w.print.Where, w.groupDefs = slices.Clone(o.print.Where), slices.Clone(o.groupDefs)
	// The target's own --indexer guards, as its own --filter's: one copy
	// of each index, whether --where or --group-by names it.
	w.bind(index.Own(o.indexDefs))
	w.eo.Config.Indexes = engines.PlainIndexes(w.defs)
	w.eo.Config = Watching(w.eo.Config, errOut)
	w.eo.Config.Progress = progress.NewProgress(errOut)
	return w
}

// bind makes defs, one of each index the watch reads, the target's: its
// --where clauses and --group-by keys read them, by name.
func (w *targetWatch) bind(defs []index.Definition) {
	w.defs = defs
	byName := make(map[string]index.Definition, len(defs))
	for _, def := range defs {
		byName[def.Name] = def
	}
	for i, c := range w.print.Where {
		w.print.Where[i].Def = byName[c.Def.Name]
	}
	for i, def := range w.groupDefs {
		w.groupDefs[i] = byName[def.Name]
	}
}

// run starts the target's informers, waits for sync and streams events
// (or keeps the grouped table) until ctx ends (Ctrl-C), --timeout,
// --max-events, --until, or the end of a --from source.
func (w *targetWatch) run(ctx context.Context) error {
	mappings, err := w.eo.Resolve(strings.Join(w.o.typeArgs, ","))
	if err != nil {
		return err
	}
	names, err := w.namesByResource(mappings)
	if err != nil {
		return err
	}
	if err := engines.CheckMeasureTypes(w.o.measures, mappings); err != nil {
		return err
	}
	queue := engine.NewQueue(QueueLimit)
	eng, related, err := w.start(ctx, mappings, queue)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return nil
		}
		return err
	}
	defer eng.Shutdown()
	defer related.Shutdown()
	if w.o.grouped() {
		engines.PlayRecording(ctx, w.eo.Engines)
		if err := w.runGroups(ctx, eng, queue, names); err != nil {
			return err
		}
		return engines.ReplayError(w.eo.Engines)
	}
	return w.runEvents(ctx, eng, queue, names)
}

// start starts the engine of mappings, its events pushed to queue, and,
// once the watched types have synced, the relations that the relation
// indexes of --where and --group-by read (engine.StartRelations), binding
// the clauses and keys to them. The clauses are evaluated on each event
// from what the related caches hold then; when a related object's change
// alone changes the relation index values of watched objects, an event
// naming it is pushed to queue for each of them, so they enter or leave
// the query (see EventPrinter.Classify). The caller shuts both down.
func (w *targetWatch) start(ctx context.Context, mappings []*meta.RESTMapping, queue *engine.Queue) (engines.RunningEngine, *engine.Relations, error) {
	selectors := make([]index.Selector, len(w.print.Where))
	for i, c := range w.print.Where {
		selectors[i] = c.Sel
	}
	eng, related, err := w.eo.StartWithRelations(ctx, engines.EngineRequest{
		Mappings: mappings, Config: w.eo.Config, Queue: queue, Indexes: w.defs, ErrOut: w.errOut,
	}, engine.RelationsConfig{Selectors: selectors})
	if err != nil {
		return nil, nil, err
	}
	w.bind(related.Definitions())
	return eng, related, nil
}

// runEvents prints the events of queue until the watch ends, and says why
// it ended when that is an error or --until was met.
func (w *targetWatch) runEvents(ctx context.Context, eng engines.RunningEngine, queue *engine.Queue, names map[string]map[string]bool) error {
	o := w.o
	p := NewEventPrinter(w.print, names, w.out, w.errOut)
	p.RecordedAt = engines.RecordedTimes(w.eo.Engines)
	p.Guards = engines.ExprGuards(w.defs, w.print.Filter, w.until)
	p.exprs = engines.NewExprReporter(p.Guards)
	defer p.exprs.Report(w.errOut)
	if w.until != nil {
		p.until = w.newUntil(names)
		p.until.seed(p, eng.Types())
		if err := engines.ExprFatal(p.Guards); err != nil {
			return err
		}
		if p.until.met() {
			fmt.Fprintln(w.errOut, p.until.metMessage()+" already")
			return nil
		}
	}
	if !w.print.Initial {
		engines.PrintSynced(w.errOut, w.eo.Engines, eng.Types())
	}
	p.exprs.Report(w.errOut)

	ctx, cancel := engines.RunContext(ctx, eng, o.Timeout)
	defer cancel()
	engines.PlayRecording(ctx, w.eo.Engines)
	err := p.run(ctx, queue)
	if failed := eng.Err(); failed != nil {
		return failed
	}
	if err != nil {
		return err
	}
	if err := engines.ReplayError(w.eo.Engines); err != nil {
		return err
	}
	switch {
	case p.met:
		fmt.Fprintln(w.errOut, p.until.metMessage())
	case p.until != nil && o.Timeout > 0 && errors.Is(ctx.Err(), context.DeadlineExceeded):
		return p.until.timeoutError(o.Timeout)
	case p.until != nil && engines.FromEnded(eng):
		return p.until.endError()
	}
	return nil
}

// newUntil returns the --until or --until-all condition of the watch of
// names.
func (w *targetWatch) newUntil(names map[string]map[string]bool) *untilCondition {
	mode := untilAny
	switch {
	case w.o.UntilAll != "":
		mode = untilAll
	case len(names) > 0:
		mode = untilNamed
	}
	return &untilCondition{guard: w.until, flag: w.until.Program().Flag(), mode: mode, names: names,
		states: map[string]untilState{}, byEvent: engines.Replays(w.eo.Engines)}
}

// namesByResource re-keys the names given per type argument by resource.
func (w *targetWatch) namesByResource(mappings []*meta.RESTMapping) (map[string]map[string]bool, error) {
	byResource := map[string]map[string]bool{}
	for typeArg, set := range w.o.names {
		resolved, err := w.eo.Resolve(typeArg)
		if err != nil {
			return nil, err
		}
		key := resolved[0].Resource.GroupResource().String()
		if byResource[key] == nil {
			byResource[key] = map[string]bool{}
		}
		for name := range set {
			byResource[key][name] = true
		}
	}
	return byResource, nil
}
