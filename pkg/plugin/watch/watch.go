// Package watch is the watch command: every add, update and delete of the
// named types, each update with a diff of what changed and who changed it,
// for each of its targets (one context, or several whose events name
// their context), read from the warm cache of a target's identity when one
// runs; --group-by and --sum keep a live table of groups instead.
package watch

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-informer/kubectl-informer/pkg/aggregate"
	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/expr"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/cmdutil"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/completion"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
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

	PrintFlags

	Where      []string
	Initial    bool
	Timestamps bool
	Timeout    time.Duration
	MaxEvents  int
	Filter     string
	Until      string
	UntilAll   string
	// GroupBy and Sums (--group-by, --sum) make the watch a live grouped
	// table instead of a stream of events (runGroups).
	GroupBy []string
	Sums    []string

	genericiooptions.IOStreams

	// Set by completeFlags: what every target's watch reads.
	typeArgs []string
	names    map[string]map[string]bool // type argument → names; empty means all
	// print is the print configuration; each target resolves color for
	// its stdout and binds the --where clauses to its relations.
	print     WatchPrintConfig
	color     colorMode
	until     *expr.Guard // --until or --until-all
	groupDefs []index.Definition
	measures  []aggregate.Measure
	// indexDefs are every index the watch reads (--where, then
	// --group-by), each once; each target gets its own copy (index.Own).
	indexDefs []index.Definition
	// contexts are the flags that choose contexts besides --context; set
	// is the targets they choose.
	contexts *targets.Flags
	set      targets.Set
}

