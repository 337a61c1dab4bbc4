package cmdutil

import (
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/client-go/rest"

	"github.com/kubectl-informer/kubectl-informer/internal/version"
)

// NewConfigFlags returns the kubeconfig flags of a root command: its
// clients name the plugin as their user agent and, with printWarnings
// (a warm cache process's commands have the process's clients instead),
// print the API server's warnings (Warning headers, e.g. of a deprecated
// API version) as kubectl does: a line "Warning: MESSAGE" on
// streams.ErrOut, each message once per command, when it arrives (a
// list's before the command prints anything); the word "Warning:" in
// colour when stderr is a terminal that allows it
// (printers.AllowsColorOutput). The warnings a warm cache got for a
// command's types come to the command as data and go through the same
// handler.
func NewConfigFlags(streams genericiooptions.IOStreams, printWarnings bool) *genericclioptions.ConfigFlags {
	var warnings rest.WarningHandler
	if printWarnings {
		warnings = rest.NewWarningWriter(streams.ErrOut, rest.WarningWriterOptions{Deduplicate: true, Color: printers.AllowsColorOutput(streams.ErrOut)})
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
