package query

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/kubectl-informer/kubectl-informer/pkg/aggregate"
	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/expr"
	"github.com/kubectl-informer/kubectl-informer/pkg/fleet"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
	pluginprogress "github.com/kubectl-informer/kubectl-informer/pkg/plugin/progress"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/targets"
)

// This file holds a query's targets: the contexts it asks (one, or a
// selection: --context a,b, --context 'prod-*', --all-contexts, or a query
// that names the built-in context index), each connected on its own (its
// own ConfigFlags: server, credentials, impersonation and default
// namespace of that context) to the question completed once, answered in
// parallel and printed as one (answerTargets).

// completeTargets selects the query's targets (targets.Flags.Targets): a
// set of one, or the contexts --context or --all-contexts selects (the
// current one when only the context index is named), kept where they pass
// the context selectors.
func (o *QueryOptions) completeTargets() error {
	several := o.split.Several()
	if several || (o.contextFlags != nil && targets.Selected(o.ConfigFlags, o.contextFlags.AllContexts)) {
		for _, s := range o.Indexers {
			if name, _, _ := strings.Cut(s, "="); strings.TrimSpace(name) == fleet.ContextIndex {
				return fmt.Errorf("--indexer %s: context is the built-in index of a query's contexts; choose another name", s)
			}
		}
	}
	set, err := o.contextFlags.Targets(o.ConfigFlags, several)
	set.Keep(o.split.Matches)
	o.set = set
	return err
}

// answerTargets answers the query in each of its targets (answer), in
// parallel, and prints the answers as one (answerPrinter). With one target
// (not set.Several) its error is the command's, and its stderr is the
// command's as it is written. With several, each failed context is named
// on stderr once, each context's stderr lines follow, prefixed with its
// name, once every context is answered; the others' answers are printed,
// and the error is a *targets.PartialError when any failed.
func (o *QueryOptions) answerTargets(ctx context.Context) error {
	set := o.set
	results := targets.Answer(ctx, set, pluginprogress.Of(o.ErrOut, set), set.Deadline(o.SyncTimeout), o.ErrOut,
		func(ctx context.Context, t targets.Target, errOut io.Writer) (*targetAnswer, error) {
			a, err := o.answer(ctx, t, errOut, pluginprogress.FromContext(ctx, o.Config.Progress))
			if err != nil {
				a.shutdown()
			}
			return a, err
		})
	answers, failures, err := targets.Answers(set, results, o.ErrOut)
	defer func() {
		for _, a := range answers {
			a.shutdown()
		}
	}()
	if err != nil {
		return err
	}
	if len(answers) > 0 || set.Total() == 0 {
		p := answerPrinter{answers: answers, several: set.Several, contextAt: o.split.At, out: o.Out, errOut: o.ErrOut}
		if err := p.print(); err != nil {
			return err
		}
	}
	return failures.Err()
}

// answer answers the query in target tg, its diagnostics going to errOut:
// from its warm cache when one runs (collectWarm), with the usage samples
// the cache keeps, otherwise read here (collect), usage too (readUsage); a
// grouped answer is grouped at once (groupNow).
func (o *QueryOptions) answer(ctx context.Context, tg targets.Target, errOut io.Writer, progress func(engine.Progress)) (*targetAnswer, error) {
	a := &targetAnswer{name: tg.Name, several: o.set.Several, shutdown: func() {}}
	t, err := o.target(tg, errOut, progress)
	if err != nil {
		return a, err
	}
	warm, err := t.collectWarm(ctx, a)
	if !warm && o.readsUsage() {
		// Usage is read here, from the metrics API, with the objects.
		err = t.readUsage(ctx)
	}
	if !warm && err == nil {
		err = t.collect(ctx, a)
	}
	if err == nil && o.grouped() {
		a.groupNow()
	}
	return a, err
}

// queryTarget is the query asked of one target: the question completed
// once (q, which it does not change), and what is the target's own: the
// engine options connected to it (namespaces, source, server, the engine
// config with its namespaces and progress), the print config with its
// namespaces, and its stderr.
type queryTarget struct {
	q *QueryOptions
	engines.EngineOptions
	name   string
	print  queryPrintConfig
	errOut io.Writer
	// indexDefs and filter are the question's, with expression guards of
	// the target's own (index.Own), so that each target counts and
	// reports its own expression failures.
	indexDefs []index.Definition
	filter    *expr.Guard
}

// target connects o's question to tg (engines.EngineOptions.Connect: its
// namespaces, its source, its warm cache), its diagnostics going to errOut
// and its engine's progress to progress. A table's ages count from the
// target's instant (engines.EngineOptions.Ages), said on errOut when it
// is not now.
func (o *QueryOptions) target(tg targets.Target, errOut io.Writer, progress func(engine.Progress)) (*queryTarget, error) {
	t := &queryTarget{q: o, EngineOptions: o.EngineOptions, name: tg.Name, errOut: errOut}
	t.Notes, t.Collects = errOut, !o.watching()
	if err := t.Connect(tg.ConfigFlags); err != nil {
		return nil, err
	}
	t.Config.Progress = progress
	t.indexDefs, t.filter = index.Own(o.indexDefs), engines.OwnGuard(o.filterGuard)
	t.Config.Indexes = engines.PlainIndexes(t.indexDefs)
	if o.Config.Reduce != nil {
		plan := aggregate.RecordPlan(t.indexDefs, o.print.measures)
		t.Config.Indexes, t.Config.Reduce = o.lookedUp(plan.Definitions()), plan.Transform
	}
	t.print = o.print
	t.print.namespaces, t.print.source = t.Namespaces, t.Source
	if t.print.printsAges() {
		var err error
		if t.print.ages, err = t.Ages(errOut); err != nil {
			t.ReadDirectly() // closes the warm cache's connection
			return nil, err
		}
	}
	return t, nil
}
