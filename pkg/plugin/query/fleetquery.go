package query

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-informer/kubectl-informer/pkg/fleet"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/cmdutil"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
	pluginprogress "github.com/kubectl-informer/kubectl-informer/pkg/plugin/progress"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/targets"
)

// This file runs a query across several kubeconfig contexts: --context a,b,
// --context 'prod-*', --all-contexts, or a query that names the built-in
// context index. Each context is answered by a QueryOptions of its own (its
// own ConfigFlags: server, credentials, impersonation and default namespace
// of that context), in parallel, through answerTargets, which answers one
// context too; -w and --watch-only stream the contexts' rows
// (runFleetQueryWatch).

// fleetQueryRunE returns query's RunE: a fleet query when contexts are
// chosen the fleet way or the context index is named, next otherwise.
func fleetQueryRunE(o *QueryOptions, f *targets.Flags, next func(*cobra.Command, []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if !f.AllContexts && !targets.IsSelection(targets.ContextFlag(o.ConfigFlags)) && !namesContextIndex(o) {
			return next(cmd, args)
		}
		return runFleetQuery(cmd, args, o, f)
	}
}

// namesContextIndex reports whether --index or --group-by names the
// built-in context index.
func namesContextIndex(o *QueryOptions) bool {
	if slices.Contains(o.GroupBy, fleet.ContextIndex) {
		return true
	}
	for _, s := range o.IndexSelectors {
		if sel, err := index.ParseSelector("--index", s); err == nil && sel.Name == fleet.ContextIndex {
			return true
		}
	}
	return false
}

// fleetQuery is a query split into what each context answers and what the
// merge does: the context selectors and where the context column goes.
type fleetQuery struct {
	// contextSelectors are the --index selectors of the context index.
	contextSelectors []index.Selector
	// indexSelectors and groupBy are the other --index and --group-by.
	indexSelectors []string
	groupBy        []string
	// contextAt is the position of context among the --group-by keys, -1
	// when it is not one.
	contextAt int
	// grouped is set for --group-by or --sum, context included.
	grouped bool
}

// wholeQuery is the split of a query of one target: every --index and
// --group-by is the target's.
func wholeQuery(o *QueryOptions) fleetQuery {
	return fleetQuery{indexSelectors: o.IndexSelectors, groupBy: o.GroupBy, contextAt: -1, grouped: o.grouped()}
}

// splitFleetQuery takes the context index out of o's --index and
// --group-by.
func splitFleetQuery(o *QueryOptions) (fleetQuery, error) {
	q := fleetQuery{contextAt: -1, grouped: len(o.GroupBy) > 0 || len(o.Sums) > 0}
	for _, s := range o.IndexSelectors {
		sel, err := index.ParseSelector("--index", s)
		if err != nil {
			return q, err
		}
		if sel.Name == fleet.ContextIndex {
			q.contextSelectors = append(q.contextSelectors, sel)
			continue
		}
		q.indexSelectors = append(q.indexSelectors, s)
	}
	for _, g := range o.GroupBy {
		if g == fleet.ContextIndex {
			if q.contextAt >= 0 {
				return q, fmt.Errorf("--group-by: context is named twice")
			}
			q.contextAt = len(q.groupBy)
			continue
		}
		q.groupBy = append(q.groupBy, g)
	}
	for _, s := range o.Indexers {
		if name, _, _ := strings.Cut(s, "="); strings.TrimSpace(name) == fleet.ContextIndex {
			return q, fmt.Errorf("--indexer %s: context is the built-in index of a query's contexts; choose another name", s)
		}
	}
	return q, nil
}

