package capacity

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/printers"

	"github.com/kubectl-informer/kubectl-informer/pkg/aggregate"
	"github.com/kubectl-informer/kubectl-informer/pkg/fleet"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/cmdutil"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/printing"
	pluginprogress "github.com/kubectl-informer/kubectl-informer/pkg/plugin/progress"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/targets"
)

// fleetCapacityRunE returns capacity's RunE: across contexts when they are
// chosen the fleet way or --group-by names context (runFleetCapacity),
// next otherwise.
func fleetCapacityRunE(o *CapacityOptions, f *targets.Flags, next func(*cobra.Command, []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if !targets.Selected(o.ConfigFlags, f.AllContexts) && o.GroupBy != fleet.ContextIndex {
			return next(cmd, args)
		}
		return runFleetCapacity(cmd, args, o, f)
	}
}

// capacityAnswer is one target's capacity: its table (not yet sorted or
// cut), what its pods use, whether its nodes could be listed, and what it
// wrote on stderr when it is one of several.
type capacityAnswer struct {
	name       string
	table      aggregate.Table
	usage      *aggregate.UsageByNode
	nodesKnown bool
	stderr     *cmdutil.LockedWriter // over a *bytes.Buffer
}

// runFleetCapacity answers capacity in each context of a selection, o's
// flags completed for each context on its own, and prints the answers as
// one (answerCapacityTargets). With --group-by context, each context's
// nodes are one group, its name.
func runFleetCapacity(cmd *cobra.Command, args []string, o *CapacityOptions, f *targets.Flags) error {
	if fl := cmd.Flags().Lookup("from"); fl != nil && fl.Changed {
		return fmt.Errorf("--from reads files, not contexts: it cannot be combined with several contexts")
	}
	switch o.Output {
	case "", "json", "yaml":
	default:
		return fmt.Errorf("-o/--output must be json or yaml (or absent, for a table), got %q", o.Output)
	}
	set, err := targets.New(o.ConfigFlags, f.AllContexts, true)
	if err != nil {
		return err
	}
	byContext := o.GroupBy == fleet.ContextIndex
	ctx, stop := cmdutil.Interruptible(cmd.Context())
	defer stop()
	return o.answerCapacityTargets(ctx, set, byContext, func(ctx context.Context, t targets.Target) (*capacityAnswer, error) {
		a := &capacityAnswer{name: t.Name, stderr: &cmdutil.LockedWriter{W: &bytes.Buffer{}}}
		co := *o
		co.ConfigFlags = t.ConfigFlags
		co.Engines = engines.DirectEngines{}
		co.IOStreams = genericiooptions.IOStreams{In: o.In, Out: io.Discard, ErrOut: a.stderr}
		if byContext {
			co.GroupBy = ""
		}
		if err := co.Complete(cmd, args); err != nil {
			return a, err
		}
		if err := co.Validate(); err != nil {
			return a, err
		}
		co.Config.Progress = pluginprogress.FromContext(ctx, co.Config.Progress)
		return a, co.collectCapacity(ctx, a, byContext)
	})
}

