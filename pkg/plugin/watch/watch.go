// Package watch is the watch command: every add, update and delete of the
// named types, each update with a diff of what changed and who changed it,
// for each of its targets (runWatchTargets: one context, or several whose
// events name their context), run in the warm cache of a target's identity
// when one runs; --group-by and --sum keep a live table of groups instead.
package watch

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/printers"

	"github.com/kubectl-informer/kubectl-informer/pkg/aggregate"
	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/expr"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/cmdutil"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/completion"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/progress"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/targets"
)

const watchExample = `  # Every change to deployments and pods in one namespace, with what changed
  kubectl informer watch deploy,pods -n shop

  # One pod, by name, starting with its current state
  kubectl informer watch pod/web-1 --initial

  # Pods entering and leaving a node, as a query
  kubectl informer watch pods -A --where node=worker-1

  # NDJSON with a JSON Patch per update, for scripts
  kubectl informer watch pods -n shop -o json

  # Only what changes under status, as a unified diff
  kubectl informer watch pods -n shop --only status --diff unified

  # Pods entering and leaving a CEL filter: not ready
  kubectl informer watch pods -n shop --filter 'object.status.?conditions.orValue([]).exists(c, c.type == "Ready" && c.status != "True")'

  # Wait for a rollout, printing what changes meanwhile; exit 1 after 5 minutes
  kubectl informer watch deploy/web --timeout 5m --until 'object.metadata.generation == object.status.observedGeneration && object.status.updatedReplicas == object.spec.replicas && object.status.?availableReplicas.orValue(0) == object.spec.replicas'`

// QueueLimit is how many events may be pending before updates to objects
// with a pending event are coalesced.
const QueueLimit = 10000

// WatchOptions are the options of kubectl informer watch.
type WatchOptions struct {
	engines.EngineOptions

	Where            []string
	Initial          bool
	Diff             string
	Ignore           []string
	Only             []string
	Output           string
	Timestamps       bool
	Color            string
	Timeout          time.Duration
	MaxEvents        int
	ShowSecretValues bool
	Filter           string
	Until            string
	UntilAll         string
	// GroupBy and Sums (--group-by, --sum) make the watch a live grouped
	// table instead of a stream of events (runGroups).
	GroupBy []string
	Sums    []string

	genericiooptions.IOStreams

	// Set by Complete.
	typeArgs  []string
	names     map[string]map[string]bool // type argument → names; empty means all
	print     WatchPrintConfig
	until     *expr.Guard // --until or --until-all
	groupDefs []index.Definition
	measures  []aggregate.Measure
	// fleetGroups, in one context of a fleet watch --group-by/--sum,
	// feeds the fleet's table instead of printing one.
	fleetGroups *fleetGroupContext
}

