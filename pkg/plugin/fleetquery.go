package plugin

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/klog/v2"

	"github.com/kubectl-informer/kubectl-informer/pkg/fleet"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// This file runs a query across several kubeconfig contexts (a fleet):
// --context a,b, --context 'prod-*', --all-contexts, or a query that names
// the built-in context index. Each context is answered by a QueryOptions of
// its own (its own ConfigFlags: server, credentials, impersonation and
// default namespace of that context), in parallel; the answers are merged
// by fleetprint.go; -w and --watch-only stream the contexts' rows
// (fleetquerywatch.go). A plain --context NAME is not a fleet: the query
// runs exactly as without this file.

// fleetFlags are the flags that choose contexts, besides --context.
type fleetFlags struct {
	allContexts bool
}

// addFleetFlags adds --all-contexts to cmd and returns where it is kept.
func addFleetFlags(cmd *cobra.Command) *fleetFlags {
	f := &fleetFlags{}
	cmd.Flags().BoolVar(&f.allContexts, "all-contexts", false, "Ask every context of the kubeconfig, in parallel, and merge the answers (see --context, which also takes several names joined by commas and shell-style patterns such as 'prod-*'). Tables gain a first column CONTEXT; a context that fails is named on stderr and the exit code is 1.")
	return f
}

// fleetQueryRunE returns query's RunE: a fleet query when contexts are
// chosen the fleet way or the context index is named, next otherwise.
func fleetQueryRunE(o *QueryOptions, f *fleetFlags, next func(*cobra.Command, []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if !f.allContexts && !fleet.IsSelection(contextFlag(o.configFlags)) && !namesContextIndex(o) {
			return next(cmd, args)
		}
		return runFleetQuery(cmd, args, o, f)
	}
}

// contextFlag is the value of --context, "" if not given.
func contextFlag(cf *genericclioptions.ConfigFlags) string {
	if cf.Context == nil {
		return ""
	}
	return *cf.Context
}

// namesContextIndex reports whether --index or --group-by names the
// built-in context index.
func namesContextIndex(o *QueryOptions) bool {
	if slices.Contains(o.GroupBy, fleet.ContextIndex) {
		return true
	}
	for _, s := range o.IndexSelectors {
		if sel, err := index.ParseSelector("--index", s); err == nil && sel.Name == fleet.ContextIndex {
			return true
		}
	}
	return false
}

// fleetQuery is a query split into what each context answers and what the
// merge does: the context selectors and where the context column goes.
type fleetQuery struct {
	// contextSelectors are the --index selectors of the context index.
	contextSelectors []index.Selector
	// indexSelectors and groupBy are the other --index and --group-by.
	indexSelectors []string
	groupBy        []string
	// contextAt is the position of context among the --group-by keys, -1
	// when it is not one.
	contextAt int
	// grouped is set for --group-by or --sum, context included.
	grouped bool
}

// splitFleetQuery takes the context index out of o's --index and
// --group-by.
func splitFleetQuery(o *QueryOptions) (fleetQuery, error) {
	q := fleetQuery{contextAt: -1, grouped: len(o.GroupBy) > 0 || len(o.Sums) > 0}
	for _, s := range o.IndexSelectors {
		sel, err := index.ParseSelector("--index", s)
		if err != nil {
			return q, err
		}
		if sel.Name == fleet.ContextIndex {
			q.contextSelectors = append(q.contextSelectors, sel)
			continue
		}
		q.indexSelectors = append(q.indexSelectors, s)
	}
	for _, g := range o.GroupBy {
		if g == fleet.ContextIndex {
			if q.contextAt >= 0 {
				return q, fmt.Errorf("--group-by: context is named twice")
			}
			q.contextAt = len(q.groupBy)
			continue
		}
		q.groupBy = append(q.groupBy, g)
	}
	for _, s := range o.Indexers {
		if name, _, _ := strings.Cut(s, "="); strings.TrimSpace(name) == fleet.ContextIndex {
			return q, fmt.Errorf("--indexer %s: context is the built-in index of a query's contexts; choose another name", s)
		}
	}
	return q, nil
}

// unsupportedFleetQueryFlags are the query flags a fleet query does not
// answer yet, as the user spelled them: -w keeps rows of objects, not a
// grouped table, across contexts (fleetquerywatch.go).
func unsupportedFleetQueryFlags(o *QueryOptions) []string {
	var set []string
	if o.watching() && (len(o.GroupBy) > 0 || len(o.Sums) > 0) {
		set = append(set, "-w/--watch with --group-by or --sum (use watch --group-by)")
	}
	return set
}

