package mcp

import (
	"context"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/targets"
)

// allContexts is the context argument that selects every context of the
// kubeconfig.
const allContexts = "all"

// selectContexts returns the targets value names: "" is the kubeconfig's
// current context (or the server's --context), "all" every context, and
// otherwise names and shell-style patterns joined by commas (targets.New).
// A plain name missing from the kubeconfig is in the set's Missing, a
// failure of its own; a pattern that matches nothing is an error of the
// whole call. Each target's ConfigFlags are the same value for every call
// (contextFlags). Nothing here reads a cluster.
func (s *Server) selectContexts(value string) (targets.Set, error) {
	cf := s.opts.ConfigFlags
	if value == "" {
		set, err := targets.New(cf, false, false)
		if err == nil {
			set.Targets[0].ConfigFlags = s.contextFlags(set.Targets[0].Name, cf)
		}
		return set, err
	}
	if identity := targets.IdentityFlags(cf); len(identity) > 0 {
		return targets.Set{}, fmt.Errorf("context %q: the server was started with %v, which fix one identity; leave context empty", value, identity)
	}
	all := value == allContexts
	if all {
		value = ""
	}
	set, err := targets.New(targets.ForContext(cf, value), all, true)
	for i, t := range set.Targets {
		set.Targets[i].ConfigFlags = s.contextFlags(t.Name, nil)
	}
	return set, err
}

// contextFlags returns the ConfigFlags of context name, the same value for
// every call so that its discovery cache is shared: own when given (the
// server's own flags, for the default context), else ForContext.
func (s *Server) contextFlags(name string, own *genericclioptions.ConfigFlags) *genericclioptions.ConfigFlags {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cf, ok := s.flags[name]; ok {
		return cf
	}
	cf := own
	if cf == nil {
		cf = targets.ForContext(s.opts.ConfigFlags, name)
	}
	s.flags[name] = cf
	return cf
}

// eachContext answers each target of set in parallel (targets.Run: at
// most targets.MaxParallel at once, a panic a context's failure, every
// call returned before it returns), in the order of the set, its missing
// contexts last; a missing context, and one whose answer failed
// outright, gets failed's answer.
func eachContext[T any](ctx context.Context, set targets.Set, answer func(ctx context.Context, t targets.Target) T, failed func(name string, err error) T) []T {
	results := targets.Run(ctx, set.Targets, 0, func(ctx context.Context, t targets.Target) (T, error) {
		return answer(ctx, t), nil
	})
	out := make([]T, 0, set.Total())
	for _, r := range results {
		if r.Err != nil {
			out = append(out, failed(r.Target.Name, r.Err))
			continue
		}
		out = append(out, r.Value)
	}
	for _, name := range set.Missing {
		out = append(out, failed(name, fmt.Errorf("context %q is not in the kubeconfig", name)))
	}
	return out
}

// ContextResult is what each context's answer of a tool has: the
// context, and why it has no answer.
type ContextResult struct {
	Context string `json:"context"`
	// Error says why the context has no answer.
	Error string `json:"error,omitempty"`
}

func (r ContextResult) errorText() string { return r.Error }

// of makes r context name's, failed with err when it is not nil.
func (r *ContextResult) of(name string, err error) {
	r.Context = name
	if err != nil {
		r.Error = err.Error()
	}
}

// contextAnswer is one context's answer of a tool, A itself, which embeds
// a ContextResult.
type contextAnswer[A any] interface {
	cuttable[A]
	errorText() string
}

// answerContexts answers a tool call about the contexts value names
// (selectContexts), each in parallel (eachContext, answer), its result
// made by toolResult.
func answerContexts[A contextAnswer[A], PA interface {
	*A
	of(name string, err error)
}](ctx context.Context, s *Server, value, what string, answer func(context.Context, targets.Target) A, text func(ContextAnswers[A]) string) (*sdk.CallToolResult, ContextAnswers[A], error) {
	set, err := s.selectContexts(value)
	if err != nil {
		return nil, ContextAnswers[A]{}, err
	}
	answers := eachContext(ctx, set, func(ctx context.Context, t targets.Target) A {
		a := answer(ctx, t)
		PA(&a).of(t.Name, nil)
		return a
	}, func(name string, err error) A {
		var a A
		PA(&a).of(name, err)
		return a
	})
	return toolResult(s, answers, what, text)
}

// ContextAnswers is a tool's answer of one entry per context.
type ContextAnswers[A any] struct {
	Contexts []A `json:"contexts"`
	// Cut is set when items (rows, lines) were left out to fit the
	// budget.
	Cut *Cut `json:"cut,omitempty"`
}

// toolResult is the result of answers, cut to the budget (fitAnswers:
// what names the items), with text its text form; a tool error when
// every answer failed.
func toolResult[A contextAnswer[A]](s *Server, answers []A, what string, text func(ContextAnswers[A]) string) (*sdk.CallToolResult, ContextAnswers[A], error) {
	out, textForm := fitAnswers(s.opts.MaxResultTokens, answers, what, func(cut []A, c *Cut) (ContextAnswers[A], string) {
		out := ContextAnswers[A]{Contexts: cut, Cut: c}
		return out, text(out)
	})
	failed := len(answers) > 0
	for _, a := range answers {
		failed = failed && a.errorText() != ""
	}
	return &sdk.CallToolResult{IsError: failed, Content: []sdk.Content{&sdk.TextContent{Text: textForm}}}, out, nil
}

// namespaceScope returns the namespace a call about t reads ("" for all)
// and how its answer says so: all namespaces, the one asked, or the
// context's default, with how to widen it.
func namespaceScope(t targets.Target, namespace string, all bool) (string, string, error) {
	switch {
	case all:
		return "", "all namespaces", nil
	case namespace != "":
		return namespace, "namespace " + namespace, nil
	}
	ns, _, err := t.ConfigFlags.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return "", "", fmt.Errorf("reading the context's namespace: %w", err)
	}
	return ns, "namespace " + ns + " (the context's default; set namespace or allNamespaces to widen)", nil
}