// NewWatchOptions returns WatchOptions with defaults.
func NewWatchOptions(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *WatchOptions {
	return &WatchOptions{
		EngineOptions: engines.EngineOptions{ConfigFlags: configFlags, Engines: engines.DirectEngines{}},
		Diff:          "compact",
		Output:        "text",
		Color:         "auto",
		IOStreams:     streams,
	}
}

// NewCmdWatch returns the watch command.
func NewCmdWatch(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := NewWatchOptions(configFlags, streams)
	cmd := &cobra.Command{
		Use:     "watch TYPE[,TYPE...] [NAME ...] | TYPE/NAME ... [flags]",
		Short:   "Stream adds, updates and deletes with a diff of what changed",
		Long:    "Start shared informers for the named types, wait until every cache has synced, then print every add, update and delete, each update with a diff of exactly what changed. Resyncs are never printed; changes missed while a watch was broken are printed after the relist.",
		Example: watchExample,
	}
	cmd.RunE = watchTargetsRunE(o, targets.AddFlags(cmd))
	o.EngineOptions.AddFlags(cmd)
	o.EngineOptions.AddCacheFlags(cmd)
	// Files hold no changes: a watch prints their objects first (as
	// --initial does; a grouped watch, its table).
	engines.AddFromFlags(cmd, o, &o.EngineOptions, func() {
		if !o.grouped() {
			o.Initial = true
		}
	})
	f := cmd.Flags()
	f.StringArrayVar(&o.Where, "where", nil, "Watch a query: only objects whose index NAME has VALUE, --where NAME=VALUE (repeatable, ANDed). Objects entering it are ADDED, leaving it DELETED.")
	f.BoolVar(&o.Initial, "initial", false, "First print every object already in the cache as ADDED.")
	f.StringVar(&o.Diff, "diff", o.Diff, "How updates show what changed: compact, unified or none.")
	f.StringArrayVar(&o.Ignore, "ignore", nil, "Leave changes at or under PATH out of diffs and events (repeatable), e.g. --ignore status.conditions.")
	f.StringArrayVar(&o.Only, "only", nil, "Report only changes at or under PATH (repeatable), e.g. --only spec --only metadata.labels.")
	f.StringVarP(&o.Output, "output", "o", o.Output, "Output format: text, json (one event per line, with a JSON Patch per update), yaml or name.")
	f.BoolVar(&o.Timestamps, "timestamps", false, "Prefix each event with the time it was printed.")
	f.StringVar(&o.Color, "color", o.Color, "Colour output: auto (on a terminal, unless NO_COLOR is set), always or never.")
	f.StringVar(&o.Filter, "filter", "", engines.FilterFlagUsage+" Objects that start passing are ADDED, those that stop passing DELETED.")
	f.StringVar(&o.Until, "until", "", "Exit 0 as soon as the CEL expression is true for every object named in the arguments (deploy/web), or, with no names, for any watched object; checked on the synced state first. With --timeout, exit 1 if it is not met in time.")
	f.StringVar(&o.UntilAll, "until-all", "", "Like --until, but wait until the CEL expression is true for every watched object (at least one).")
	f.DurationVar(&o.Timeout, "timeout", 0, "Stop after this long and exit 0 (0 means never); with --until, exit 1.")
	f.IntVar(&o.MaxEvents, "max-events", 0, "Stop after printing this many events and exit 0 (0 means no limit).")
	f.BoolVar(&o.ShowSecretValues, "show-secret-values", false, "Print the values of changed Secret data in text diffs (hidden by default).")
	f.StringSliceVar(&o.GroupBy, "group-by", nil, "Instead of events, keep a table of the objects' count per value of the index NAME (several names: per combination), as query --group-by prints it: redrawn in place on a terminal, at most four times a second; otherwise the table once, then a line per group that changes.")
	f.StringArrayVar(&o.Sums, "sum", nil, "With or without --group-by, add a column summing MEASURE per group and a TOTAL row, as query --sum does (repeatable): requests.cpu, limits.memory, restarts, NAME=JSONPATH...")
	completion.RegisterCompletions(cmd, configFlags)
	return cmd
}

// Complete parses the arguments, builds the clients from kubeconfig, and
// builds the engine and print configurations from the flags.
func (o *WatchOptions) Complete(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("you must specify the type of resource to watch, e.g. 'kubectl informer watch pods'")
	}
	o.names = map[string]map[string]bool{}
	if strings.Contains(args[0], "/") {
		for _, arg := range args {
			typ, name, ok := strings.Cut(arg, "/")
			if !ok || typ == "" || name == "" {
				return fmt.Errorf("there is no need to mix TYPE/NAME with TYPE NAME: expected TYPE/NAME, got %q", arg)
			}
			if o.names[typ] == nil {
				o.names[typ] = map[string]bool{}
				o.typeArgs = append(o.typeArgs, typ)
			}
			o.names[typ][name] = true
		}
	} else {
		o.typeArgs = strings.Split(args[0], ",")
		if len(args) > 1 {
			if len(o.typeArgs) > 1 {
				return fmt.Errorf("names can be given with one type only; use TYPE/NAME to watch objects of several types")
			}
			o.names[o.typeArgs[0]] = map[string]bool{}
			for _, name := range args[1:] {
				o.names[o.typeArgs[0]][name] = true
			}
		}
	}
	// Expressions are compiled before anything else, so their errors come
	// before any request.
	var err error
	untilFlag, untilSrc := "--until", o.Until
	if o.UntilAll != "" {
		untilFlag, untilSrc = "--until-all", o.UntilAll
	}
	if o.until, err = engines.CompilePredicate(untilFlag, untilSrc); err != nil {
		return err
	}
	filter, err := engines.CompilePredicate("--filter", o.Filter)
	if err != nil {
		return err
	}
	if err := o.EngineOptions.Complete(); err != nil {
		return err
	}
	cfg := WatchPrintConfig{
		Filter:           filter,
		Timestamps:       o.Timestamps,
		Initial:          o.Initial,
		maxEvents:        o.MaxEvents,
		ShowSecretValues: o.ShowSecretValues,
		Location:         time.Local,
		sharedProcess:    o.Engines.Shared(),
	}
	var indexDefs []index.Definition
	for _, s := range o.Where {
		sel, err := index.ParseSelector("--where", s)
		if err != nil {
			return err
		}
		def, err := o.IndexSet.Lookup(sel.Name)
		if err != nil {
			return fmt.Errorf("--where %s: %w", s, err)
		}
		cfg.Where = append(cfg.Where, WhereClause{Sel: sel, Def: def})
		indexDefs = append(indexDefs, def)
	}
	if cfg.Diff, err = ParseDiffMode(o.Diff); err != nil {
		return err
	}
	if cfg.Format, err = ParseWatchFormat(o.Output); err != nil {
		return err
	}
	color, err := ParseColorMode(o.Color)
	if err != nil {
		return err
	}
	cfg.Color = color.Enabled(o.Out)
	if cfg.DiffOptions, err = ParseDiffPaths(o.Ignore, o.Only); err != nil {
		return err
	}
	o.print = cfg

	if o.grouped() {
		if indexDefs, err = o.completeGroups(indexDefs); err != nil {
			return err
		}
	}
	o.Config.Indexes = engines.PlainIndexes(indexDefs)
	o.Config.FullObjects = true
	o.Config.ManagedFields = engine.InternManagedFields
	if o.grouped() {
		o.completeGroupEngine(indexDefs)
	}
	o.Config.PlainWatchStreams = true
	o.Config.Progress = progress.NewProgress(o.ErrOut)
	o.Config.RequireWatch = true
	reporter := NewWatchErrorReporter(o.ErrOut)
	o.Config.OnWatchError = reporter.Report
	o.Config.OnWatchResumed = reporter.Resumed
	if name, ok := o.singleName(); ok && o.Config.FieldSelector == "" {
		// One object: let the server send only it.
		o.Config.FieldSelector = "metadata.name=" + name
	}
	return nil
}

