package plugin

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/printers"

	"github.com/kubectl-informer/kubectl-informer/pkg/aggregate"
	"github.com/kubectl-informer/kubectl-informer/pkg/cache"
	"github.com/kubectl-informer/kubectl-informer/pkg/fleet"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/targets"
)

// This file runs capacity across several contexts (--context a,b, a
// pattern, --all-contexts), one CapacityOptions per context in parallel,
// and merges their tables (fleet.MergeCapacity):
//
//   - by default a row per node of each context, with a first column
//     CONTEXT, and a TOTAL row over every context;
//   - --group-by context: a row per context (its nodes added up);
//   - --group-by another node index (label:topology.kubernetes.io/zone):
//     a row per value, added up over the contexts.
//
// Failed contexts are named on stderr once and the exit code is 1, as for a
// fleet query. -o json|yaml print one v1 List whose items are each
// context's capacity object, as capacity --context NAME -o json prints it
// (sorted and cut by --sort-by and --top in that context), and beside items
// the list contexts naming each item's context (fleetContextsField).

// fleetCapacityRunE returns capacity's RunE: across contexts when they are
// chosen the fleet way, next otherwise.
func fleetCapacityRunE(o *CapacityOptions, f *fleetFlags, next func(*cobra.Command, []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if !f.allContexts && !targets.IsSelection(targets.ContextFlag(o.configFlags)) && o.GroupBy != fleet.ContextIndex {
			return next(cmd, args)
		}
		return runFleetCapacity(cmd, args, o, f)
	}
}

func runFleetCapacity(cmd *cobra.Command, args []string, o *CapacityOptions, f *fleetFlags) error {
	if fl := cmd.Flags().Lookup("from"); fl != nil && fl.Changed {
		return fmt.Errorf("--from reads files, not contexts: it cannot be combined with several contexts")
	}
	switch o.Output {
	case "", "json", "yaml":
	default:
		return fmt.Errorf("-o/--output must be json or yaml (or absent, for a table), got %q", o.Output)
	}
	byContext := o.GroupBy == fleet.ContextIndex
	sel, err := targets.New(o.configFlags, f.allContexts, true)
	if err != nil {
		return err
	}
	ctx, stop := interruptible(cmd.Context())
	defer stop()
	names := make([]string, len(sel.Targets))
	for i, t := range sel.Targets {
		names[i] = t.Name
	}
	progress := newFleetProgress(o.ErrOut, names)
	results := targets.Run(ctx, sel.Targets, fleetDeadline(o.SyncTimeout), func(ctx context.Context, t targets.Target) (a *fleetCapacityAnswer, err error) {
		name := t.Name
		defer func() { progress.done(name, err) }()
		a = &fleetCapacityAnswer{stderr: &lockedWriter{w: &bytes.Buffer{}}}
		co := *o
		co.configFlags = t.ConfigFlags
		co.engines = directEngines{}
		co.IOStreams = genericiooptions.IOStreams{In: o.In, Out: io.Discard, ErrOut: a.stderr}
		if o.Output == "" {
			co.SortBy, co.Top = "", 0 // the merged table is sorted and cut
		}
		if byContext {
			co.GroupBy = ""
		}
		if err := co.Complete(cmd, args); err != nil {
			return a, err
		}
		if err := co.Validate(); err != nil {
			return a, err
		}
		if progress != nil {
			co.config.Progress = progress.engineProgress(name)
		}
		c, err := co.collectCapacity(ctx, name, byContext)
		a.table = c.table
		if err == nil && o.Output != "" {
			a.object, err = co.capacityItem(c)
		}
		return a, err
	})
	progress.end()
	failed := 0
	for _, name := range sel.Missing {
		failed++
		fmt.Fprintf(o.ErrOut, "error: context %s: not in the kubeconfig\n", name)
	}
	var tables []fleet.ContextTable
	var list fleetList
	for _, r := range results {
		if r.Value != nil {
			(&targetAnswer{name: r.Target.Name, stderr: r.Value.stderr}).flushStderr(o.ErrOut)
		}
		if r.Err != nil {
			failed++
			fmt.Fprintf(o.ErrOut, "error: context %s: %v\n", r.Target.Name, r.Err)
			continue
		}
		tables = append(tables, fleet.ContextTable{Context: r.Target.Name, Table: r.Value.table})
		list.add(r.Target.Name, r.Value.object)
	}
	if o.Output != "" {
		if err := list.write(o.Out, o.Output, &printers.JSONPrinter{}); err != nil {
			return err
		}
	} else if len(tables) > 0 {
		table := fleet.MergeCapacity(tables, !byContext && o.GroupBy == "")
		if o.SortBy != "" {
			keyWidth := 1
			if !byContext && o.GroupBy == "" {
				keyWidth = 2
			}
			col, ok := table.Column(o.SortBy)
			if !ok {
				return fmt.Errorf("--sort-by %s: capacity has no such column; columns are %s", o.SortBy, strings.Join(table.Columns, ", "))
			}
			if err := table.SortBy(o.SortBy, col >= keyWidth); err != nil {
				return err
			}
		}
		table.Top(o.Top)
		header, rows := table.Strings()
		if err := writeTable(o.Out, header, rows, o.NoHeaders); err != nil {
			return err
		}
	}
	if failed > 0 {
		return &targets.PartialError{Failed: failed, Total: sel.Total()}
	}
	return nil
}

