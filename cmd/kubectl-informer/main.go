// Command kubectl-informer is a kubectl plugin for cache-backed queries and
// diffed watches over client-go shared informers.
package main

import (
	"errors"
	"fmt"
	"os"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-informer/kubectl-informer/pkg/plugin"
)

func main() {
	streams := genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}
	if err := plugin.NewCmdRoot(streams).Execute(); err != nil {
		if !errors.Is(err, plugin.ErrInterrupted) {
			fmt.Fprintf(os.Stderr, "error: %v\n", err)
		}
		os.Exit(1)
	}
}