// resolvedColor returns --color as this side resolves it (auto depends on
// the terminal and NO_COLOR here), for a warm cache that runs the watch.
func (o *WatchOptions) resolvedColor() []string {
	mode, err := ParseColorMode(o.Color)
	if err != nil {
		return nil // the cache's Validate names the flag
	}
	if mode.Enabled(o.Out) {
		return []string{"--color=always"}
	}
	return []string{"--color=never"}
}

// redrawsHere reports whether the watch is a grouped table redrawn in place
// on this terminal, which a warm cache, writing to a socket, would print as
// lines instead: such a watch runs here.
func (o *WatchOptions) redrawsHere() bool {
	return (len(o.GroupBy) > 0 || len(o.Sums) > 0) && printers.IsTerminal(o.Out)
}

// singleName returns the name of the one object the arguments name, if they
// name one object of one type.
func (o *WatchOptions) singleName() (string, bool) {
	if len(o.typeArgs) != 1 || len(o.names[o.typeArgs[0]]) != 1 {
		return "", false
	}
	for name := range o.names[o.typeArgs[0]] {
		return name, true
	}
	return "", false
}

// Validate checks the flags without I/O; its errors name the flag.
func (o *WatchOptions) Validate() error {
	if err := o.EngineOptions.Validate(); err != nil {
		return err
	}
	if o.Timeout < 0 {
		return fmt.Errorf("--timeout must not be negative, got %s", o.Timeout)
	}
	if o.MaxEvents < 0 {
		return fmt.Errorf("--max-events must not be negative, got %d", o.MaxEvents)
	}
	if o.Until != "" && o.UntilAll != "" {
		return fmt.Errorf("--until and --until-all cannot be combined: --until waits for the named objects (or any object), --until-all for every object")
	}
	return o.validateGroups()
}