// identityFlags are the flags that would make every context the same
// identity; a fleet query refuses them.
func identityFlags(cf *genericclioptions.ConfigFlags) []string {
	var set []string
	for _, f := range []struct {
		name  string
		value *string
	}{
		{"--server", cf.APIServer}, {"--cluster", cf.ClusterName}, {"--user", cf.AuthInfoName},
		{"--token", cf.BearerToken}, {"--client-certificate", cf.CertFile}, {"--client-key", cf.KeyFile},
		{"--username", cf.Username}, {"--password", cf.Password}, {"--tls-server-name", cf.TLSServerName},
		{"--certificate-authority", cf.CAFile},
	} {
		if f.value != nil && *f.value != "" {
			set = append(set, f.name)
		}
	}
	return set
}

// contextConfigFlags returns ConfigFlags for context name that keep the
// command's other flags (--kubeconfig, -n, --as, --request-timeout, …).
// An exec credential plugin that needs the terminal has its credentials
// fetched one context at a time (fleet.SerializeTerminalExec).
func contextConfigFlags(cf *genericclioptions.ConfigFlags, name string) *genericclioptions.ConfigFlags {
	c := genericclioptions.NewConfigFlags(true).WithDiscoveryBurst(300).WithDiscoveryQPS(50)
	c.CacheDir, c.KubeConfig = cf.CacheDir, cf.KubeConfig
	c.Namespace, c.Timeout, c.Insecure, c.DisableCompression, c.ProxyURL = cf.Namespace, cf.Timeout, cf.Insecure, cf.DisableCompression, cf.ProxyURL
	c.Impersonate, c.ImpersonateUID, c.ImpersonateGroup, c.ImpersonateUserExtra = cf.Impersonate, cf.ImpersonateUID, cf.ImpersonateGroup, cf.ImpersonateUserExtra
	c.WrapConfigFn = fleet.SerializeTerminalExec(cf.WrapConfigFn)
	c.Context = &name
	return c
}

// fleetDeadline is how long one context may take in all: discovery and
// sync each get --sync-timeout; the rest is slack for lists that end just
// in time and for the answer.
func fleetDeadline(syncTimeout time.Duration) time.Duration {
	return 2*syncTimeout + 30*time.Second
}

// runFleetQuery selects the contexts, answers the query in each in
// parallel, names each failed context on stderr once, prints the merged
// answer of the others, and returns a *fleet.PartialError when any failed.
func runFleetQuery(cmd *cobra.Command, args []string, o *QueryOptions, f *fleetFlags) error {
	if fl := cmd.Flags().Lookup("from"); fl != nil && fl.Changed {
		return fmt.Errorf("--from reads files, not contexts: it cannot be combined with --all-contexts, several contexts or the context index")
	}
	if set := identityFlags(o.configFlags); len(set) > 0 {
		return fmt.Errorf("%s would make every context the same identity: a query across contexts uses each context's own server and credentials", strings.Join(set, ", "))
	}
	if set := unsupportedFleetQueryFlags(o); len(set) > 0 {
		return fmt.Errorf("%s: not supported across contexts yet (ask one context at a time)", strings.Join(set, ", "))
	}
	q, err := splitFleetQuery(o)
	if err != nil {
		return err
	}
	if q.grouped && o.ShowEvents {
		return fmt.Errorf("--show-events adds columns to a table of objects; it cannot be used with --group-by or --sum")
	}
	if q.grouped && o.Output != "" && o.Output != "wide" {
		return fmt.Errorf("--group-by and --sum print a table of groups; they cannot be combined with -o %s", o.Output)
	}
	sel, err := selectContexts(o.configFlags, f.allContexts)
	if err != nil {
		return err
	}
	names := slices.DeleteFunc(slices.Clone(sel.Names), func(name string) bool {
		for _, s := range q.contextSelectors {
			if !s.Matches([]string{name}) {
				return true
			}
		}
		return false
	})
	if o.watching() {
		return runFleetQueryWatch(cmd, args, o, q, sel, names)
	}

	quietErrorHandlers()
	ctx, stop := interruptible(cmd.Context())
	defer stop()
	progress := newFleetProgress(o.ErrOut, names)
	results := fleet.Run(ctx, names, fleetDeadline(o.SyncTimeout), func(ctx context.Context, name string) (*fleetAnswer, error) {
		if progress != nil {
			ctx = withFleetProgress(ctx, progress.engineProgress(name))
		}
		a, err := answerContext(ctx, cmd, args, o, q, name)
		progress.done(name, err)
		return a, err
	})
	progress.end()
	defer func() {
		for _, r := range results {
			if r.Value != nil {
				r.Value.shutdown()
			}
		}
	}()

	failed := 0
	for _, name := range sel.Missing {
		failed++
		fmt.Fprintf(o.ErrOut, "error: context %s: not in the kubeconfig\n", name)
	}
	var answers []*fleetAnswer
	for _, r := range results {
		if r.Value != nil {
			r.Value.flushStderr(o.ErrOut)
		}
		if r.Err != nil {
			failed++
			fmt.Fprintf(o.ErrOut, "error: context %s: %v\n", r.Context, r.Err)
			continue
		}
		answers = append(answers, r.Value)
	}
	total := len(sel.Missing) + len(names)
	if len(answers) > 0 || total == 0 {
		p := fleetPrinter{answers: answers, q: q, out: o.Out, errOut: o.ErrOut, sortBy: o.SortBy, top: o.Top, noHeaders: o.NoHeaders}
		if err := p.print(ctx); err != nil {
			return err
		}
	}
	if failed > 0 {
		return &fleet.PartialError{Failed: failed, Total: total}
	}
	return nil
}

