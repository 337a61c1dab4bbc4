// Package query is the query command: a query's answer looked up in synced
// caches, for each of its targets (one context, several, or their warm
// caches, which are asked the query as data and answer as data), and
// printed as one (answerPrinter); -w keeps it current (a table redrawn in
// place, or rows as kubectl get -w prints them). Its server side answers a
// warm cache's Collect requests (CollectHandler).
package query

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/kubectl-informer/kubectl-informer/pkg/aggregate"
	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/expr"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/cmdutil"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/completion"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/progress"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/targets"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/watch"
	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/protocol"
)

const queryExample = `  # Pods on one node, across all namespaces
  kubectl informer query pods -A --index node=worker-1

  # Pods that run an image, by a custom JSONPath index
  kubectl informer query pods -A --indexer img='{.spec.containers[*].image}' --index img=nginx:1.27

  # Deployments and replica sets owned by something, in one namespace
  kubectl informer query deploy,rs -n shop --index owner=Deployment/web

  # How many pods each app has, largest first
  kubectl informer query pods -A --group-by label:app

  # CPU requests and memory limits per namespace and node, as the scheduler counts them
  kubectl informer query pods -A --group-by namespace,node --sum requests.cpu --sum limits.memory

  # The five namespaces that request the most memory
  kubectl informer query pods -A --group-by namespace --sum requests.memory --sort-by requests.memory --top 5

  # Names only, for scripts
  kubectl informer query pods -A --index phase=Pending -o name

  # Pods with a container restarted more than 3 times, by a CEL filter
  kubectl informer query pods -A --filter 'object.status.containerStatuses.exists(s, s.restartCount > 3)'

  # Pods per total restart count, by a computed (CEL) index
  kubectl informer query pods -A --indexer restarts='object.status.?containerStatuses.orValue([]).map(s, s.restartCount).sum()' --group-by restarts`

// QueryOptions are the options of kubectl informer query.
type QueryOptions struct {
	engines.EngineOptions

	// QueryFlags are the flags a warm cache is asked (--index, --group-by,
	// --sum, --filter, --sort-by, -o, --show-events), not yet parsed.
	protocol.QueryFlags
	// Top is --top: how many rows of a grouped table to print, 0 for all.
	Top          int
	NoHeaders    bool
	ShowKind     bool
	ShowLabels   bool
	LabelColumns []string
	// queryWatchFlags are -w, --watch-only and --output-watch-events.
	queryWatchFlags

	genericiooptions.IOStreams

	// contextFlags are --all-contexts; nil for the options of a warm
	// cache's Collect request, which answers the one target it is asked
	// for.
	contextFlags *targets.Flags

	// Set by Complete; Run reads them and changes nothing.
	typeArg string
	// split is --index and --group-by with the context index taken out;
	// set is the targets the kubeconfig flags and the context index
	// select.
	split     targets.ContextIndex
	set       targets.Set
	selectors []index.Selector
	// indexDefs are every index the query reads (--index, then --group-by),
	// each once, as parsed: relationship indexes are bound to their caches
	// by Run, in a copy.
	indexDefs   []index.Definition
	filterGuard *expr.Guard
	// print is what the printers read (queryPrintConfig).
	print queryPrintConfig
	// Pushdown is what a direct run may have the API server select.
	Pushdown []index.Selector
}

