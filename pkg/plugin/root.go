package plugin

import (
	"flag"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/kubectl-informer/kubectl-informer/internal/version"
)

// NewCmdRoot returns the kubectl-informer command with its subcommands. One
// ConfigFlags on the root's persistent flags serves every subcommand.
func NewCmdRoot(streams genericiooptions.IOStreams) *cobra.Command {
	configFlags := newConfigFlags(streams, true)
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
		// record and history take one context (checkFleetCommand, fleetquery.go).
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

	cmd.AddCommand(NewCmdQuery(configFlags, streams))
	cmd.AddCommand(NewCmdWatch(configFlags, streams))
	cmd.AddCommand(NewCmdCache(configFlags, streams))
	cmd.AddCommand(NewCmdCapacity(configFlags, streams))
	cmd.AddCommand(NewCmdTree(configFlags, streams))
	cmd.AddCommand(NewCmdRecord(configFlags, streams))
	cmd.AddCommand(NewCmdHistory(configFlags, streams))
	cmd.AddCommand(NewCmdIndexers(streams))
	cmd.AddCommand(NewCmdVersion(streams))
	return cmd
}

// newConfigFlags returns the kubeconfig flags of a root command: its
// clients name the plugin as their user agent and, with apiWarnings, print
// the API server's warnings on streams.ErrOut as kubectl does, with
// printWarnings (a warm cache process's commands have the process's
// clients instead).
func newConfigFlags(streams genericiooptions.IOStreams, printWarnings bool) *genericclioptions.ConfigFlags {
	var warnings rest.WarningHandler
	if printWarnings {
		warnings = apiWarnings(streams.ErrOut, printers.AllowsColorOutput(streams.ErrOut))
	}
	return genericclioptions.NewConfigFlags(true).
		WithDiscoveryBurst(300).
		WithDiscoveryQPS(50).
		WithWrapConfigFn(func(c *rest.Config) *rest.Config {
			c.UserAgent = version.UserAgent()
			if warnings != nil {
				c.WarningHandler = warnings
			}
			return c
		}).
		WithWarningPrinter(streams)
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
