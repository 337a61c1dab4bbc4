package mcp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/printing"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/targets"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/tree"
)

// TreeInput is the tree tool's arguments: the tree command's.
type TreeInput struct {
	Context       string   `json:"context,omitempty" jsonschema:"kubeconfig context: a name, names joined by commas, a shell-style pattern such as prod-*, or all; empty is the current context"`
	Roots         []string `json:"roots" jsonschema:"the roots as TYPE/NAME (deployment/web, pod/web-5d9c7-x2x4z, configmap/app-config), or one TYPE alone with labelSelector"`
	Namespace     string   `json:"namespace,omitempty" jsonschema:"the roots' namespace; empty is the context's default namespace unless allNamespaces"`
	AllNamespaces bool     `json:"allNamespaces,omitempty" jsonschema:"look for the roots in every namespace (roots named by TYPE alone)"`
	LabelSelector string   `json:"labelSelector,omitempty" jsonschema:"pick the roots among every object of TYPE, as kubectl -l does"`
	Direction     string   `json:"direction,omitempty" jsonschema:"down (default): what each root owns, recursively (a Service: the pods it selects); up: the chain of controllers from each root to the top-most; refs: what each root uses and what uses it (ConfigMaps, Secrets, ServiceAccounts, claims, Services, role bindings)"`
	Types         []string `json:"types,omitempty" jsonschema:"with down: the types to follow, e.g. [\"replicasets.apps\", \"pods\"]; default the types built-in controllers own"`
}

// TreeOutput is the tree tool's answer: one entry per context.
type TreeOutput = ContextAnswers[TreeAnswer]

// TreeAnswer is one context's trees, or why it has none.
type TreeAnswer struct {
	ContextResult
	// NamespaceScope says where the roots were looked for.
	NamespaceScope string `json:"namespaceScope,omitempty"`
	// Lines are the trees' objects in depth-first order, each root (depth
	// 0) followed by its subtree; prefix draws the tree.
	Lines []tree.Line `json:"lines,omitempty"`
	// TotalLines is how many lines there are before the budget.
	TotalLines int      `json:"totalLines"`
	Warnings   []string `json:"warnings,omitempty"`
}

// tree answers the tree tool.
func (s *Server) tree(ctx context.Context, _ *sdk.CallToolRequest, in TreeInput) (*sdk.CallToolResult, TreeOutput, error) {
	if len(in.Roots) == 0 {
		return nil, TreeOutput{}, fmt.Errorf("roots is required: TYPE/NAME, e.g. [\"deployment/web\"]")
	}
	switch in.Direction {
	case "", "down", "up", "refs":
	default:
		return nil, TreeOutput{}, fmt.Errorf("direction must be down, up or refs, got %q", in.Direction)
	}
	if len(in.Types) > 0 && in.Direction != "" && in.Direction != "down" {
		return nil, TreeOutput{}, fmt.Errorf("types lists the types followed down; direction %s follows %s", in.Direction, map[string]string{"up": "controllers", "refs": "references"}[in.Direction])
	}
	return answerContexts(ctx, s, in.Context, "lines", func(ctx context.Context, t targets.Target) TreeAnswer {
		return s.treeContext(ctx, t, in)
	}, func(out TreeOutput) string { return treeText(out, in.Direction == "refs") })
}

func (a TreeAnswer) size() (longest, count int) { return len(a.Lines), len(a.Lines) }

func (a TreeAnswer) take(k int) TreeAnswer {
	a.Lines = a.Lines[:min(k, len(a.Lines))]
	return a
}

// treeContext answers in for one context with the tree command's code
// over the context's warm engines.
func (s *Server) treeContext(ctx context.Context, t targets.Target, in TreeInput) TreeAnswer {
	a := TreeAnswer{}
	fail := func(err error) TreeAnswer {
		a.Error = err.Error()
		return a
	}
	namespace, scope, err := namespaceScope(t, in.Namespace, in.AllNamespaces)
	if err != nil {
		return fail(err)
	}
	a.NamespaceScope = scope
	env, err := s.warmEnv(t)
	if err != nil {
		return fail(err)
	}
	var errOut bytes.Buffer
	o := tree.NewTreeOptions(nil, genericiooptions.IOStreams{Out: io.Discard, ErrOut: &errOut})
	o.EngineOptions = env.Options(namespace, s.opts.SyncTimeout)
	o.AllNamespaces, o.LabelSelector, o.Up, o.Refs, o.Types = in.AllNamespaces, in.LabelSelector, in.Direction == "up", in.Direction == "refs", in.Types
	lines, err := o.AnswerWarm(ctx, t.Name, in.Roots)
	a.Warnings = nonEmptyLines(errOut.String())
	if err != nil {
		return fail(err)
	}
	a.Lines, a.TotalLines = lines, len(lines)
	return a
}

// treeText is the compact text form of out: per context, the trees as
// the tree command draws them.
func treeText(out TreeOutput, refs bool) string {
	var b strings.Builder
	for _, a := range out.Contexts {
		if a.Error != "" {
			fmt.Fprintf(&b, "context %s: error: %s\n", a.Context, a.Error)
			continue
		}
		fmt.Fprintf(&b, "context %s, %s:\n", a.Context, a.NamespaceScope)
		if len(a.Lines) == 0 && a.TotalLines == 0 {
			b.WriteString("no roots matched\n")
		}
		if header, rows := tree.Table(a.Lines, refs); len(rows) > 0 {
			_ = printing.WriteTable(&b, header, rows, false)
		}
		if len(a.Lines) < a.TotalLines {
			fmt.Fprintf(&b, "(%d of %d lines)\n", len(a.Lines), a.TotalLines)
		}
		for _, w := range a.Warnings {
			fmt.Fprintf(&b, "warning: %s\n", w)
		}
	}
	if out.Cut != nil {
		fmt.Fprintf(&b, "CUT: %s; to narrow: name fewer roots, or follow fewer types (types)\n", out.Cut.Reason)
	}
	return b.String()
}