// fleetCapacityAnswer is one context's capacity table and what it wrote on
// stderr.
type fleetCapacityAnswer struct {
	table aggregate.Table
	// object is the context's capacity object, for -o json|yaml.
	object interface{}
	stderr *lockedWriter // over a *bytes.Buffer
}

// contextCapacity is what one context's capacity counted.
type contextCapacity struct {
	table      aggregate.Table
	usage      *aggregate.UsageByNode
	nodesKnown bool
}

// capacityItem returns c as the object capacity -o json prints in that
// context: the table sorted and cut as Run does, printed by
// printCapacityObject and read back.
func (o *CapacityOptions) capacityItem(c contextCapacity) (interface{}, error) {
	if o.SortBy != "" {
		col, _ := c.table.Column(o.SortBy)
		if err := c.table.SortBy(o.SortBy, col > 0); err != nil {
			return nil, err
		}
	}
	c.table.Top(o.Top)
	var b bytes.Buffer
	co := *o
	co.Out, co.Output = &b, "json"
	if err := co.printCapacityObject(c.table, c.usage, c.nodesKnown); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(&b)
	dec.UseNumber()
	var item interface{}
	if err := dec.Decode(&item); err != nil {
		return nil, fmt.Errorf("reading the capacity object back: %w", err)
	}
	return item, nil
}

// collectCapacity does what Run does up to the table, for context name of
// a fleet capacity: with byContext, every node of the context is in one
// group, the context's name.
func (o *CapacityOptions) collectCapacity(ctx context.Context, name string, byContext bool) (contextCapacity, error) {
	mappings, err := o.resolve("pods,nodes")
	if err != nil {
		return contextCapacity{}, err
	}
	nodesKnown := true
	if reason := o.nodesDenied(ctx, mappings[1]); reason != "" {
		if o.groupBy != nil || byContext || o.LabelSelector != "" {
			return contextCapacity{}, fmt.Errorf("--group-by and -l need the nodes, which you may not list: %s", reason)
		}
		fmt.Fprintf(o.ErrOut, "warning: you may not list nodes (%s); printing requests and limits without allocatable\n", reason)
		mappings, nodesKnown = mappings[:1], false
	}
	engine, err := cache.New(o.source, mappings, o.config)
	if err != nil {
		return contextCapacity{}, err
	}
	defer engine.Shutdown()
	if err := startEngine(ctx, engine); err != nil {
		return contextCapacity{}, err
	}
	pods := engine.Types()[0]
	var nodes []*corev1.Node
	usage := aggregate.NewUsageByNode()
	if nodesKnown {
		if nodes, err = o.selectedNodes(engine.Types()[1]); err != nil {
			return contextCapacity{}, err
		}
		err = o.addPodsOf(usage, pods, nodes)
	} else {
		var all []interface{}
		if all, err = pods.Lookup(nil); err == nil {
			err = addAll(usage, all)
		}
	}
	if err != nil {
		return contextCapacity{}, err
	}
	c := contextCapacity{usage: usage, nodesKnown: nodesKnown}
	if !byContext {
		c.table, err = o.capacityTable(usage, nodes, nodesKnown)
		return c, err
	}
	opts := o.capacityOptions(nodes, nodesKnown)
	opts.GroupBy = fleet.ContextIndex
	opts.GroupValue = func(*corev1.Node) string { return name }
	c.table, err = aggregate.Capacity(usage, opts)
	return c, err
}
