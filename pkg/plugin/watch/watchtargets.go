package watch

import (
	"context"
	"io"
	"strings"
	"sync"

	"k8s.io/cli-runtime/pkg/printers"

	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/cmdutil"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/live"
	pluginprogress "github.com/kubectl-informer/kubectl-informer/pkg/plugin/progress"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/targets"
)

// This file runs the watch of each target of its set, the flags
// completed once and a targetWatch per target, in parallel, their events
// on stdout as they come. One target (no selection) writes as a watch of
// one cluster does. Several targets (--context a,b, a pattern,
// --all-contexts, the context index in --where or --group-by) each have
// their own ConfigFlags, and each event names its context (the printer's
// Context). A context that fails to start, or whose watch fails, is named
// on stderr with its reason once; the others go on, and the exit code is
// 1. Other stderr lines of a context (sync, warnings) are prefixed
// "context NAME: ". Each target's watch reads the warm cache of its
// identity when one runs.
//
// --until and --until-all are judged in each context as in a watch of that
// context alone; a context's watch ends once its condition holds there, and
// the watch ends when every context has ended (met, failed or interrupted).
// --max-events counts the events of the merged stream. --where context…
// chooses contexts (the built-in context index); the other --where
// selectors apply in each context. --group-by and --sum keep one table
// merged over the contexts (live.Groups); one target's table is a merge
// of one.

// Run watches each target of the set and returns the error of the one
// target, or a *targets.PartialError when some of several failed.
func (o *WatchOptions) Run(ctx context.Context) error {
	ctx, stop := cmdutil.Interruptible(ctx)
	defer stop()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var mu sync.Mutex // one line at a time on stdout and on stderr
	progress := pluginprogress.Of(o.ErrOut, o.set).UntilWatching()
	defer progress.End()
	var groups *live.Groups
	if o.grouped() {
		keys := make([]string, len(o.GroupBy))
		for i, g := range o.GroupBy {
			keys[i] = strings.TrimSpace(g)
		}
		groups = live.NewGroups(o.Out, live.GroupsConfig{
			Keys: keys, Measures: o.measures, Contexts: o.set.Names(), Objects: strings.Join(o.typeArgs, ","),
			Lines: true, Timestamps: o.Timestamps, BeforeDraw: progress.End,
		})
	}
	var budget *eventBudget
	if o.MaxEvents > 0 {
		budget = &eventBudget{left: o.MaxEvents, spent: cancel}
	}
	watch := o.targetWatcher(&mu, progress, groups, budget)
	watchAll := func() error { return targets.Watch(ctx, o.set, progress, &mu, o.ErrOut, watch) }
	if groups == nil {
		return watchAll()
	}
	return QuietPipe(groups.Run(watchAll))
}

// targetWatcher returns the watch of one target of the set, connected to
// it (to its warm cache's informers when one runs), with its part of
// groups and budget when set, writing its diagnostics to the errOut it
// gets (targets.Watch). Of several targets, its events name it, and its
// lines on stdout are written whole under mu, above progress on the
// terminal it is drawn on.
func (o *WatchOptions) targetWatcher(mu *sync.Mutex, progress *pluginprogress.Targets, groups *live.Groups, budget *eventBudget) func(context.Context, targets.Target, io.Writer) error {
	stdoutAbove := progress.Above
	if !printers.IsTerminal(o.Out) {
		stdoutAbove = nil
	}
	return func(ctx context.Context, t targets.Target, errOut io.Writer) error {
		var stdout io.Writer = o.Out
		flush := func() {}
		if o.set.Several {
			out := &targets.LinePrefixer{Mu: mu, W: o.Out, Above: stdoutAbove}
			stdout, flush = out, out.Flush
		}
		w := o.target(stdout, errOut)
		w.print.budget, w.name, w.groups = budget, t.Name, groups
		if notes := groups.Notes(); notes != nil {
			// A table redrawn in place shows the last warning in its
			// frame: written over it, they would move it.
			w.eo.Config, w.warnings = Watching(w.eo.Config, notes), notes
		}
		if o.set.Several {
			w.print.Context = t.Name
		}
		w.eo.Config.Progress = pluginprogress.FromContext(ctx, w.eo.Config.Progress)
		w.eo.Notes = w.errOut
		err := w.eo.Connect(t.ConfigFlags)
		if err == nil {
			err = w.run(ctx)
		}
		if groups != nil {
			groups.Ended(t.Name, err)
		}
		flush()
		return err
	}
}

// eventBudget is --max-events across the watches of the targets: each
// target's printer holds it while it prints an event, so the merged
// stream has exactly that many events; when they are spent, spent ends
// every target's watch.
type eventBudget struct {
	mu    sync.Mutex
	left  int
	spent func()
}

// lock holds the budget for one event; false when it is spent (not held).
func (b *eventBudget) lock() bool {
	b.mu.Lock()
	if b.left <= 0 {
		b.mu.Unlock()
		return false
	}
	return true
}

// unlock releases the budget, counting an event if one was printed.
func (b *eventBudget) unlock(printed bool) {
	if printed {
		b.left--
		if b.left == 0 {
			b.spent()
		}
	}
	b.mu.Unlock()
}
