package cmdutil

import (
	"io"

	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/client-go/rest"

	"github.com/kubectl-informer/kubectl-informer/internal/version"
)

// apiWarnings returns the handler of the API server's warnings (Warning
// headers, e.g. of a deprecated API version) for a command whose stderr is
// errOut, as kubectl's: a line "Warning: MESSAGE" on errOut, each message
// once per command, when it arrives (a list's before the command prints
// anything); the word "Warning:" in colour when color is set (stderr is a
// terminal that allows it, printers.AllowsColorOutput). The warnings a warm
// cache got for a command's types come to the command as data and go
// through the same handler.
func apiWarnings(errOut io.Writer, color bool) rest.WarningHandler {
	return rest.NewWarningWriter(errOut, rest.WarningWriterOptions{Deduplicate: true, Color: color})
}

// NewConfigFlags returns the kubeconfig flags of a root command: its
// clients name the plugin as their user agent and, with apiWarnings, print
// the API server's warnings on streams.ErrOut as kubectl does, with
// printWarnings (a warm cache process's commands have the process's
// clients instead).
func NewConfigFlags(streams genericiooptions.IOStreams, printWarnings bool) *genericclioptions.ConfigFlags {
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