// answerCapacityTargets counts the capacity of each target of set (answer),
// in parallel, and prints the answers as one (printCapacity). With one
// target (not set.Several) its error is the command's; with several, each
// failed context is named on stderr once, the others are printed, and the
// error is a *targets.PartialError.
func (o *CapacityOptions) answerCapacityTargets(ctx context.Context, set targets.Set, byContext bool, answer func(ctx context.Context, t targets.Target) (*capacityAnswer, error)) error {
	progress, deadline := pluginprogress.Of(o.ErrOut, set), set.Deadline(o.SyncTimeout)
	results := targets.Run(ctx, set.Targets, deadline, func(ctx context.Context, t targets.Target) (a *capacityAnswer, err error) {
		defer func() { progress.Done(t.Name, err) }()
		if progress != nil {
			ctx = pluginprogress.WithTargets(ctx, progress.EngineProgress(t.Name))
		}
		return answer(ctx, t)
	})
	progress.End()
	failures := set.Failures(o.ErrOut)
	var answers []*capacityAnswer
	for _, r := range results {
		if r.Value != nil && r.Value.stderr != nil {
			cmdutil.FlushPrefixed(o.ErrOut, r.Target.Name, r.Value.stderr)
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
	if len(answers) > 0 {
		if err := o.printCapacity(answers, set.Several, byContext); err != nil {
			return err
		}
	}
	return failures.Err()
}

// collectCapacity counts the target's capacity into a: with byContext,
// every node of the target is in one group, its context's name.
func (o *CapacityOptions) collectCapacity(ctx context.Context, a *capacityAnswer, byContext bool) error {
	mappings, err := o.Resolve("pods,nodes")
	if err != nil {
		return err
	}
	a.nodesKnown = true
	if reason := o.nodesDenied(ctx, mappings[1]); reason != "" {
		if o.groupBy != nil || byContext || o.LabelSelector != "" {
			return fmt.Errorf("--group-by and -l need the nodes, which you may not list: %s", reason)
		}
		fmt.Fprintf(o.ErrOut, "warning: you may not list nodes (%s); printing requests and limits without allocatable\n", reason)
		mappings, a.nodesKnown = mappings[:1], false
	}
	eng, err := o.Engines.Start(ctx, o.Source, engines.EngineRequest{Mappings: mappings, Config: o.Config, ErrOut: o.ErrOut})
	if err != nil {
		return err
	}
	defer eng.Shutdown()
	pods := eng.Types()[0]
	var nodes []*corev1.Node
	a.usage = aggregate.NewUsageByNode()
	if a.nodesKnown {
		if nodes, err = o.selectedNodes(eng.Types()[1]); err != nil {
			return err
		}
		err = o.addPodsOf(a.usage, pods, nodes)
	} else {
		var all []interface{}
		if all, err = pods.Lookup(nil); err == nil {
			err = addAll(a.usage, all)
		}
	}
	if err != nil {
		return err
	}
	if !byContext {
		a.table, err = o.capacityTable(a.usage, nodes, a.nodesKnown)
		return err
	}
	opts := o.capacityOptions(nodes, a.nodesKnown)
	opts.GroupBy = fleet.ContextIndex
	opts.GroupValue = func(*corev1.Node) string { return a.name }
	a.table, err = aggregate.Capacity(a.usage, opts)
	return err
}

// printCapacity prints the answers: one target's table, or several
// targets' tables merged (fleet.MergeCapacity: a row per node of each
// context, with a first column CONTEXT, or a row per group added up over
// the contexts), sorted by --sort-by and cut to --top. -o json|yaml print
// one target's capacity object, or a v1 List whose items are each
// context's capacity object, as that context alone prints it, and beside
// items the list contexts (fleetContextsField).
func (o *CapacityOptions) printCapacity(answers []*capacityAnswer, several, byContext bool) error {
	if o.Output != "" {
		if !several {
			a := answers[0]
			if err := o.sortAndCut(&a.table, 1); err != nil {
				return err
			}
			return o.printCapacityObject(a.table, a.usage, a.nodesKnown)
		}
		var list printing.ContextList
		for _, a := range answers {
			if err := o.sortAndCut(&a.table, 1); err != nil {
				return err
			}
			item, err := runtime.DefaultUnstructuredConverter.ToUnstructured(capacityObjectOf(a.table, a.usage, a.nodesKnown))
			if err != nil {
				return fmt.Errorf("context %s: encoding the capacity table: %w", a.name, err)
			}
			list.Add(a.name, item)
		}
		return list.Write(o.Out, o.Output, &printers.JSONPrinter{})
	}
	table, keyWidth := answers[0].table, 1
	if several {
		tables := make([]fleet.ContextTable, len(answers))
		for i, a := range answers {
			tables[i] = fleet.ContextTable{Context: a.name, Table: a.table}
		}
		perNode := !byContext && o.GroupBy == ""
		table = fleet.MergeCapacity(tables, perNode)
		if perNode {
			keyWidth = 2
		}
	}
	if err := o.sortAndCut(&table, keyWidth); err != nil {
		return err
	}
	header, rows := table.Strings()
	return printing.WriteTable(o.Out, header, rows, o.NoHeaders)
}

// sortAndCut sorts table by --sort-by, names (the first keyWidth columns)
// in natural order and the rest largest first, and cuts it to --top.
func (o *CapacityOptions) sortAndCut(table *aggregate.Table, keyWidth int) error {
	if o.SortBy != "" {
		col, ok := table.Column(o.SortBy)
		if !ok {
			return fmt.Errorf("--sort-by %s: capacity has no such column; columns are %s", o.SortBy, strings.Join(table.Columns, ", "))
		}
		if err := table.SortBy(o.SortBy, col >= keyWidth); err != nil {
			return err
		}
	}
	table.Top(o.Top)
	return nil
}
