// Package capacity is the capacity command: pods' requests and limits per
// node (or per group of nodes) against the nodes' allocatable, for one
// context or several on one path (CapacityOptions.Run): the flags are
// completed once, each target only connects. A target's answer is data
// (capacityAnswer).
package capacity

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/klog/v2"

	"github.com/kubectl-informer/kubectl-informer/pkg/aggregate"
	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/fleet"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/cmdutil"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/completion"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/targets"
)

const capacityExample = `  # Requests and limits of every node against its allocatable
  kubectl informer capacity

  # Added up per zone, or per instance type
  kubectl informer capacity --group-by label:topology.kubernetes.io/zone
  kubectl informer capacity --group-by label:node.kubernetes.io/instance-type

  # Only the pods of one namespace, on the worker nodes, fullest CPU first
  kubectl informer capacity -n shop -l node-role.kubernetes.io/worker --sort-by requests.cpu

  # What the nodes and their pods use (the metrics API) beside what the pods request, per zone
  kubectl informer capacity --usage --group-by label:topology.kubernetes.io/zone

  # GPUs too, as JSON for scripts
  kubectl informer capacity --sum requests.nvidia.com/gpu --sum limits.nvidia.com/gpu -o json

  # GPUs requested, allocatable and free per node, MIG slices too; nodes without GPUs show 0
  kubectl informer capacity --resource nvidia.com/gpu --resource 'nvidia.com/mig-*'

  # A column per NVIDIA resource the pods request
  kubectl informer capacity --sum 'requests.nvidia.com/*'`

// podNodeIndex is the index by which capacity reads each node's pods.
var podNodeIndex = aggregate.PodAllocationNodeIndex.Name

// CapacityOptions are the options of kubectl informer capacity.
type CapacityOptions struct {
	engines.EngineOptions

	// GroupBy is --group-by: an index of nodes (label:KEY) that adds up
	// the nodes sharing its value; "" prints a row per node.
	GroupBy string
	// Sums are the --sum measures (requests.RESOURCE, limits.RESOURCE, or
	// globs of RESOURCE), not yet parsed.
	Sums []string
	// Resources are the --resource names or globs of extended resources.
	Resources []string
	// Usage is --usage: columns of what the nodes and their pods use,
	// from the metrics API.
	Usage     bool
	Output    string
	NoHeaders bool
	SortBy    string
	Top       int

	genericiooptions.IOStreams

	// contexts are the flags that select contexts besides --context.
	contexts *targets.Flags

	// Set by Complete: the question, the same for every target, and the
	// targets it is asked of.
	nodeSelector labels.Selector
	groupBy      *index.Definition
	// byContext is --group-by context: each target's nodes are one group,
	// its context.
	byContext bool
	measures  []aggregate.Measure
	targets   targets.Set
}

