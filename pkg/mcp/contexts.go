package mcp

import (
	"context"
	"fmt"

	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/targets"
)

// allContexts is the context argument that selects every context of the
// kubeconfig.
const allContexts = "all"

// contextTarget is one context a tool call asks, with the ConfigFlags that
// build its clients, or the reason it cannot be asked.
type contextTarget struct {
	name        string
	configFlags *genericclioptions.ConfigFlags
	err         error
}

// selectContexts returns the contexts value names: "" is the kubeconfig's
// current context (or the server's --context), "all" every context, and
// otherwise names and shell-style patterns joined by commas. A plain name
// missing from the kubeconfig is a target whose err says so; a pattern
// that matches nothing is an error of the whole call. Nothing here reads
// a cluster.
func (s *Server) selectContexts(value string) ([]contextTarget, error) {
	cf := s.opts.ConfigFlags
	if value == "" || len(targets.IdentityFlags(cf)) > 0 {
		if value != "" {
			return nil, fmt.Errorf("context %q: the server was started with %v, which fix one identity; leave context empty", value, targets.IdentityFlags(cf))
		}
		set, err := targets.New(cf, false, false)
		if err != nil {
			return nil, err
		}
		t := set.Targets[0]
		return []contextTarget{{name: t.Name, configFlags: s.contextFlags(t.Name, t.ConfigFlags)}}, nil
	}
	raw, err := cf.ToRawKubeConfigLoader().RawConfig()
	if err != nil {
		return nil, fmt.Errorf("reading the kubeconfig: %w", err)
	}
	available := make([]string, 0, len(raw.Contexts))
	for name := range raw.Contexts {
		available = append(available, name)
	}
	all := value == allContexts
	if all {
		value = ""
	}
	sel, err := targets.Select(available, value, all)
	if err != nil {
		return nil, err
	}
	out := make([]contextTarget, 0, len(sel.Names)+len(sel.Missing))
	for _, name := range sel.Names {
		out = append(out, contextTarget{name: name, configFlags: s.contextFlags(name, nil)})
	}
	for _, name := range sel.Missing {
		out = append(out, contextTarget{name: name, err: fmt.Errorf("context %q is not in the kubeconfig", name)})
	}
	return out, nil
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

// eachContext answers each of ts in parallel (targets.Run: at most
// targets.MaxParallel at once, a panic a context's failure, every call
// returned before it returns), in the order of ts; a context that failed
// to be selected, and one whose answer failed outright, gets failed's
// answer.
func eachContext[T any](ctx context.Context, ts []contextTarget, answer func(ctx context.Context, t contextTarget) T, failed func(name string, err error) T) []T {
	out := make([]T, len(ts))
	var run []targets.Target
	var at []int
	for i, t := range ts {
		if t.err != nil {
			out[i] = failed(t.name, t.err)
			continue
		}
		run = append(run, targets.Target{Name: t.name, ConfigFlags: t.configFlags})
		at = append(at, i)
	}
	results := targets.Run(ctx, run, 0, func(ctx context.Context, t targets.Target) (T, error) {
		return answer(ctx, contextTarget{name: t.Name, configFlags: t.ConfigFlags}), nil
	})
	for j, r := range results {
		if r.Err != nil {
			out[at[j]] = failed(r.Target.Name, r.Err)
			continue
		}
		out[at[j]] = r.Value
	}
	return out
}

// namespaceScope returns the namespace a call about t reads ("" for all)
// and how its answer says so: all namespaces, the one asked, or the
// context's default, with how to widen it.
func (t contextTarget) namespaceScope(namespace string, all bool) (string, string, error) {
	switch {
	case all:
		return "", "all namespaces", nil
	case namespace != "":
		return namespace, "namespace " + namespace, nil
	}
	ns, _, err := t.configFlags.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return "", "", fmt.Errorf("reading the context's namespace: %w", err)
	}
	return ns, "namespace " + ns + " (the context's default; set namespace or allNamespaces to widen)", nil
}