// runFleetQuery answers the query in each context of a selection: o's
// flags completed for each context on its own (answerContext), then
// answered and printed as one (answerTargets).
func runFleetQuery(cmd *cobra.Command, args []string, o *QueryOptions, f *targets.Flags) error {
	if fl := cmd.Flags().Lookup("from"); fl != nil && fl.Changed {
		return fmt.Errorf("--from reads files, not contexts: it cannot be combined with --all-contexts, several contexts or the context index")
	}
	q, err := splitFleetQuery(o)
	if err != nil {
		return err
	}
	if q.grouped && o.ShowEvents {
		return fmt.Errorf("--show-events adds columns to a table of objects; it cannot be used with --group-by or --sum")
	}
	if q.grouped && o.Output != "" && o.Output != "wide" {
		return fmt.Errorf("--group-by and --sum print a table of groups; they cannot be combined with -o %s", o.Output)
	}
	set, err := targets.New(o.ConfigFlags, f.AllContexts, true)
	if err != nil {
		return err
	}
	set.Keep(func(name string) bool {
		for _, s := range q.contextSelectors {
			if !s.Matches([]string{name}) {
				return false
			}
		}
		return true
	})
	if o.watching() {
		return runFleetQueryWatch(cmd, args, o, q, set)
	}
	ctx, stop := cmdutil.Interruptible(cmd.Context())
	defer stop()
	return o.answerTargets(ctx, set, q.contextAt, func(ctx context.Context, t targets.Target) (*targetAnswer, error) {
		return answerContext(ctx, cmd, args, o, q, t)
	})
}

// answerTargets answers the query in each target of set (answer), in
// parallel, and prints the answers as one (answerPrinter). With one target
// (not set.Several) its error is the command's, and its stderr is the
// command's as it is written. With several, each failed context is named
// on stderr once, each context's stderr lines follow, prefixed with its
// name, once every context is answered; the others' answers are printed,
// and the error is a *targets.PartialError when any failed. contextAt is
// where a context key column goes among the --group-by keys, -1 for none.
func (o *QueryOptions) answerTargets(ctx context.Context, set targets.Set, contextAt int, answer func(ctx context.Context, t targets.Target) (*targetAnswer, error)) error {
	progress, deadline := pluginprogress.Of(o.ErrOut, set), set.Deadline(o.SyncTimeout)
	results := targets.Run(ctx, set.Targets, deadline, func(ctx context.Context, t targets.Target) (*targetAnswer, error) {
		if progress != nil {
			ctx = pluginprogress.WithTargets(ctx, progress.EngineProgress(t.Name))
		}
		a, err := answer(ctx, t)
		progress.Done(t.Name, err)
		return a, err
	})
	progress.End()
	defer func() {
		for _, r := range results {
			if r.Value != nil {
				r.Value.shutdown()
			}
		}
	}()
	failures := set.Failures(o.ErrOut)
	var answers []*targetAnswer
	for _, r := range results {
		if r.Value != nil {
			r.Value.flushStderr(o.ErrOut)
		}
		switch {
		case r.Err != nil && !set.Several:
			return r.Err
		case r.Err != nil:
			failures.Add(r.Target.Name, r.Err)
		default:
			answers = append(answers, r.Value)
		}
	}
	if len(answers) > 0 || set.Total() == 0 {
		p := answerPrinter{answers: answers, several: set.Several, contextAt: contextAt, out: o.Out, errOut: o.ErrOut}
		if err := p.print(ctx); err != nil {
			return err
		}
	}
	return failures.Err()
}

// answerContext answers the query in context name: o's flags with the
// context index taken out, its own ConfigFlags, and stderr kept to be
// printed once the answers are in.
func answerContext(ctx context.Context, cmd *cobra.Command, args []string, o *QueryOptions, q fleetQuery, t targets.Target) (a *targetAnswer, err error) {
	stderr := &cmdutil.LockedWriter{W: &bytes.Buffer{}}
	co := *o
	co.ConfigFlags = t.ConfigFlags
	co.Engines = engines.DirectEngines{}
	co.IOStreams = genericiooptions.IOStreams{In: o.In, Out: io.Discard, ErrOut: stderr}
	co.IndexSelectors, co.GroupBy = q.indexSelectors, q.groupBy
	a = &targetAnswer{name: t.Name, several: true, stderr: stderr, shutdown: func() {}}
	if err := co.Complete(cmd, args); err != nil {
		return a, err
	}
	if err := co.Validate(); err != nil {
		return a, err
	}
	if warm, err := co.collectWarm(ctx, q, a); warm {
		if err == nil && q.grouped {
			a.groupNow()
		}
		return a, err
	}
	co.Config.Progress = pluginprogress.FromContext(ctx, co.Config.Progress)
	if err := co.collect(ctx, a); err != nil {
		return a, err
	}
	if q.grouped {
		a.groupNow()
	}
	return a, nil
}
