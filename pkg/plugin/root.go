// Package plugin holds kubectl-informer's root command and the commands
// below it. Each command
// follows one contract, the one of kubectl's own commands:
//
//   - An Options struct (QueryOptions, WatchOptions, CapacityOptions,
//     TreeOptions, …) holds the flags as the user typed them, and, set by
//     Complete, the typed values built from them.
//   - NewXOptions(configFlags, streams) returns the Options with their
//     defaults; NewCmdX(configFlags, streams) returns the cobra command
//     that binds its flags to them. Data goes to streams.Out, diagnostics to
//     streams.ErrOut.
//   - The command's RunE is cmdutil.RunE: Complete, then Validate, then Run, and
//     nothing else (query and watch go through cacheRunE first, which may
//     hand the whole command to a warm cache process instead).
//   - Complete turns the arguments, flags and kubeconfig into clients and
//     typed values (an engine config, a print config). Validate checks them
//     without I/O, in errors that name the flag. Run does the work; it reads
//     the Options and the values Complete built, and changes neither.
//   - Run first derives its context from cmdutil.Interruptible, so that Ctrl-C
//     (SIGINT) or SIGTERM cancels it and the command ends cleanly, informers
//     shut down.
//
// The commands' shared concerns are packages below this one: targets (the
// contexts a command asks, and its work run once per context), printing
// (kubectl's -o formats and tables), progress (stderr progress lines),
// cmdutil (the command contract), and the commands indexers and version.
// The engine (pkg/engine, pkg/index) has no cobra: commands turn flags into
// its typed configs, and its answers into text.
package plugin

import (
	"flag"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/klog/v2"

	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/cachecmd"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/capacity"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/cmdutil"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/history"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/indexers"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/mcp"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/query"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/record"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/targets"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/tree"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/version"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/watch"
)

// NewCmdRoot returns the kubectl-informer command with its subcommands. One
// ConfigFlags on the root's persistent flags serves every subcommand.
func NewCmdRoot(streams genericiooptions.IOStreams) *cobra.Command {
	configFlags := cmdutil.NewConfigFlags(streams, true)
	cmd := &cobra.Command{
		Use:   "kubectl-informer",
		Short: "Cache-backed queries and diffed watches over client-go shared informers",
		Long: `kubectl informer starts client-go shared informers for the types you name,
waits until their caches have synced, and then either answers index queries
from the cache (query) or streams every add, update and delete with a diff of
what changed (watch); capacity joins pods to nodes and prints their requests
and limits against the nodes' allocatable; tree prints what an object owns,
recursively, or the controllers above it, and with --refs what it uses and
what uses it. query -w keeps the answer's table current. The same commands
read several contexts at once (--context a,b, --all-contexts), dumps and
recordings (--from, --at); record writes a recording, history reads one.`,
		Annotations: map[string]string{
			cobra.CommandDisplayNameAnnotation: "kubectl informer",
		},
		SilenceUsage:  true,
		SilenceErrors: true,
		// With no subcommand, print help.
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
		// record and history take one context (checkFleetCommand).
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error { return checkFleetCommand(cmd, configFlags) },
	}
	configFlags.AddFlags(cmd.PersistentFlags())
	if ns := cmd.PersistentFlags().Lookup("namespace"); ns != nil {
		ns.Usage = "If present, the namespace scope for this CLI request; several namespaces joined by commas (-n a,b) are queried and watched each on its own"
	}
	if c := cmd.PersistentFlags().Lookup("context"); c != nil {
		c.Usage = "The name of the kubeconfig context to use; query, watch, capacity, tree and cache also take several joined by commas and shell-style patterns ('prod-*'), and answer for each (see --all-contexts)"
	}
	addKlogVerbosity(cmd.PersistentFlags())

	cmd.AddCommand(query.NewCmdQuery(configFlags, streams))
	cmd.AddCommand(watch.NewCmdWatch(configFlags, streams))
	cmd.AddCommand(cachecmd.NewCmdCache(configFlags, streams))
	cmd.AddCommand(capacity.NewCmdCapacity(configFlags, streams))
	cmd.AddCommand(tree.NewCmdTree(configFlags, streams))
	cmd.AddCommand(record.NewCmdRecord(configFlags, streams))
	cmd.AddCommand(history.NewCmdHistory(configFlags, streams))
	cmd.AddCommand(indexers.NewCmdIndexers(streams))
	cmd.AddCommand(mcp.NewCmdMCP(configFlags, streams))
	cmd.AddCommand(version.NewCmdVersion(streams))
	return cmd
}

// addKlogVerbosity exposes klog's -v and nothing else of klog's flags.
func addKlogVerbosity(flags *pflag.FlagSet) {
	klogFlags := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(klogFlags)
	if v := klogFlags.Lookup("v"); v != nil {
		pf := pflag.PFlagFromGoFlag(v)
		pf.Usage = "number for the log level verbosity (client-go and kubectl-informer logs on stderr)"
		flags.AddFlag(pf)
	}
}

// ErrInterrupted is the error of a command that Ctrl-C or SIGTERM ended
// where kubectl exits 1 without a message (cmdutil.ErrInterrupted).
var ErrInterrupted = cmdutil.ErrInterrupted

// fleetCommands are the commands that take several contexts.
var fleetCommands = map[string]bool{"query": true, "watch": true, "capacity": true, "tree": true}

// cacheFleetCommands are the cache subcommands that take several
// contexts.
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
	if value := targets.ContextFlag(cf); targets.IsSelection(value) && !takesContexts(cmd) {
		return fmt.Errorf("--context %q: several contexts and patterns are supported by query, watch, capacity, tree and cache start|status|stop only; %s takes one context", value, cmd.CommandPath())
	}
	return nil
}
