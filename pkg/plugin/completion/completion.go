// Package completion completes the commands' arguments and flags in the
// shells: types from discovery (or --from files), objects' names, index
// names, contexts, and the flags of a warm cache.
package completion

import (
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/discovery"

	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/cmdutil"
)

// CompletionTimeout bounds the discovery requests of one completion: a
// shell waiting on TAB must not hang on an unreachable cluster.
var CompletionTimeout = 5 * time.Second

// RegisterCompletions sets up shell completion for query or watch: resource
// types from discovery for the TYPE argument, index names for --index,
// --where and --group-by, and the fixed choices of -o/--output, --diff and
// --color. Only flags cmd has are registered, so call it after the flags
// are added. kubectl (1.26 or newer) reaches these through the
// kubectl_complete-informer executable, which runs
// `kubectl informer __complete …`.
func RegisterCompletions(cmd *cobra.Command, configFlags *genericclioptions.ConfigFlags) {
	cmd.ValidArgsFunction = func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		// Object names (watch TYPE NAME, TYPE/NAME) would need a list
		// request per TAB: they come from a running warm cache, if any.
		if typ, prefix, ok := strings.Cut(toComplete, "/"); ok {
			if cmd.Name() != "watch" {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var completions []string
			for _, name := range completeNamesFromCache(cmd, configFlags, typ, prefix) {
				completions = append(completions, typ+"/"+name)
			}
			return completions, cobra.ShellCompDirectiveNoFileComp
		}
		if len(args) > 0 {
			if cmd.Name() != "watch" || strings.Contains(args[0], "/") || strings.Contains(args[0], ",") {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return completeNamesFromCache(cmd, configFlags, args[0], toComplete), cobra.ShellCompDirectiveNoFileComp
		}
		if from, _ := cmd.Flags().GetStringArray("from"); len(from) > 0 {
			return completeFromResourceTypes(from, toComplete), cobra.ShellCompDirectiveNoFileComp
		}
		return completeResourceTypes(configFlags, toComplete), cobra.ShellCompDirectiveNoFileComp
	}

	register := func(name string, f cobra.CompletionFunc) {
		if cmd.Flags().Lookup(name) == nil {
			return
		}
		// RegisterFlagCompletionFunc fails only for an unknown flag or a
		// second registration, both programming errors caught by the tests.
		_ = cmd.RegisterFlagCompletionFunc(name, f)
	}
	register("index", completeSelector)
	register("where", completeSelector)
	register("group-by", CompleteIndexName)
	outputs := []string{"text", "json", "yaml", "name"}
	if cmd.Name() == "query" {
		outputs = []string{"json", "yaml", "name", "wide", "custom-columns=", "jsonpath=", "jsonpath-file=", "go-template=", "go-template-file="}
	}
	register("output", CompleteChoices(outputs...))
	register("sort-by", CompleteChoices("{.metadata.name}", "{.metadata.namespace}", "{.metadata.creationTimestamp}",
		"{.status.phase}", "{.spec.nodeName}", "{.status.containerStatuses[0].restartCount}", "{.spec.replicas}"))
	register("diff", CompleteChoices("compact", "unified", "none"))
	register("color", CompleteChoices("auto", "always", "never"))
}

// CompleteChoices completes a flag with fixed choices. A choice ending in
// '=' wants more typed after it, so the shell adds no space after it.
func CompleteChoices(choices ...string) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return withPrefix(choices, toComplete)
	}
}