// NewWatchOptions returns WatchOptions with defaults.
func NewWatchOptions(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *WatchOptions {
	return &WatchOptions{
		EngineOptions: engines.EngineOptions{ConfigFlags: configFlags, Engines: engines.DirectEngines{}},
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
	cmd.RunE = cmdutil.RunE(o)
	o.contexts = targets.AddFlags(cmd)
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
	o.PrintFlags.AddFlags(cmd, "Output format: text, json (one event per line, with a JSON Patch per update), yaml or name.")
	f.BoolVar(&o.Timestamps, "timestamps", false, "Prefix each event with the time it was printed.")
	f.StringVar(&o.Filter, "filter", "", engines.FilterFlagUsage+" Objects that start passing are ADDED, those that stop passing DELETED.")
	f.StringVar(&o.Until, "until", "", "Exit 0 as soon as the CEL expression is true for every object named in the arguments (deploy/web), or, with no names, for any watched object; checked on the synced state first. With --timeout, exit 1 if it is not met in time.")
	f.StringVar(&o.UntilAll, "until-all", "", "Like --until, but wait until the CEL expression is true for every watched object (at least one).")
	f.DurationVar(&o.Timeout, "timeout", 0, "Stop after this long and exit 0 (0 means never); with --until, exit 1.")
	f.IntVar(&o.MaxEvents, "max-events", 0, "Stop after printing this many events and exit 0 (0 means no limit).")
	f.StringSliceVar(&o.GroupBy, "group-by", nil, "Instead of events, keep a table of the objects' count per value of the index NAME (several names: per combination), as query --group-by prints it: redrawn in place on a terminal, at most four times a second; otherwise the table once, then a line per group that changes.")
	f.StringArrayVar(&o.Sums, "sum", nil, "With or without --group-by, add a column summing MEASURE per group and a TOTAL row, as query --sum does (repeatable): requests.cpu, limits.memory, usage.cpu, usage.cpu/requests.cpu, restarts, NAME=JSONPATH...; a glob such as 'requests.nvidia.com/*' adds a column per matching resource the pods request when the watch starts")
	completion.RegisterCompletions(cmd, configFlags)
	return cmd
}

// Complete chooses the targets (targets.Flags.Targets, kept where they
// pass the context index's --where selectors), the context index taken
// out of --where and --group-by, and completes the flags for them all
// (completeFlags); each target connects when it runs.
func (o *WatchOptions) Complete(cmd *cobra.Command, args []string) error {
	split, err := targets.SplitContextIndex("--where", o.Where, o.GroupBy)
	if err != nil {
		return err
	}
	if o.set, err = o.contexts.Targets(o.ConfigFlags, split.Several()); err != nil {
		return err
	}
	o.set.Keep(split.Matches)
	return o.completeFlags(args, split.Others, split.GroupBy)
}

// completeFlags turns the arguments and flags into what every target's
// watch reads: the types and names, the compiled expressions, the print
// and engine configurations. where and groupBy are --where and --group-by
// as the targets read them (without the context index when it chooses
// the targets). It sends no request.
func (o *WatchOptions) completeFlags(args, where, groupBy []string) error {
	if err := o.parseArgs(args); err != nil {
		return err
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
	if err := engines.RefuseWatchedUsage(o.until, filter); err != nil {
		return err
	}
	if err := o.CompleteFlags(); err != nil {
		return err
	}
	if err := o.completePrint(filter, where); err != nil {
		return err
	}
	var indexDefs []index.Definition
	for _, w := range o.print.Where {
		indexDefs = append(indexDefs, w.Def)
	}
	o.Config.FullObjects = true
	o.Config.ManagedFields = engine.InternManagedFields
	if o.grouped() {
		if indexDefs, err = o.completeGroups(groupBy, indexDefs); err != nil {
			return err
		}
	}
	o.indexDefs = indexDefs
	if len(o.typeArgs) == 1 && len(o.names[o.typeArgs[0]]) == 1 && o.Config.FieldSelector == "" {
		// One object: let the server send only it.
		for name := range o.names[o.typeArgs[0]] {
			o.Config.FieldSelector = "metadata.name=" + name
		}
	}
	return nil
}

// parseArgs reads TYPE[,TYPE...] [NAME ...] or TYPE/NAME ... into the type
// arguments and the names per type argument.
func (o *WatchOptions) parseArgs(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("you must specify the type of resource to watch, e.g. 'kubectl informer watch pods'")
	}
	o.typeArgs, o.names = nil, map[string]map[string]bool{}
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
		return nil
	}
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
	return nil
}

// completePrint builds the print configuration from the flags, the
// --where clauses from where; its colour is resolved per target, for the
// target's stdout.
func (o *WatchOptions) completePrint(filter *expr.Guard, where []string) error {
	cfg, color, err := o.PrintFlags.Complete()
	if err != nil {
		return err
	}
	cfg.Filter, cfg.Timestamps, cfg.Initial = filter, o.Timestamps, o.Initial
	var selectors []index.Selector
	for _, s := range where {
		sel, err := index.ParseSelector("--where", s)
		if err != nil {
			return err
		}
		def, err := o.IndexSet.Lookup(sel.Name)
		if err != nil {
			return fmt.Errorf("--where %s: %w", s, err)
		}
		cfg.Where = append(cfg.Where, WhereClause{Sel: sel, Def: def})
		selectors = append(selectors, sel)
	}
	o.print, o.color = cfg, color
	return engines.ValidateRelations(selectors)
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

// Watching returns cfg for an engine whose changes a command streams
// (watch, query -w, record): a watch the user may make, plain watch
// streams, and a line on errOut when a watch breaks after sync, once per
// type and cause until the cause changes, so a long outage is not a
// flood, and when it resumes.
func Watching(cfg engine.Config, errOut io.Writer) engine.Config {
	r := &watchErrorReporter{out: &cmdutil.LockedWriter{W: errOut}, last: map[string]string{}}
	cfg.RequireWatch, cfg.PlainWatchStreams = true, true
	cfg.OnWatchError, cfg.OnWatchResumed = r.report, r.resumed
	return cfg
}

// watchErrorReporter says on stderr when a watch breaks and resumes
// (Watching).
type watchErrorReporter struct {
	out  *cmdutil.LockedWriter
	last map[string]string
}

func (r *watchErrorReporter) report(t *engine.Type, err error) {
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

func (r *watchErrorReporter) resumed(t *engine.Type) {
	r.out.Mu.Lock()
	defer r.out.Mu.Unlock()
	delete(r.last, t.Name())
	fmt.Fprintf(r.out.W, "watch of %s resumed; changes made meanwhile follow\n", t.Name())
}
