// Package version is the version command.
package version

import (
	"encoding/json"
	"fmt"
	"runtime"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-informer/kubectl-informer/internal/version"
)

// versionInfo is what kubectl informer version prints.
type versionInfo struct {
	Version         string `json:"version"`
	Commit          string `json:"commit"`
	Date            string `json:"date"`
	GoVersion       string `json:"goVersion"`
	ClientGoVersion string `json:"clientGoVersion"`
	Platform        string `json:"platform"`
}

// NewCmdVersion returns the version command.
func NewCmdVersion(streams genericiooptions.IOStreams) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:     "version",
		Short:   "Print the plugin's version",
		Example: "  kubectl informer version\n  kubectl informer version -o json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			info := versionInfo{
				Version:         version.Version,
				Commit:          version.Commit,
				Date:            version.Date,
				GoVersion:       runtime.Version(),
				ClientGoVersion: version.ClientGoVersion(),
				Platform:        runtime.GOOS + "/" + runtime.GOARCH,
			}
			switch output {
			case "":
				_, err := fmt.Fprintf(streams.Out, "kubectl-informer %s (commit %s, built %s, %s, client-go %s, %s)\n",
					info.Version, info.Commit, info.Date, info.GoVersion, info.ClientGoVersion, info.Platform)
				return err
			case "json":
				b, err := json.MarshalIndent(info, "", "  ")
				if err != nil {
					return err
				}
				_, err = fmt.Fprintln(streams.Out, string(b))
				return err
			}
			return fmt.Errorf("-o/--output must be json or empty, got %q", output)
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "Output format: empty for one line, or json.")
	return cmd
}