// NewCapacityOptions returns CapacityOptions with defaults.
func NewCapacityOptions(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *CapacityOptions {
	return &CapacityOptions{EngineOptions: engines.EngineOptions{ConfigFlags: configFlags, Engines: engines.DirectEngines{}}, IOStreams: streams, contexts: &targets.Flags{}}
}

// NewCmdCapacity returns the capacity command.
func NewCmdCapacity(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := NewCapacityOptions(configFlags, streams)
	cmd := &cobra.Command{
		Use:   "capacity [flags]",
		Short: "Print the requests and limits of pods per node against the nodes' allocatable",
		Long: `Start shared informers for nodes and pods, wait until both caches have synced, and print per
node (or per group of nodes) the pods bound there as count/allocatable, and the CPU and memory
requests and limits, each with its percentage of the node's allocatable, and a TOTAL row.

A pod's requests and limits are counted as kube-scheduler counts them: the larger of its app
containers' sum (sidecars included) and its largest init container, pod-level resources when set,
plus pod overhead; Succeeded and Failed pods count for nothing, pending pods have no node.

--resource NAME adds three columns for an extended resource such as nvidia.com/gpu: requested,
allocatable, and free (allocatable minus requested); a node without the resource is listed with 0.
--usage adds what is used, from the metrics API as kubectl top reads it, each a share of
allocatable: the node's own usage (usage.cpu, usage.memory: NodeMetrics, everything on the node,
as kube-capacity --util prints a node) and its pods' summed (pods.usage.cpu, pods.usage.memory:
PodMetrics, as kube-capacity --util --pods prints each pod); CPU in millicores rounded up. The
sample's age is said once on stderr; without the metrics API, kubectl top's message, and the
usage cells are blank.
--resource and --sum take globs on the resource name ('nvidia.com/mig-*', 'requests.nvidia.com/*'):
a column per matching resource the pods (or, for --resource, the nodes) have, sorted by name; a
glob that matches nothing adds no column and says so on stderr.

Pods of every namespace count unless -n is given. -l selects nodes. Without permission to list
nodes, capacity says so on stderr and prints the requests and limits per node without
allocatable ("?" percentages).`,
		Example: capacityExample,
		Args:    cobra.NoArgs,
		RunE:    cmdutil.RunE(o),
	}
	cmd.Flags().BoolVarP(&o.AllNamespaces, "all-namespaces", "A", false, "Count the pods of every namespace (the default unless -n is given).")
	cmd.Flags().StringVarP(&o.LabelSelector, "selector", "l", "", "Selector (label query) on nodes: only the nodes it selects, and the pods bound to them, are counted. (e.g. -l node-role.kubernetes.io/worker)")
	cmd.Flags().DurationVar(&o.SyncTimeout, "sync-timeout", 60*time.Second, "How long to wait for API discovery, and then for every cache to sync, before giving up.")
	cmd.Flags().StringVar(&o.GroupBy, "group-by", "", "Add up the nodes that share a value of this node index, e.g. label:topology.kubernetes.io/zone or label:node.kubernetes.io/instance-type.")
	cmd.Flags().StringArrayVar(&o.Sums, "sum", nil, "Add a column for another resource (repeatable): requests.RESOURCE or limits.RESOURCE, e.g. requests.nvidia.com/gpu or requests.ephemeral-storage; a glob such as 'requests.nvidia.com/*' adds a column per matching resource the pods have.")
	cmd.Flags().StringArrayVar(&o.Resources, "resource", nil, "Add columns requested, allocatable and free (allocatable minus requested) for a resource (repeatable), e.g. nvidia.com/gpu, or a glob such as 'nvidia.com/mig-*' for every matching resource the nodes or pods have. Nodes without the resource show 0.")
	cmd.Flags().BoolVar(&o.Usage, "usage", false, "Add columns of usage from the metrics API (kubectl top's source), each a share of allocatable: usage.cpu and usage.memory, the node's own (NodeMetrics, everything on the node), and pods.usage.cpu and pods.usage.memory, its pods' summed (PodMetrics). Blank, with kubectl top's message, when the metrics API is not available.")
	cmd.Flags().StringVarP(&o.Output, "output", "o", "", "Output format: a table (default), json or yaml (quantities, allocatable and percentages per row).")
	cmd.Flags().BoolVar(&o.NoHeaders, "no-headers", false, "Don't print headers.")
	cmd.Flags().StringVar(&o.SortBy, "sort-by", "", "Sort the rows by a printed column, e.g. requests.cpu, \"cpu requests\", pods or node: percentages and numbers sort largest first, names in natural order. Default: by name.")
	cmd.Flags().IntVar(&o.Top, "top", 0, "Print only the first N rows (after --sort-by); 0 prints them all. The TOTAL row counts every node.")
	cmd.ValidArgsFunction = cobra.NoFileCompletions
	// RegisterFlagCompletionFunc fails only for an unknown flag or a second
	// registration, programming errors the tests would catch.
	_ = cmd.RegisterFlagCompletionFunc("group-by", completion.CompleteIndexName)
	_ = cmd.RegisterFlagCompletionFunc("output", completion.CompleteChoices("json", "yaml"))
	o.contexts = targets.AddFlags(cmd)
	o.EngineOptions.AddCacheFlags(cmd)
	engines.AddFromFlags(cmd, o, &o.EngineOptions, nil)
	return cmd
}

// Complete parses the flags and names the targets (several with
// --group-by context), once for every target; it sends no request.
func (o *CapacityOptions) Complete(cmd *cobra.Command, args []string) error {
	o.byContext = o.GroupBy == fleet.ContextIndex
	var err error
	if o.targets, err = o.contexts.Targets(o.ConfigFlags, o.byContext); err != nil {
		return err
	}
	// Pods of every namespace unless -n names one: capacity is about nodes,
	// which the pods of every namespace fill.
	if !cmd.Flags().Changed("namespace") {
		o.AllNamespaces = true
	}
	return o.completeQuestion()
}

// completeQuestion builds the question from the flags, the same for every
// target; it sends no request.
func (o *CapacityOptions) completeQuestion() error {
	if err := o.CompleteFlags(); err != nil {
		return err
	}
	var err error
	// -l selects nodes, and is applied to the nodes' cache: pods, which
	// the selector is not about, are listed whole.
	o.Config.LabelSelector = ""
	o.nodeSelector = labels.Everything()
	if o.LabelSelector != "" {
		if o.nodeSelector, err = labels.Parse(o.LabelSelector); err != nil {
			return fmt.Errorf("invalid --selector %q: %w", o.LabelSelector, err)
		}
	}
	if o.GroupBy != "" && !o.byContext {
		def, err := o.IndexSet.Lookup(o.GroupBy)
		if err != nil {
			return fmt.Errorf("--group-by %s: %w", o.GroupBy, err)
		}
		o.groupBy = &def
	}
	if _, o.measures, err = engines.ParseGroups(o.IndexSet, nil, o.Sums); err != nil {
		return err
	}
	for _, r := range o.Resources {
		if err := aggregate.CheckResourcePattern("--resource", r); err != nil {
			return err
		}
	}
	// The pods' cache holds each pod's allocation (aggregate.PodAllocation), not the pod: capacity reads
	// nothing else, and its node index reads the allocation. Shared engines
	// hold whole pods, which the built-in node index reads.
	o.Config.Indexes = []index.Definition{aggregate.PodAllocationNodeIndex}
	if o.Engines.Shared() {
		def, err := o.IndexSet.Lookup(podNodeIndex)
		if err != nil {
			return err
		}
		o.Config.Indexes = []index.Definition{def}
	}
	o.Config.FullObjects = true
	return nil
}

// Validate checks the flags without I/O; its errors name the flag.
func (o *CapacityOptions) Validate() error {
	if err := o.EngineOptions.Validate(); err != nil {
		return err
	}
	switch o.Output {
	case "", "json", "yaml":
	default:
		return fmt.Errorf("-o/--output must be json or yaml (or absent, for a table), got %q", o.Output)
	}
	if o.Top < 0 {
		return fmt.Errorf("--top must be 0 (all rows) or more, got %d", o.Top)
	}
	// Without globs the table's columns do not depend on the cluster:
	// check --sum and --sort-by on an empty one. A glob's columns are
	// known once the pods and nodes are read; --sort-by is checked then.
	cols, unmatched := o.columns(nil)
	table, err := o.capacityTable(nil, nil, true, "", cols)
	if err != nil || len(unmatched) > 0 {
		return err
	}
	return o.sortAndCut(&table, 1)
}

// capacityTable is aggregate.Capacity's table of the target named target,
// its group column headed ZONE for label:topology.kubernetes.io/zone, as
// kubectl get -L heads a label column.
func (o *CapacityOptions) capacityTable(alloc *aggregate.AllocationByNode, nodes []*corev1.Node, nodesKnown bool, target string, cols columns) (aggregate.Table, error) {
	opts := aggregate.CapacityOptions{Nodes: nodes, NodesKnown: nodesKnown, Sums: cols.sums, Resources: cols.resources, UsageColumns: o.Usage}
	if alloc != nil {
		opts.Usage = alloc.Usage
	}
	switch {
	case o.byContext:
		opts.GroupBy = fleet.ContextIndex
		opts.GroupValue = func(*corev1.Node) string { return target }
	case o.groupBy != nil:
		def := *o.groupBy
		opts.GroupBy = def.Name
		opts.GroupValue = func(n *corev1.Node) string { return strings.Join(index.Values(def, n), ",") }
	}
	table, err := aggregate.Capacity(alloc, opts)
	if err != nil {
		return table, err
	}
	if key, ok := strings.CutPrefix(table.Columns[0], "label:"); ok && len(table.Headers) > 0 {
		table.Headers[0] = strings.ToUpper(key[strings.LastIndex(key, "/")+1:])
	}
	return table, nil
}

// nodesDenied lists one node of eo's source (metadata only) to learn
// whether the user may list nodes, and returns why not, or "" when they
// may. Other errors are left to the engine, whose list of nodes reports
// them. It is a read, like every request of the plugin, and asks the real
// question: an access review can be allowed while the list is not.
func nodesDenied(ctx context.Context, eo *engines.EngineOptions, nodes *meta.RESTMapping) string {
	ctx, cancel := context.WithTimeout(ctx, eo.SyncTimeout)
	defer cancel()
	_, err := engine.List(ctx, eo.Source, nodes, "", false, metav1.ListOptions{Limit: 1})
	switch {
	case apierrors.IsForbidden(err):
		return err.Error()
	case err != nil:
		klog.V(2).InfoS("could not check access to nodes", "err", err)
	}
	return ""
}

// selectedNodes returns the cached nodes that -l selects.
func (o *CapacityOptions) selectedNodes(t *engine.Type) ([]*corev1.Node, error) {
	objs, err := t.Lookup(nil)
	if err != nil {
		return nil, err
	}
	var nodes []*corev1.Node
	for _, obj := range objs {
		n, ok := obj.(*corev1.Node)
		if !ok {
			return nil, fmt.Errorf("a cached node is a %T", obj)
		}
		if o.nodeSelector.Matches(labels.Set(n.Labels)) {
			nodes = append(nodes, n)
		}
	}
	return nodes, nil
}

// addPodsOf adds the pods bound to nodes, read through the node index; with
// every node selected, it adds every pod, those bound to a node that is gone
// included.
func (o *CapacityOptions) addPodsOf(alloc *aggregate.AllocationByNode, pods *engine.Type, nodes []*corev1.Node) error {
	if o.nodeSelector.Empty() {
		all, err := pods.Lookup(nil)
		if err != nil {
			return err
		}
		return addAll(alloc, all)
	}
	for _, n := range nodes {
		objs, err := pods.Lookup([]index.Selector{{Name: podNodeIndex, Operator: index.Equals, Values: []string{n.Name}}})
		if err != nil {
			return fmt.Errorf("reading the pods of node %s: %w", n.Name, err)
		}
		if err := addAll(alloc, objs); err != nil {
			return err
		}
	}
	return nil
}

func addAll(alloc *aggregate.AllocationByNode, pods []interface{}) error {
	for _, p := range pods {
		if err := alloc.Add(p); err != nil {
			return err
		}
	}
	return nil
}

// Object is one target's capacity as data, as -o json and -o yaml print
// it: a row per node (or group of nodes) and the totals.
type Object struct {
	// GroupBy is "node", or the --group-by index.
	GroupBy string `json:"groupBy"`
	// NodesListed is false when nodes could not be listed: no allocatable
	// and no percentages then.
	NodesListed bool `json:"nodesListed"`
	// Columns are the table's columns, the keys of each row.
	Columns []string                 `json:"columns"`
	Rows    []map[string]interface{} `json:"rows"`
	Total   map[string]interface{}   `json:"total"`
	// UnscheduledPods and TerminalPods were counted on no node.
	UnscheduledPods int64 `json:"unscheduledPods"`
	TerminalPods    int64 `json:"terminalPods"`
}

// Share is one cell of a row: used, and allocatable and percent when
// known. Pods are integers, other resources quantity strings.
type Share struct {
	Used        interface{} `json:"used"`
	Allocatable interface{} `json:"allocatable,omitempty"`
	Percent     *int64      `json:"percent,omitempty"`
}

// objectOf is a's table as capacity's -o json and -o yaml print it.
func objectOf(a *capacityAnswer) *Object {
	obj := &Object{GroupBy: a.Table.Columns[0], NodesListed: a.NodesListed, Columns: a.Table.Columns,
		Rows: []map[string]interface{}{}, UnscheduledPods: a.UnscheduledPods, TerminalPods: a.TerminalPods}
	for _, r := range a.Table.Rows {
		obj.Rows = append(obj.Rows, capacityRecord(a.Table.Columns, r))
	}
	obj.Total = capacityRecord(a.Table.Columns, a.Table.Total)
	return obj
}

// capacityRecord is one row as a map from column name to cell: the name
// column a string, the nodes column an integer, others shares.
func capacityRecord(columns []string, row []aggregate.Value) map[string]interface{} {
	rec := map[string]interface{}{}
	for i, v := range row {
		if i >= len(columns) {
			break
		}
		col := columns[i]
		switch {
		case i == 0:
			rec[col] = v.Text()
		case col == aggregate.ColumnNodes:
			q := v.Quantity()
			rec[col] = q.Value()
		case v.IsBlank():
			rec[col] = nil
		case v.IsNumber():
			q := v.Quantity()
			rec[col] = q.String()
		default:
			share := Share{}
			used := v.Quantity()
			alloc, known := v.Allocatable()
			if col == aggregate.ColumnPods {
				share.Used = used.Value()
				if known {
					share.Allocatable = alloc.Value()
				}
			} else {
				share.Used = used.String()
				if known {
					share.Allocatable = alloc.String()
				}
			}
			if p, ok := v.Percent(); ok {
				share.Percent = &p
			}
			rec[col] = share
		}
	}
	return rec
}
