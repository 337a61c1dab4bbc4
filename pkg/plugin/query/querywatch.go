package query

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/printers"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/expr"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/cmdutil"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
	pluginprogress "github.com/kubectl-informer/kubectl-informer/pkg/plugin/progress"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/targets"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/watch"
)

// This file holds query -w/--watch: the query's answer kept current from
// its informers after sync, instead of printed once. On a terminal, the
// table (objects, custom columns) of one target or several is redrawn in
// place; otherwise (--watch-only, -o json, yaml, name and templates, off a
// terminal) each change is printed as kubectl get -w prints it
// (watchOutput). --group-by and --sum keep one table of groups
// (groupWatch), redrawn on a terminal, otherwise followed by the rows of
// the groups that changed.

// queryWatchFlags are query's flags of kubectl get -w.
type queryWatchFlags struct {
	// Watch is -w/--watch: print the answer, then keep it current.
	Watch bool
	// WatchOnly is --watch-only: print only the changes, not the answer
	// first; a row per change, on a terminal too.
	WatchOnly bool
	// OutputWatchEvents is --output-watch-events: an EVENT column (ADDED,
	// MODIFIED, DELETED) before each row; -o json and yaml print watch
	// events ({"type", "object"}).
	OutputWatchEvents bool
}

// addWatchFlags adds -w, --watch-only and --output-watch-events to query.
func (o *QueryOptions) addWatchFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.BoolVarP(&o.Watch, "watch", "w", false, "After printing the answer, keep it current from the informers until Ctrl-C: on a terminal the table is redrawn in place (at most four times a second, fitted to the screen); otherwise each change is printed as a row, as kubectl get -w prints it (-o json, yaml and name: each changed object).")
	f.BoolVar(&o.WatchOnly, "watch-only", false, "Like --watch, but print only the changes, as rows (or objects), without the answer first.")
	f.BoolVar(&o.OutputWatchEvents, "output-watch-events", false, "With --watch or --watch-only, print the event type of each change: an EVENT column, or watch events for -o json and yaml.")
}

// watching reports whether the query is kept current (-w or --watch-only).
func (o *QueryOptions) watching() bool { return o.Watch || o.WatchOnly }

// validateWatch checks -w and its flags without I/O.
func (o *QueryOptions) validateWatch() error {
	if o.OutputWatchEvents && !o.watching() {
		return fmt.Errorf("--output-watch-events needs --watch or --watch-only")
	}
	if o.WatchOnly && o.grouped() {
		return fmt.Errorf("--watch-only prints changed objects; it cannot be combined with --group-by or --sum (use -w)")
	}
	if o.OutputWatchEvents && o.grouped() {
		return fmt.Errorf("--output-watch-events prints changed objects; it cannot be combined with --group-by or --sum")
	}
	if o.watching() {
		// A grouped table re-measures on each new sample (live.Feed).
		return engines.RefuseWatchedUsage(o.filterGuard)
	}
	return nil
}

// redraws reports whether the answer is redrawn in place: -w, a table
// format (or groups), and a terminal.
func (o *QueryOptions) redraws() bool {
	return o.Watch && !o.WatchOnly && (o.grouped() || o.print.out.IsTable()) && printers.IsTerminal(o.Out)
}

// watchConfig returns the engine config of a long-running query: the
// target's, with what watch's has besides: a watch the user may make, plain
// watch streams, and watch errors reported on the target's stderr, or, for
// a table redrawn in place, to notes, which the frame shows.
func (t *queryTarget) watchConfig(notes io.Writer) engine.Config {
	if notes == nil {
		notes = t.errOut
	}
	return watch.Watching(t.Config, notes)
}

// watchSink is where the targets of a query -w keep their answers: rows or
// a table of objects (watchOutput), or a table of groups (groupWatch).
type watchSink interface {
	// follow keeps w, target t's answer, current until ctx ends, its
	// warnings written to warnings.
	follow(ctx context.Context, t *queryTarget, w *running, warnings io.Writer) error
	// ended records that target name's watch ended with err.
	ended(name string, err error)
	// print prints the answer once every target has synced or ended,
	// then as it changes, until done is closed or ctx ends.
	print(ctx context.Context, done <-chan struct{}) error
	// notes is where the targets' warnings go on a terminal, nil off one.
	notes() io.Writer
}

// watchTarget keeps the answer of target tg current in sink: its engine
// and relations started and synced with a queue of events (start), then
// sink follows it until ctx ends (then cmdutil.ErrInterrupted) or the
// engine fails for good (a watch no longer allowed: its error). Its
// diagnostics go to errOut (targets.Watch), its engine's progress where
// ctx says; a live table shows the watch's warnings in its frame.
func (o *QueryOptions) watchTarget(ctx context.Context, tg targets.Target, errOut io.Writer, sink watchSink) error {
	t, err := o.target(tg, errOut, pluginprogress.FromContext(ctx, o.Config.Progress))
	if err != nil {
		return err
	}
	notes := sink.notes()
	w, err := t.start(ctx, engine.NewQueue(watch.QueueLimit), notes)
	if err != nil {
		return interrupted(ctx, err)
	}
	defer w.stop()
	defer w.report()
	watching, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-w.eng.Failed():
			cancel()
		case <-watching.Done():
		}
	}()
	if notes == nil {
		notes = errOut
	}
	err = sink.follow(watching, t, w, notes)
	if failed := w.eng.Err(); failed != nil {
		return failed
	}
	if err != nil {
		return watch.QuietPipe(err)
	}
	return interrupted(ctx, nil)
}

// interrupted returns cmdutil.ErrInterrupted when ctx was ended by a signal, and
// err otherwise.
func interrupted(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return cmdutil.ErrInterrupted
	}
	return err
}

// changeClassifier returns what tells which events change the query's
// answer, and as what (watch.EventPrinter.Classify): every event of the types, or, with
// --index and --filter, those of objects in the query, an object entering
// it as ADDED and leaving it as DELETED. Events of the initial list are
// not changes: the answer printed first holds them.
func (o *QueryOptions) changeClassifier(bound []index.Definition, filter *expr.Guard) *watch.EventPrinter {
	cfg := watch.WatchPrintConfig{Filter: filter}
	for _, sel := range o.selectors {
		for _, def := range bound {
			if def.Name == sel.Name {
				cfg.Where = append(cfg.Where, watch.WhereClause{Sel: sel, Def: def})
				break
			}
		}
	}
	return &watch.EventPrinter{Cfg: cfg}
}