// completeSelector completes the NAME of a selector flag (--index,
// --where) with "node=", "label:" and the like, or "!node" for the
// has-no-value form once "!" is typed. Values would need the cluster, so
// after the operator nothing is offered.
func completeSelector(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if strings.ContainsAny(toComplete, "= ") {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	negated := strings.HasPrefix(toComplete, "!")
	var names []string
	for _, n := range indexNameCompletions(cmd) {
		name, desc, _ := strings.Cut(n, "\t")
		switch {
		case negated:
			name = "!" + name
		case !strings.HasSuffix(name, ":"):
			name += "="
		}
		names = append(names, cobra.CompletionWithDesc(name, desc))
	}
	return withPrefix(names, toComplete)
}

// CompleteIndexName completes --group-by NAME: the fixed index names, the
// label: and annotation: families, and the custom indexes of --indexer.
func CompleteIndexName(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	return withPrefix(indexNameCompletions(cmd), toComplete)
}

// indexNameCompletions returns the index names cmd accepts, each with its
// description after a tab: the built-in ones, with the families as "label:"
// and "annotation:", then the custom indexes of the --indexer flags typed so
// far that parse.
func indexNameCompletions(cmd *cobra.Command) []string {
	var names []string
	for _, b := range index.Builtins() {
		name := b.Name
		if family, _, ok := strings.Cut(name, ":"); ok {
			name = family + ":"
		}
		names = append(names, cobra.CompletionWithDesc(name, b.Description))
	}
	// Cobra may parse the flags twice while completing, so a StringArray
	// can hold each --indexer twice.
	indexers, _ := cmd.Flags().GetStringArray("indexer")
	seen := map[string]bool{}
	for _, s := range indexers {
		if c, err := index.ParseCustom(s); err == nil && !seen[c.Name] {
			seen[c.Name] = true
			names = append(names, cobra.CompletionWithDesc(c.Name, "custom index "+c.JSONPath))
		}
	}
	return names
}

// withPrefix returns the candidates (each optionally followed by a tab and
// a description) that start with toComplete. The shell adds no space after
// a candidate ending in '=' or ':' (more is to be typed), and never offers
// file names.
func withPrefix(candidates []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	directive := cobra.ShellCompDirectiveNoFileComp
	var out []string
	for _, c := range candidates {
		value, _, _ := strings.Cut(c, "\t")
		if !strings.HasPrefix(value, toComplete) {
			continue
		}
		out = append(out, c)
		if strings.HasSuffix(value, "=") || strings.HasSuffix(value, ":") {
			directive |= cobra.ShellCompDirectiveNoSpace
		}
	}
	return out, directive
}

// completeResourceTypes returns the resource types that can be listed and
// watched, by plural and short name, that complete the last element of the
// TYPE[,TYPE...] argument toComplete. It returns nothing if discovery fails
// or takes longer than completionTimeout. Discovery is the cached one of
// configFlags, so a second completion reads the disk cache. Unless
// --request-timeout was given, it sets configFlags' request timeout to
// completionTimeout too, so that the abandoned requests end as well.
func completeResourceTypes(configFlags *genericclioptions.ConfigFlags, toComplete string) []string {
	if configFlags.Timeout == nil || *configFlags.Timeout == "" || *configFlags.Timeout == "0" {
		timeout := CompletionTimeout.String()
		configFlags.Timeout = &timeout
	}
	type result struct {
		lists []*metav1.APIResourceList
		err   error
	}
	res, ok := cmdutil.WithinTimeout(CompletionTimeout, func() result {
		client, err := configFlags.ToDiscoveryClient()
		if err != nil {
			return result{err: err}
		}
		lists, err := client.ServerPreferredResources()
		return result{lists: lists, err: err}
	})
	if !ok {
		return nil
	}
	// A group whose discovery failed (an aggregated API that is down, say)
	// leaves the others usable, as kubectl api-resources treats it.
	if res.err != nil && !discovery.IsGroupDiscoveryFailedError(res.err) {
		return nil
	}

	watchable := discovery.FilteredBy(discovery.SupportsAllVerbs{Verbs: []string{"list", "watch"}}, res.lists)
	return resourceTypeNames(watchable, toComplete)
}

// resourceTypeNames returns the plural and short names of the resources
// of lists that complete the last element of the TYPE[,TYPE...] argument
// toComplete, sorted.
func resourceTypeNames(lists []*metav1.APIResourceList, toComplete string) []string {
	typedPrefix, last := "", toComplete
	if i := strings.LastIndex(toComplete, ","); i >= 0 {
		typedPrefix, last = toComplete[:i+1], toComplete[i+1:]
	}
	typed := map[string]bool{}
	for _, t := range strings.Split(typedPrefix, ",") {
		typed[t] = true
	}
	seen := map[string]bool{}
	var names []string
	add := func(name string) {
		if name == "" || seen[name] || typed[name] || !strings.HasPrefix(name, last) {
			return
		}
		seen[name] = true
		names = append(names, typedPrefix+name)
	}
	for _, list := range lists {
		for _, r := range list.APIResources {
			if strings.Contains(r.Name, "/") {
				continue // a subresource
			}
			add(r.Name)
			for _, short := range r.ShortNames {
				add(short)
			}
		}
	}
	sort.Strings(names)
	return names
}
