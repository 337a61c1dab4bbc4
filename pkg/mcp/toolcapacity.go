package mcp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/capacity"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/printing"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/targets"
)

// CapacityInput is the capacity tool's arguments: the capacity command's
// flags.
type CapacityInput struct {
	Context       string   `json:"context,omitempty" jsonschema:"kubeconfig context: a name, names joined by commas, a shell-style pattern such as prod-*, or all; empty is the current context"`
	Namespace     string   `json:"namespace,omitempty" jsonschema:"only the pods of this namespace count; empty counts the pods of every namespace (capacity is about nodes, which every namespace fills)"`
	LabelSelector string   `json:"labelSelector,omitempty" jsonschema:"label selector on nodes: only the nodes it selects, and their pods, count"`
	GroupBy       string   `json:"groupBy,omitempty" jsonschema:"add up the nodes sharing a value of this node index, e.g. label:topology.kubernetes.io/zone; empty is a row per node"`
	Sums          []string `json:"sums,omitempty" jsonschema:"more resources besides pods, cpu and memory: requests.RESOURCE or limits.RESOURCE, e.g. requests.nvidia.com/gpu"`
	Resources     []string `json:"resources,omitempty" jsonschema:"extended resources to show requested, allocatable and free (allocatable minus requested) per node, e.g. nvidia.com/gpu, or globs such as nvidia.com/mig-*; nodes without the resource show 0"`
	Usage         bool     `json:"usage,omitempty" jsonschema:"add what is used, from the metrics API (kubectl top's source), each a share of allocatable: usage.cpu and usage.memory are the node's own usage, pods.usage.cpu and pods.usage.memory its pods' summed"`
	SortBy        string   `json:"sortBy,omitempty" jsonschema:"a column, e.g. requests.cpu, pods or nvidia.com/gpu.free: numbers and percentages largest first, names in natural order; default by name"`
	Top           int      `json:"top,omitempty" jsonschema:"only the first N rows (after sortBy); the total counts every node"`
}

// CapacityOutput is the capacity tool's answer: one entry per context.
type CapacityOutput = ContextAnswers[CapacityAnswer]

// CapacityAnswer is one context's capacity, or why it has none.
type CapacityAnswer struct {
	ContextResult
	// NamespaceScope says whose pods were counted.
	NamespaceScope string `json:"namespaceScope,omitempty"`
	// GroupBy is "node", or the node index rows are groups of.
	GroupBy string `json:"groupBy,omitempty"`
	// NodesListed is false when nodes could not be listed: no
	// allocatable and no percentages then.
	NodesListed bool `json:"nodesListed"`
	// Columns are the keys of each row: the node or group, then pods,
	// requests and limits.
	Columns []string `json:"columns,omitempty"`
	// Rows have the node's (or group's) name under its first column, the
	// number of nodes of a group under nodes, and per resource a share:
	// used, allocatable and percent (allocatable and percent when known).
	Rows []map[string]any `json:"rows,omitempty"`
	// Total adds up every node, the rows cut included.
	Total map[string]any `json:"total,omitempty"`
	// TotalRows is how many rows there are before top and the budget.
	TotalRows int `json:"totalRows"`
	// UnscheduledPods and TerminalPods were counted on no node.
	UnscheduledPods int64    `json:"unscheduledPods"`
	TerminalPods    int64    `json:"terminalPods"`
	Warnings        []string `json:"warnings,omitempty"`
}

// capacity answers the capacity tool from each context's warm engines.
func (s *Server) capacity(ctx context.Context, _ *sdk.CallToolRequest, in CapacityInput) (*sdk.CallToolResult, CapacityOutput, error) {
	return answerContexts(ctx, s, in.Context, "rows", func(ctx context.Context, t targets.Target) CapacityAnswer {
		return s.capacityContext(ctx, t, in)
	}, capacityText)
}

func (a CapacityAnswer) size() (longest, count int) { return len(a.Rows), len(a.Rows) }

