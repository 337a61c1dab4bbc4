package targets

import (
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
)

// Flags are the flags that choose contexts besides --context (one of
// ConfigFlags).
type Flags struct {
	// AllContexts is --all-contexts.
	AllContexts bool
	// cmd is the command the flags were added to, whose --from, if it
	// has one, reads files rather than contexts.
	cmd *cobra.Command
}

// AddFlags adds --all-contexts to cmd and returns where it is kept.
func AddFlags(cmd *cobra.Command) *Flags {
	f := &Flags{cmd: cmd}
	cmd.Flags().BoolVar(&f.AllContexts, "all-contexts", false, "Ask every context of the kubeconfig, in parallel, and merge the answers (see --context, which also takes several names joined by commas and shell-style patterns such as 'prod-*'). Tables gain a first column CONTEXT; a context that fails is named on stderr and the exit code is 1.")
	return f
}

// Targets returns the targets cf and the flags name (New, several as
// there). A nil f (the options of a warm cache's answer, asked for the one target
// it serves) is a set of one, cf itself, named as --context says. With a
// selection of contexts, a --from of the command (files, not contexts) is
// refused.
func (f *Flags) Targets(cf *genericclioptions.ConfigFlags, several bool) (Set, error) {
	if f == nil {
		return Set{Targets: []Target{{Name: ContextFlag(cf), ConfigFlags: cf}}}, nil
	}
	if f.cmd != nil && (several || Selected(cf, f.AllContexts)) {
		if from := f.cmd.Flags().Lookup("from"); from != nil && from.Changed {
			return Set{}, fmt.Errorf("--from reads files, not contexts: it cannot be combined with --all-contexts, several contexts or the context index")
		}
	}
	return New(cf, f.AllContexts, several)
}
