package targets

import (
	"github.com/spf13/cobra"
)

// Flags are the flags that choose contexts besides --context (one of
// ConfigFlags).
type Flags struct {
	// AllContexts is --all-contexts.
	AllContexts bool
}

// AddFlags adds --all-contexts to cmd and returns where it is kept.
func AddFlags(cmd *cobra.Command) *Flags {
	f := &Flags{}
	cmd.Flags().BoolVar(&f.AllContexts, "all-contexts", false, "Ask every context of the kubeconfig, in parallel, and merge the answers (see --context, which also takes several names joined by commas and shell-style patterns such as 'prod-*'). Tables gain a first column CONTEXT; a context that fails is named on stderr and the exit code is 1.")
	return f
}