// Run starts the informers, waits for sync and streams events until Ctrl-C,
// --timeout or --max-events.
func (o *WatchOptions) Run(ctx context.Context) error {
	ctx, stop := cmdutil.Interruptible(ctx)
	defer stop()

	mappings, err := o.Resolve(strings.Join(o.typeArgs, ","))
	if err != nil {
		return err
	}
	names, err := o.namesByResource(mappings)
	if err != nil {
		return err
	}
	if err := engines.CheckMeasureTypes(o.measures, mappings); err != nil {
		return err
	}
	queue := engine.NewQueue(QueueLimit)
	var indexes []index.Definition
	for _, w := range o.print.Where {
		indexes = append(indexes, w.Def)
	}
	indexes = append(indexes, o.groupDefs...)
	eng, err := o.Engines.Start(ctx, o.Source, engines.EngineRequest{
		Mappings: mappings, Config: o.Config, Queue: queue, Indexes: indexes, ErrOut: o.ErrOut,
	})
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return nil
		}
		return err
	}
	defer eng.Shutdown()
	related, err := o.startRelations(ctx, eng, queue)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return nil
		}
		return err
	}
	defer related.Shutdown()
	if o.grouped() {
		engines.PlayRecording(ctx, o.Engines)
		if err := o.runGroups(ctx, eng, queue, names); err != nil {
			return err
		}
		return engines.ReplayError(o.Engines)
	}
	p := NewEventPrinter(o.print, names, o.Out, o.ErrOut)
	p.RecordedAt = engines.RecordedTimes(o.Engines)
	p.Guards = engines.ExprGuards(o.IndexSet.Custom(), o.print.Filter, o.until)
	p.exprs = engines.NewExprReporter(p.Guards)
	defer p.exprs.Report(o.ErrOut)
	if o.until != nil {
		mode := untilAny
		switch {
		case o.UntilAll != "":
			mode = untilAll
		case len(names) > 0:
			mode = untilNamed
		}
		p.until = newUntilCondition(o.until, o.until.Program().Flag(), mode, names)
		p.until.byEvent = engines.Replays(o.Engines)
		p.until.seed(p, eng.Types())
		if err := engines.ExprFatal(p.Guards); err != nil {
			return err
		}
		if p.until.met() {
			fmt.Fprintln(o.ErrOut, p.until.metMessage()+" already")
			return nil
		}
	}
	if !o.print.Initial {
		engines.PrintSynced(o.ErrOut, eng.Types())
	}
	p.exprs.Report(o.ErrOut)

	ctx, cancel := o.watchContext(ctx, eng)
	defer cancel()
	engines.PlayRecording(ctx, o.Engines)
	err = p.run(ctx, queue)
	if failed := eng.Err(); failed != nil {
		return failed
	}
	if err != nil {
		return err
	}
	if err := engines.ReplayError(o.Engines); err != nil {
		return err
	}
	switch {
	case p.met:
		fmt.Fprintln(o.ErrOut, p.until.metMessage())
	case p.until != nil && o.Timeout > 0 && errors.Is(ctx.Err(), context.DeadlineExceeded):
		return p.until.timeoutError(o.Timeout)
	case p.until != nil && engines.FromEnded(eng):
		return p.until.endError()
	}
	return nil
}

// namesByResource re-keys the names given per type argument by resource.
func (o *WatchOptions) namesByResource(mappings []*meta.RESTMapping) (map[string]map[string]bool, error) {
	byResource := map[string]map[string]bool{}
	for typeArg, set := range o.names {
		resolved, err := o.Resolve(typeArg)
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

// watchErrorReporter says on stderr when a watch breaks after sync, once per
// type and cause until the cause changes, so a long outage is not a flood.
type watchErrorReporter struct {
	out  *cmdutil.LockedWriter
	last map[string]string
}

func NewWatchErrorReporter(errOut interface{ Write([]byte) (int, error) }) *watchErrorReporter {
	return &watchErrorReporter{out: &cmdutil.LockedWriter{W: errOut}, last: map[string]string{}}
}

func (r *watchErrorReporter) Report(t *engine.Type, err error) {
	msg := err.Error()
	r.out.Mu.Lock()
	defer r.out.Mu.Unlock()
	if r.last[t.Name()] == msg {
		return
	}
	r.last[t.Name()] = msg
	hint := "retrying"
	if engine.IsForbidden(err) {
		hint = "permission lost? retrying"
	}
	fmt.Fprintf(r.out.W, "warning: watch of %s failed (%s): %s\n", t.Name(), hint, msg)
}

func (r *watchErrorReporter) Resumed(t *engine.Type) {
	r.out.Mu.Lock()
	defer r.out.Mu.Unlock()
	delete(r.last, t.Name())
	fmt.Fprintf(r.out.W, "watch of %s resumed; changes made meanwhile follow\n", t.Name())
}

// watchContext returns ctx ended also after --timeout (when set), when
// the events of a finished --from source are all printed, and when
// the engine fails for good after sync (a watch the user may not make), so
// that the printer ends and the command reports why; the caller calls
// cancel.
func (o *WatchOptions) watchContext(ctx context.Context, eng engines.RunningEngine) (context.Context, context.CancelFunc) {
	cancelTimeout := context.CancelFunc(func() {})
	if o.Timeout > 0 {
		ctx, cancelTimeout = context.WithTimeout(ctx, o.Timeout)
	}
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		select {
		case <-eng.Failed():
			cancel()
		case <-engines.SourceDrained(eng):
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, func() { cancel(); cancelTimeout() }
}