// answerContext answers the query in context name: o's flags with the
// context index taken out, its own ConfigFlags, and stderr kept to be
// printed once the answers are in.
func answerContext(ctx context.Context, cmd *cobra.Command, args []string, o *QueryOptions, q fleetQuery, name string) (a *fleetAnswer, err error) {
	stderr := &lockedWriter{w: &bytes.Buffer{}}
	co := *o
	co.configFlags = contextConfigFlags(o.configFlags, name)
	co.engines = directEngines{}
	co.IOStreams = genericiooptions.IOStreams{In: o.In, Out: io.Discard, ErrOut: stderr}
	co.IndexSelectors, co.GroupBy = q.indexSelectors, q.groupBy
	if q.grouped {
		// The merged table is sorted and cut (fleetprint.go).
		co.SortBy, co.Top = "", 0
	}
	a = &fleetAnswer{name: name, stderr: stderr, shutdown: func() {}}
	if err := co.Complete(cmd, args); err != nil {
		return a, err
	}
	if err := co.Validate(); err != nil {
		return a, err
	}
	if warm, err := co.collectWarm(ctx, cmd, args, q, a); warm {
		if err == nil && q.grouped {
			a.groupNow()
		}
		return a, err
	}
	co.config.Progress = fleetProgressFrom(ctx, co.config.Progress)
	if err := co.collect(ctx, a); err != nil {
		return a, err
	}
	if q.grouped {
		a.groupNow()
	}
	return a, nil
}

// quietErrorHandlers makes client-go's unreturned errors (such as a dead
// context's discovery failures, "Couldn't get current server API group
// list") klog lines at -v=2 instead of on stderr always: they do not name
// their context, and each context's failure is named once by
// runFleetQuery. The first of utilruntime.ErrorHandlers is the one that
// logs; the others (a backoff) stay.
func quietErrorHandlers() {
	v2 := func(_ context.Context, err error, msg string, keysAndValues ...interface{}) {
		klog.V(2).ErrorS(err, msg, keysAndValues...)
	}
	if len(utilruntime.ErrorHandlers) > 0 {
		utilruntime.ErrorHandlers = append([]utilruntime.ErrorHandler{v2}, utilruntime.ErrorHandlers[1:]...)
	}
}

// fleetCommands are the commands that take several contexts.
var fleetCommands = map[string]bool{"query": true, "watch": true, "capacity": true, "tree": true}

// cacheFleetCommands are the cache subcommands that take several contexts
// (fleetcache.go).
var cacheFleetCommands = map[string]bool{"start": true, "status": true, "stop": true}

// takesContexts reports whether cmd takes several contexts.
func takesContexts(cmd *cobra.Command) bool {
	if cmd.HasParent() && cmd.Parent().Name() == "cache" {
		return cacheFleetCommands[cmd.Name()]
	}
	return fleetCommands[cmd.Name()]
}

// checkFleetCommand refuses several contexts (--context a,b or a pattern)
// in the commands that do not take them (takesContexts), instead of
// letting clientcmd look for a context called "a,b".
func checkFleetCommand(cmd *cobra.Command, cf *genericclioptions.ConfigFlags) error {
	if value := contextFlag(cf); fleet.IsSelection(value) && !takesContexts(cmd) {
		return fmt.Errorf("--context %q: several contexts and patterns are supported by query, watch, capacity, tree and cache start|status|stop only; %s takes one context", value, cmd.CommandPath())
	}
	return nil
}

// selectContexts returns the contexts --context and --all-contexts choose
// among the kubeconfig's; no --context means the current context.
func selectContexts(cf *genericclioptions.ConfigFlags, all bool) (fleet.Selection, error) {
	raw, err := cf.ToRawKubeConfigLoader().RawConfig()
	if err != nil {
		return fleet.Selection{}, fmt.Errorf("reading the kubeconfig: %w", err)
	}
	available := make([]string, 0, len(raw.Contexts))
	for name := range raw.Contexts {
		available = append(available, name)
	}
	value := contextFlag(cf)
	if value == "" && !all {
		if value = raw.CurrentContext; value == "" {
			return fleet.Selection{}, fmt.Errorf("the kubeconfig has no current context: use --context or --all-contexts")
		}
	}
	return fleet.Select(available, value, all)
}
