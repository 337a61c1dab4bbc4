package query

import (
	"context"
	"io"
	"slices"

	"github.com/kubectl-informer/kubectl-informer/pkg/aggregate"
	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/fleet"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/live"
)

// groupWatch is the answer of query -w --group-by or --sum: one table of
// groups kept by every target's events (live.Groups), printed as the
// one-shot query prints it (sorted and cut by --sort-by and --top), then
// redrawn in place on a terminal, or off one followed by the rows of the
// groups that changed.
type groupWatch struct {
	groups *live.Groups
	o      *QueryOptions
}

// newGroupWatch returns the table of groups of o's query -w, printed to
// o.Out; answered runs before it is first printed.
func (o *QueryOptions) newGroupWatch(answered func()) groupWatch {
	keys := o.print.groupKeys()
	if at := o.split.At; at >= 0 {
		keys = slices.Insert(keys, min(at, len(keys)), fleet.ContextIndex)
	}
	cfg := o.print
	return groupWatch{o: o, groups: live.NewGroups(o.Out, live.GroupsConfig{
		Keys: keys, Measures: cfg.measures, Contexts: o.set.Names(), Objects: o.typeArg,
		NoHeaders: cfg.noHeaders, Empty: cfg.printNotFound, BeforeDraw: answered,
		Shape: func(t *aggregate.Table, measures []aggregate.Measure) error {
			cfg.measures = measures
			shaped, err := cfg.mergeGroups([]fleet.ContextTable{{Table: *t}}, -1)
			*t = shaped
			return err
		},
	})}
}

func (g groupWatch) follow(ctx context.Context, t *queryTarget, w *running, warnings io.Writer) error {
	feed := g.groups.Feed(t.name, w.cfg.groupBy, g.counts(w))
	if err := feed.Seed(ctx, &t.EngineOptions, w.types, t.errOut); err != nil {
		return err
	}
	return feed.Follow(ctx, &t.EngineOptions, w.types, w.queue, warnings)
}

// counts says which objects of w the table counts: those in the query of
// --index and --filter. One --group-by index without --sum, --index or
// --filter counts, as the one-shot query does from the index itself, only
// the objects that have a value of it.
func (g groupWatch) counts(w *running) func(*engine.Type, interface{}) (bool, error) {
	countsValues := len(w.cfg.groupBy) == 1 && len(w.cfg.measures) == 0 && len(g.o.selectors) == 0 && w.filter == nil
	return func(_ *engine.Type, obj interface{}) (bool, error) {
		if countsValues && len(index.Values(w.cfg.groupBy[0], obj)) == 0 {
			return false, nil
		}
		return w.changes.Cfg.Matches(obj), engines.ExprFatal(w.changes.Guards)
	}
}

func (g groupWatch) ended(name string, err error) { g.groups.Ended(name, err) }

func (g groupWatch) print(_ context.Context, done <-chan struct{}) error { return g.groups.Print(done) }

func (g groupWatch) notes() io.Writer { return g.groups.Notes() }