func (a CapacityAnswer) take(k int) CapacityAnswer {
	a.Rows = a.Rows[:min(k, len(a.Rows))]
	return a
}

// capacityContext answers in for one context with the capacity command's
// code over the context's warm engines.
func (s *Server) capacityContext(ctx context.Context, t targets.Target, in CapacityInput) CapacityAnswer {
	a := CapacityAnswer{NamespaceScope: "the pods of all namespaces; nodes are cluster-scoped"}
	if in.Namespace != "" {
		a.NamespaceScope = "the pods of namespace " + in.Namespace + " (set no namespace to count every namespace's)"
	}
	env, err := s.warmEnv(t)
	if err != nil {
		a.Error = err.Error()
		return a
	}
	var errOut bytes.Buffer
	o := capacity.NewCapacityOptions(nil, genericiooptions.IOStreams{Out: io.Discard, ErrOut: &errOut})
	o.EngineOptions = env.Options(in.Namespace, s.opts.SyncTimeout)
	o.AllNamespaces, o.LabelSelector, o.GroupBy, o.Sums, o.Resources = in.Namespace == "", in.LabelSelector, in.GroupBy, in.Sums, in.Resources
	o.Usage, o.SortBy, o.Top = in.Usage, in.SortBy, in.Top
	obj, rows, err := o.AnswerWarm(ctx, t.Name)
	a.Warnings = nonEmptyLines(errOut.String())
	if err != nil {
		a.Error = err.Error()
		return a
	}
	a.GroupBy, a.NodesListed, a.Columns, a.TotalRows = obj.GroupBy, obj.NodesListed, obj.Columns, rows
	a.Rows, a.Total = obj.Rows, obj.Total
	a.UnscheduledPods, a.TerminalPods = obj.UnscheduledPods, obj.TerminalPods
	return a
}

// capacityText is the compact text form of out: per context, a table
// whose shares read used/allocatable (percent).
func capacityText(out CapacityOutput) string {
	var b strings.Builder
	for _, a := range out.Contexts {
		if a.Error != "" {
			fmt.Fprintf(&b, "context %s: error: %s\n", a.Context, a.Error)
			continue
		}
		fmt.Fprintf(&b, "context %s, %s:\n", a.Context, a.NamespaceScope)
		header := make([]string, len(a.Columns))
		for i, c := range a.Columns {
			header[i] = strings.ToUpper(c)
		}
		rows := make([][]string, 0, len(a.Rows)+1)
		for _, r := range append(a.Rows[:len(a.Rows):len(a.Rows)], a.Total) {
			row := make([]string, len(a.Columns))
			for i, c := range a.Columns {
				row[i] = cellText(r[c])
			}
			rows = append(rows, row)
		}
		_ = printing.WriteTable(&b, header, rows, false)
		if len(a.Rows) < a.TotalRows {
			fmt.Fprintf(&b, "(%d of %d rows)\n", len(a.Rows), a.TotalRows)
		}
		if a.UnscheduledPods > 0 || a.TerminalPods > 0 {
			fmt.Fprintf(&b, "%d pods unscheduled, %d terminated, on no node\n", a.UnscheduledPods, a.TerminalPods)
		}
		for _, w := range a.Warnings {
			fmt.Fprintf(&b, "warning: %s\n", w)
		}
	}
	if out.Cut != nil {
		fmt.Fprintf(&b, "CUT: %s; to narrow: groupBy a node label, labelSelector, sortBy and top\n", out.Cut.Reason)
	}
	return b.String()
}

// cellText is one cell of the text form: a name or number as it is, a
// share as used/allocatable (percent%).
func cellText(v any) string {
	share, ok := v.(capacity.Share)
	if !ok {
		return fmt.Sprint(v)
	}
	text := fmt.Sprint(share.Used)
	if share.Allocatable != nil {
		text += "/" + fmt.Sprint(share.Allocatable)
	}
	if share.Percent != nil {
		text += fmt.Sprintf(" (%d%%)", *share.Percent)
	}
	return text
}