// NewQueryOptions returns QueryOptions with defaults.
func NewQueryOptions(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *QueryOptions {
	return &QueryOptions{EngineOptions: engines.EngineOptions{ConfigFlags: configFlags, Engines: engines.DirectEngines{}}, IOStreams: streams}
}

// NewCmdQuery returns the query command.
func NewCmdQuery(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := NewQueryOptions(configFlags, streams)
	cmd := &cobra.Command{
		Use:     "query TYPE[,TYPE...] [flags]",
		Short:   "Answer index lookups from synced informer caches",
		Long:    "Start shared informers for the named types with the indexes the query needs, wait until every cache has synced, print the objects whose indexed values match, and exit.",
		Example: queryExample,
		Args:    cobra.ArbitraryArgs,
	}
	cmd.RunE = cmdutil.RunE(o)
	o.EngineOptions.AddFlags(cmd)
	o.EngineOptions.AddCacheFlags(cmd)
	engines.AddFromFlags(cmd, o, &o.EngineOptions, nil)
	o.EngineOptions.AddNowFlag(cmd)
	o.contextFlags = targets.AddFlags(cmd)
	cmd.Flags().StringArrayVar(&o.Index, "index", nil, "Select objects whose index NAME has VALUE: --index NAME=VALUE (repeatable, ANDed). See 'kubectl informer indexers'.")
	cmd.Flags().StringSliceVar(&o.GroupBy, "group-by", nil, "Print each value of the index NAME with its object count instead of objects, largest first. Several names (repeated or comma-separated) group by their combination: a row per combination, a column per name.")
	cmd.Flags().StringArrayVar(&o.Sums, "sum", nil, "Add a column summing MEASURE per group and a TOTAL row (repeatable): requests.RESOURCE or limits.RESOURCE of pods as the scheduler counts them (requests.cpu, limits.memory, requests.nvidia.com/gpu; a glob such as 'requests.nvidia.com/*' adds a column per matching resource the pods request), usage.cpu and usage.memory from the metrics API, usage.cpu/requests.cpu (usage, requests and the share, \"721m/1500m (48%)\"), restarts, containers, or NAME=JSONPATH over quantities. Without --group-by, prints the total only.")
	cmd.Flags().IntVar(&o.Top, "top", 0, "With --group-by or --sum, print only the first N rows (after --sort-by); 0 prints them all.")
	cmd.Flags().StringVarP(&o.Output, "output", "o", "", "Output format. One of: (json, yaml, name, wide, custom-columns=…, jsonpath=…, jsonpath-file=…, go-template=…, go-template-file=…).")
	cmd.Flags().BoolVar(&o.NoHeaders, "no-headers", false, "When using the default or custom-column output format, don't print headers.")
	cmd.Flags().BoolVar(&o.ShowKind, "show-kind", false, "If present, list the resource type for the requested object(s).")
	cmd.Flags().BoolVar(&o.ShowLabels, "show-labels", false, "When printing, show all labels as the last column (default hide labels column).")
	cmd.Flags().StringSliceVarP(&o.LabelColumns, "label-columns", "L", nil, "Accepts a comma separated list of labels that are going to be presented as columns. Names are case-sensitive. You can also use multiple flag options like -L label1 -L label2...")
	cmd.Flags().StringVar(&o.Filter, "filter", "", engines.FilterFlagUsage)
	cmd.Flags().BoolVar(&o.ShowEvents, "show-events", false, showEventsFlagUsage)
	cmd.Flags().StringVar(&o.SortBy, "sort-by", "", "If non-empty, sort the objects of each type using this field specification. The field specification is expressed as a JSONPath expression (e.g. '{.metadata.name}'), or is the NAME of an --indexer index (its first value); numbers, quantities and times sort by value. With --group-by or --sum, the name of a printed column (e.g. count, requests.cpu, node): numbers sort largest first, names in natural order.")
	o.addWatchFlags(cmd)
	completion.RegisterCompletions(cmd, configFlags)
	return cmd
}

// Complete parses the argument, builds the engine and print configurations
// from the flags, once for every target, and selects the targets; it sends
// no request, and reads a file only for -o jsonpath-file and the like (and
// the kubeconfig for a selection of contexts). Each target is connected
// when it is answered (target).
func (o *QueryOptions) Complete(cmd *cobra.Command, args []string) error {
	switch len(args) {
	case 0:
		return fmt.Errorf("you must specify the type of resource to query, e.g. 'kubectl informer query pods'")
	case 1:
		o.typeArg = args[0]
	default:
		return fmt.Errorf("query takes one TYPE[,TYPE...] argument, got %d: %s (join types with commas: %s)", len(args), strings.Join(args, " "), strings.Join(args, ","))
	}
	var err error
	if o.filterGuard, err = engines.CompilePredicate("--filter", o.Filter); err != nil {
		return err
	}
	if err := o.EngineOptions.CompleteFlags(); err != nil {
		return err
	}
	if o.split, err = targets.SplitContextIndex("--index", o.Index, o.GroupBy); err != nil {
		return err
	}
	groupBy, measures, err := o.completeIndexes()
	if err != nil {
		return err
	}
	if o.print, err = o.completePrint(groupBy, measures); err != nil {
		return err
	}
	o.completeEngineConfig()
	return o.completeTargets()
}

// completeIndexes parses --index into selectors, and --group-by and --sum
// into the grouped table's indexes and measures, the context index left
// out (o.split); it records every index the query reads, each once, in
// o.indexDefs.
func (o *QueryOptions) completeIndexes() ([]index.Definition, []aggregate.Measure, error) {
	seen := map[string]bool{}
	for _, s := range o.split.Others {
		sel, err := index.ParseSelector("--index", s)
		if err != nil {
			return nil, nil, err
		}
		def, err := o.IndexSet.Lookup(sel.Name)
		if err != nil {
			return nil, nil, fmt.Errorf("--index %s: %w", s, err)
		}
		o.selectors = append(o.selectors, sel)
		if !seen[def.Name] {
			seen[def.Name] = true
			o.indexDefs = append(o.indexDefs, def)
		}
	}
	groupBy, measures, err := engines.ParseGroups(o.IndexSet, o.split.GroupBy, o.Sums)
	if err != nil {
		return nil, nil, err
	}
	for _, def := range groupBy {
		if !seen[def.Name] {
			seen[def.Name] = true
			o.indexDefs = append(o.indexDefs, def)
		}
	}
	return groupBy, measures, nil
}

// completeEngineConfig adds to the configuration query and watch share what
// query's engine needs: the plain indexes (relationship ones are added after
// sync), whole objects or metadata, and stripped pods where a grouped table
// reads only what aggregate.TransformPod keeps.
func (o *QueryOptions) completeEngineConfig() {
	o.Config.Indexes = engines.PlainIndexes(o.indexDefs)
	o.Config.FullObjects = o.fullObjects()
	if plan := o.recordPlan(); plan != nil {
		// Each object is reduced to what the answer reads as it arrives
		// (recordPlan).
		o.Config.Indexes, o.Config.Reduce = o.lookedUp(plan.Definitions()), plan.Transform
		o.Config.Reads = o.recordReads()
	} else if o.grouped() && o.podTransformSafe() {
		// Built-in measures and the built-in indexes named read nothing
		// TransformPod drops (--indexer names cannot take built-in names).
		o.Config.Transforms = map[schema.GroupResource]toolscache.TransformFunc{{Resource: "pods"}: aggregate.TransformPod}
	}
	o.Config.Progress = progress.NewProgress(o.ErrOut)
	o.Pushdown = o.pushableSelectors()
}

// Validate checks the flags without I/O; its errors name the flag.
func (o *QueryOptions) Validate() error {
	if err := o.EngineOptions.Validate(); err != nil {
		return err
	}
	if err := engines.ValidateRelations(o.selectors); err != nil {
		return err
	}
	if err := o.validateShowEvents(); err != nil {
		return err
	}
	if err := o.validateWatch(); err != nil {
		return err
	}
	return o.validateGroups()
}

// fullObjects reports whether --filter, any index, a measure or the output
// needs more than metadata: kubectl's columns and --sort-by read whole
// objects.
func (o *QueryOptions) fullObjects() bool {
	if o.filterGuard != nil || slices.ContainsFunc(o.indexDefs, func(def index.Definition) bool { return !def.MetadataOnly }) {
		return true
	}
	if o.grouped() {
		// Measures read whole objects.
		return len(o.print.measures) > 0
	}
	return o.print.out.NeedsFullObjects() || o.SortBy != "" || o.print.out.IsTable()
}

// Run answers the query in each of its targets (answerTargets), or, with
// -w, keeps the answer current (runWatch): one target or several, the
// same path. It changes nothing in o: each target's connection, print
// config and engine config are its own (target).
func (o *QueryOptions) Run(ctx context.Context) error {
	ctx, stop := cmdutil.Interruptible(ctx)
	defer stop()
	if o.watching() {
		return o.runWatch(ctx)
	}
	return o.answerTargets(ctx)
}

// running is the query started in one target: its engine and the
// relations its indexes read, synced; its types, bound to those relations;
// the print config of its answer; for a watch, the queue of the types' events
// and what decides which events change the answer. report writes on the
// target's stderr what the expressions' evaluations reported; stop stops
// the relations and the engine.
type running struct {
	o       *QueryOptions
	types   []*engine.Type
	queue   *engine.Queue
	eng     engines.RunningEngine
	cfg     queryPrintConfig
	changes *watch.EventPrinter
	// filter is the target's own --filter guard.
	filter *expr.Guard
	report func()
	stop   func()
}

// start resolves the query's types in target t, starts and syncs the
// engine and the relations its indexes read, warns of related types that
// cannot be read, and refuses what the expressions cannot evaluate. With
// a queue (a watch), every event of the types goes to it, a change of a
// related object as a MODIFIED event of the object it is related to, and
// watch errors go to notes when it is set. The caller calls stop when it
// is done; on an error nothing is left running.
func (t *queryTarget) start(ctx context.Context, queue *engine.Queue, notes io.Writer) (*running, error) {
	o := t.q
	mappings, err := t.Resolve(o.typeArg)
	if err != nil {
		return nil, err
	}
	if err := engines.CheckMeasureTypes(o.print.measures, mappings); err != nil {
		return nil, err
	}
	t.withTableRows(mappings)
	if t.Config.Reduce != nil {
		// What is kept is small; the peak is decoding's garbage.
		defer engines.TightenGCWhileReading()()
	}
	config := t.Config
	if queue != nil {
		config = t.watchConfig(notes)
	}
	eng, related, err := t.StartWithRelations(ctx, engines.EngineRequest{
		Mappings: mappings, Config: config, Queue: queue, Indexes: t.indexDefs, ErrOut: t.errOut,
		Pushdown: o.Pushdown,
	}, engine.RelationsConfig{Selectors: o.selectors, Events: o.ShowEvents})
	if err != nil {
		return nil, err
	}
	stop := func() {
		related.Shutdown()
		eng.Shutdown()
	}
	indexDefs := related.Definitions()
	guards := engines.ExprGuards(indexDefs, t.filter)
	if err := engines.ExprFatal(guards); err != nil {
		stop()
		return nil, err
	}
	r := &running{
		o: o, types: related.Types(), queue: queue, eng: eng,
		cfg:     t.print.bind(indexDefs),
		changes: o.changeClassifier(indexDefs, t.filter), filter: t.filter,
		report: func() { engines.NewExprReporter(guards).Report(t.errOut) },
		stop:   stop,
	}
	r.cfg.events = related.Events()
	r.changes.Guards = guards
	return r, nil
}

// lookup returns each type's objects that the --index selectors select and
// that pass --filter, all evaluated at one instant (the expression's now).
// With neither flag, a group holds every cached object and says so (whole).
// The objects are in the API server's list order, unless the query only
// counts them per group (--group-by without --sum), which reads no order
// (a sum's format is its first quantity's, so sums keep the order). It
// fails when an expression hit CEL's cost limit.
func (r *running) lookup(ctx context.Context) ([]typeObjects, error) {
	o, filter := r.o, r.filter
	now := time.Now()
	groups := make([]typeObjects, 0, len(r.types))
	for _, t := range r.types {
		look := t.Lookup
		if len(o.print.groupBy) > 0 && len(o.Sums) == 0 {
			look = t.LookupUnordered
		}
		objs, err := look(o.selectors)
		if err != nil {
			return nil, err
		}
		if filter != nil {
			objs = engines.FilterObjects(ctx, filter, objs, now)
			if err := filter.Fatal(); err != nil {
				return nil, err
			}
		}
		groups = append(groups, typeObjects{t: t, objs: objs, whole: len(o.selectors) == 0 && filter == nil, columns: r.cfg.printerColumns(ctx, t)})
	}
	return groups, nil
}
