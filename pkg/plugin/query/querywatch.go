package query

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/printers"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/cmdutil"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/watch"
)

// This file holds query -w/--watch: the query's answer kept current from
// its informers after sync, instead of printed once. On a terminal, a table
// (objects, custom columns, or a grouped table) is redrawn in place
// (runLive); otherwise, and for -o json, yaml, name and templates, each
// change is printed as kubectl get -w prints it (runRows).

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
	// fleetRows, in one context of a fleet query -w, takes the context's
	// rows into the shared stream (fleetRows).
	fleetRows *fleetRowsContext
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
	return nil
}

// redraws reports whether the answer is redrawn in place: -w, a table
// format (or groups), and a terminal.
func (o *QueryOptions) redraws() bool {
	return o.Watch && !o.WatchOnly && (o.grouped() || o.print.out.IsTable()) && printers.IsTerminal(o.Out)
}

// watchConfig returns the engine config of a long-running query: query's,
// with what watch's has besides: a watch the user may make, plain watch
// streams, and watch errors reported on stderr, or, for a table redrawn in
// place, to notes, which the frame shows.
func (o *QueryOptions) watchConfig(notes *lastLine) engine.Config {
	config := o.Config
	config.RequireWatch = true
	config.PlainWatchStreams = true
	var warnings io.Writer = o.ErrOut
	if o.redraws() {
		// Written over the frame, they would move it: the frame shows
		// the last one instead.
		warnings = notes
	}
	reporter := watch.NewWatchErrorReporter(warnings)
	config.OnWatchError = reporter.Report
	config.OnWatchResumed = reporter.Resumed
	return config
}

// runWatch is Run for -w and --watch-only: it starts the informers with a
// queue of their events, waits for sync, prints the answer and keeps it
// current until Ctrl-C (then cmdutil.ErrInterrupted) or the engine fails.
func (o *QueryOptions) runWatch(ctx context.Context) error {
	switch o.Engines.(type) {
	case engines.DirectEngines, engines.WarmEngines:
	default:
		return fmt.Errorf("--watch follows an API server's changes; --from files do not change (drop --watch)")
	}
	notes := &lastLine{}
	signals, stop := cmdutil.Interruptible(ctx)
	defer stop()
	ctx = signals

	mappings, err := o.Resolve(o.typeArg)
	if err != nil {
		return err
	}
	if err := engines.CheckMeasureTypes(o.print.measures, mappings); err != nil {
		return err
	}
	queue := engine.NewQueue(watch.QueueLimit)
	eng, err := o.Engines.Start(ctx, o.Source, engines.EngineRequest{
		Mappings: mappings, Config: o.watchConfig(notes), Queue: queue, Indexes: o.indexDefs, ErrOut: o.ErrOut,
		Pushdown: o.Pushdown,
	})
	if err != nil {
		return interrupted(ctx, err)
	}
	defer eng.Shutdown()
	related, err := engine.StartRelations(ctx, eng.Types(), o.indexDefs, engine.RelationsConfig{
		Related: o.Engines.Related(o.Source), Namespaces: o.Namespaces, SyncTimeout: o.SyncTimeout, Selectors: o.selectors,
		OnRelated: func(t *engine.Type, cause string, changes []engine.RelationChange) {
			for _, c := range changes {
				queue.Push(&engine.Event{Type: engine.Modified, Resource: t, Old: c.Object, New: c.Object, Key: c.Key, Related: c.Changes, Cause: cause})
			}
		},
	})
	if err != nil {
		return interrupted(ctx, err)
	}
	defer related.Shutdown()
	engines.WarnUnreadable(o.ErrOut, related.Unreadable())
	indexDefs := related.Definitions()
	guards := engines.ExprGuards(indexDefs, o.filterGuard)
	if err := engines.ExprFatal(guards); err != nil {
		return err
	}
	defer engines.NewExprReporter(guards).Report(o.ErrOut)

	// The engine failing for good (a watch no longer allowed) ends the
	// watch, with its error.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-eng.Failed():
			cancel()
		case <-ctx.Done():
		}
	}()
	w := &queryWatch{
		o:       o,
		types:   related.Types(),
		printer: queryPrinter{cfg: o.print.bind(indexDefs), out: o.Out, errOut: o.ErrOut, source: o.Source},
		changes: o.changeClassifier(indexDefs),
		notes:   notes,
	}
	w.changes.Guards = guards
	sigpipe := make(chan os.Signal, 1)
	signal.Notify(sigpipe, syscall.SIGPIPE)
	defer signal.Stop(sigpipe)
	switch {
	case o.fleetRows != nil:
		err = o.fleetRows.run(ctx, w, queue)
	case o.redraws():
		err = w.runLive(ctx, queue)
	default:
		err = w.runRows(ctx, queue)
	}
	if failed := eng.Err(); failed != nil {
		return failed
	}
	if err != nil {
		return watch.QuietPipe(err)
	}
	return interrupted(signals, nil)
}

// interrupted returns cmdutil.ErrInterrupted when ctx was ended by a signal, and
// err otherwise.
func interrupted(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return cmdutil.ErrInterrupted
	}
	return err
}

// queryWatch is a query kept current: its types, synced and bound to their
// relations, the printer of its answer, and what decides which events
// change it.
type queryWatch struct {
	o       *QueryOptions
	types   []*engine.Type
	printer queryPrinter
	changes *watch.EventPrinter
	// notes holds the last warning of a table redrawn in place.
	notes *lastLine
}

// changeClassifier returns what tells which events change the query's
// answer, and as what (watch.EventPrinter.Classify): every event of the types, or, with
// --index and --filter, those of objects in the query, an object entering
// it as ADDED and leaving it as DELETED. Events of the initial list are
// not changes: the answer printed first holds them.
func (o *QueryOptions) changeClassifier(bound []index.Definition) *watch.EventPrinter {
	cfg := watch.WatchPrintConfig{Filter: o.filterGuard}
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
