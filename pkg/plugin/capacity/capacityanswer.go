package capacity

import (
	"context"
	"fmt"
	"io"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/printers"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/kubectl-informer/kubectl-informer/pkg/aggregate"
	"github.com/kubectl-informer/kubectl-informer/pkg/fleet"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/cmdutil"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/printing"
	pluginprogress "github.com/kubectl-informer/kubectl-informer/pkg/plugin/progress"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/targets"
)

// capacityAnswer is one target's capacity as data: everything the
// printers (a table, -o json, -o yaml) print of it, so that it can travel
// as JSON.
type capacityAnswer struct {
	// Context is the target's context.
	Context string `json:"context"`
	// Table has a row per node (or group of nodes): its pods, requests and
	// limits, each a share of the allocatable when known, and a totals
	// row; not yet sorted or cut.
	Table aggregate.Table `json:"table"`
	// NodesListed is false when nodes could not be listed: no allocatable
	// and no percentages then.
	NodesListed bool `json:"nodesListed"`
	// UnscheduledPods and TerminalPods were counted on no node.
	UnscheduledPods int64 `json:"unscheduledPods"`
	TerminalPods    int64 `json:"terminalPods"`

	// alloc and nodes are what the table is built of, once the columns
	// of every answer are known (tables).
	alloc *aggregate.AllocationByNode
	nodes []*corev1.Node
}

// Run checks in each target whether nodes may be listed, starts the
// informers of pods (and nodes), waits for sync, and prints the answers
// as one (printCapacity). With one target (not set.Several) its error is
// the command's; with several, each failed context is named on stderr
// once, the others are printed, and the error is a *targets.PartialError.
func (o *CapacityOptions) Run(ctx context.Context) error {
	ctx, stop := cmdutil.Interruptible(ctx)
	defer stop()
	set := o.targets
	results := targets.Answer(ctx, set, pluginprogress.Of(o.ErrOut, set), set.Deadline(o.SyncTimeout), o.ErrOut,
		func(ctx context.Context, t targets.Target, errOut io.Writer) (*capacityAnswer, error) {
			a := &capacityAnswer{Context: t.Name}
			return a, o.answer(ctx, t, a, errOut)
		})
	answers, failures, err := targets.Answers(set, results, o.ErrOut)
	if err != nil {
		return err
	}
	if len(answers) > 0 {
		if err := o.tables(answers); err != nil {
			return err
		}
		if err := o.printCapacity(answers, set.Several); err != nil {
			return err
		}
	}
	return failures.Err()
}

// answer counts the capacity of target t into a, with the engine options
// connected to t; its warnings go to errOut.
func (o *CapacityOptions) answer(ctx context.Context, t targets.Target, a *capacityAnswer, errOut io.Writer) error {
	eo := o.EngineOptions
	eo.Notes = errOut
	if err := eo.Connect(t.ConfigFlags); err != nil {
		return err
	}
	mappings, err := eo.Resolve("pods,nodes")
	if err != nil {
		return err
	}
	a.NodesListed = true
	if reason := nodesDenied(ctx, &eo, mappings[1]); reason != "" {
		if o.groupBy != nil || o.byContext || o.LabelSelector != "" {
			return fmt.Errorf("--group-by and -l need the nodes, which you may not list: %s", reason)
		}
		fmt.Fprintf(errOut, "warning: you may not list nodes (%s); printing requests and limits without allocatable\n", reason)
		mappings, a.NodesListed = mappings[:1], false
	}
	cfg := eo.Config
	cfg.Transforms = map[schema.GroupResource]toolscache.TransformFunc{
		{Resource: "pods"}:  aggregate.NewPodAllocationTransform(),
		{Resource: "nodes"}: aggregate.TransformNode,
	}
	cfg.Progress = pluginprogress.FromContext(ctx, pluginprogress.NewProgress(errOut))
	eng, err := eo.Engines.Start(ctx, eo.Source, engines.EngineRequest{Mappings: mappings, Config: cfg, ErrOut: errOut})
	if err != nil {
		return err
	}
	defer eng.Shutdown()
	var nodes []*corev1.Node
	if a.NodesListed {
		if nodes, err = o.selectedNodes(eng.Types()[1]); err != nil {
			return err
		}
	}
	// Without the nodes there is no -l: every pod counts.
	alloc := aggregate.NewAllocationByNode()
	if o.Usage {
		alloc.Usage = eo.ReadUsage(ctx, errOut, true, a.NodesListed)
	}
	if err := o.addPodsOf(alloc, eng.Types()[0], nodes); err != nil {
		return err
	}
	a.UnscheduledPods, a.TerminalPods = alloc.Unscheduled, alloc.Terminal
	a.alloc, a.nodes = alloc, nodes
	return nil
}

