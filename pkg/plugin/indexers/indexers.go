// Package indexers is the indexers command: the indexes a query can name.
package indexers

import (
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/printing"
)

// NewCmdIndexers returns the indexers command, which lists the built-in
// indexes.
func NewCmdIndexers(streams genericiooptions.IOStreams) *cobra.Command {
	var noHeaders bool
	cmd := &cobra.Command{
		Use:     "indexers",
		Aliases: []string{"indexes"},
		Short:   "List the built-in indexes that --index, --where and --group-by accept",
		Example: `  kubectl informer indexers

  # Define your own from a JSONPath
  kubectl informer query pods -A --indexer img='{.spec.containers[*].image}' --group-by img

  # Or compute one with CEL
  kubectl informer query pods -A --indexer restarts='object.status.?containerStatuses.orValue([]).map(s, s.restartCount).sum()' --group-by restarts`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var rows [][]string
			for _, b := range index.Builtins() {
				rows = append(rows, []string{b.Name, b.Description})
			}
			return printing.WriteTable(streams.Out, []string{"INDEX", "DESCRIPTION"}, rows, noHeaders)
		},
	}
	cmd.Flags().BoolVar(&noHeaders, "no-headers", false, "Don't print headers.")
	return cmd
}