// columns are the extra columns of capacity tables: the --sum measures
// and the --resource names, globs expanded.
type columns struct {
	sums      []aggregate.Measure
	resources []corev1.ResourceName
}

// columns expands the globs of --sum against the resources the pods of
// answers request or limit, and those of --resource against the resources
// the pods request and the nodes have, every answer's together, so that
// every context's table has the same columns. unmatched lists the globs
// that matched nothing.
func (o *CapacityOptions) columns(answers []*capacityAnswer) (cols columns, unmatched []string) {
	requested, limited := map[corev1.ResourceName]bool{}, map[corev1.ResourceName]bool{}
	present := map[corev1.ResourceName]bool{}
	for _, a := range answers {
		req, lim := a.alloc.ResourceNames()
		for r := range req {
			requested[r], present[r] = true, true
		}
		for r := range lim {
			limited[r] = true
		}
		for r := range aggregate.AllocatableNames(a.nodes) {
			present[r] = true
		}
	}
	var missed []string
	cols.sums, unmatched = aggregate.ExpandGlobs(o.measures, requested, limited)
	cols.resources, missed = aggregate.ExpandResources(o.Resources, present)
	return cols, append(unmatched, missed...)
}

// tables builds each answer's table with the same columns, and says once
// on stderr which globs matched nothing.
func (o *CapacityOptions) tables(answers []*capacityAnswer) error {
	cols, unmatched := o.columns(answers)
	for _, g := range unmatched {
		fmt.Fprintf(o.ErrOut, "note: %s matches no resource; it adds no column\n", g)
	}
	for _, a := range answers {
		table, err := o.capacityTable(a.alloc, a.nodes, a.NodesListed, a.Context, cols)
		if err != nil {
			return fmt.Errorf("context %s: %w", a.Context, err)
		}
		a.Table = table
	}
	return nil
}

// printCapacity prints the answers: one target's table, or several
// targets' tables merged (fleet.MergeCapacity: a row per node of each
// context, with a first column CONTEXT, or a row per group added up over
// the contexts), sorted by --sort-by and cut to --top. -o json|yaml print
// one target's capacity object, or a v1 List whose items are each
// context's capacity object, as that context alone prints it, and beside
// items the list contexts (printing.ContextsField).
func (o *CapacityOptions) printCapacity(answers []*capacityAnswer, several bool) error {
	if o.Output != "" {
		var list printing.ContextList
		for _, a := range answers {
			if err := o.sortAndCut(&a.Table, 1); err != nil {
				return err
			}
			if !several {
				if err := printing.WriteData(o.Out, o.Output, objectOf(a)); err != nil {
					return fmt.Errorf("encoding the capacity table: %w", err)
				}
				return nil
			}
			item, err := runtime.DefaultUnstructuredConverter.ToUnstructured(objectOf(a))
			if err != nil {
				return fmt.Errorf("context %s: encoding the capacity table: %w", a.Context, err)
			}
			list.Add(a.Context, item)
		}
		return list.Write(o.Out, o.Output, &printers.JSONPrinter{})
	}
	table, keyWidth := answers[0].Table, 1
	if several {
		tables := make([]fleet.ContextTable, len(answers))
		for i, a := range answers {
			tables[i] = fleet.ContextTable{Context: a.Context, Table: a.Table}
		}
		perNode := !o.byContext && o.GroupBy == ""
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

// AnswerWarm answers the capacity the flags of o ask, for a caller
// without a command line, in the target named target, with the capacity
// command's own code: o's engine options are a warm cache's
// (engines.ServeEnv.Options), whose pool it leases for the call. It
// returns the capacity object, its rows sorted by --sort-by and cut to
// --top, and the number of rows before the cut. The API server's warnings
// and capacity's own go to o.ErrOut. It blocks until the pool's informers
// of nodes and pods have synced, or ctx ends.
func (o *CapacityOptions) AnswerWarm(ctx context.Context, target string) (obj *Object, rows int, err error) {
	if err := o.completeQuestion(); err != nil {
		return nil, 0, err
	}
	if err := o.Validate(); err != nil {
		return nil, 0, err
	}
	a := &capacityAnswer{Context: target}
	if err := o.answer(ctx, targets.Target{Name: target, ConfigFlags: o.ConfigFlags}, a, o.ErrOut); err != nil {
		return nil, 0, err
	}
	if err := o.tables([]*capacityAnswer{a}); err != nil {
		return nil, 0, err
	}
	rows = len(a.Table.Rows)
	if err := o.sortAndCut(&a.Table, 1); err != nil {
		return nil, 0, err
	}
	return objectOf(a), rows, nil
}
