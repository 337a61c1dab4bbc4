// Command kubectl-informer is a kubectl plugin for cache-backed queries and
// diffed watches over client-go shared informers.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/klog/v2"

	"github.com/kubectl-informer/kubectl-informer/internal/startup"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin"
)

func main() {
	startup.Done()
	quietUnreturnedErrors()
	streams := genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}
	if err := plugin.NewCmdRoot(streams).Execute(); err != nil {
		if !errors.Is(err, plugin.ErrInterrupted) {
			fmt.Fprintf(os.Stderr, "error: %v\n", err)
		}
		os.Exit(1)
	}
}

// quietUnreturnedErrors makes client-go's unreturned errors (such as a dead
// context's discovery failures, "Couldn't get current server API group
// list") klog lines at -v=2 instead of lines on stderr: they do not name
// their context, and every command returns the errors it meets, each named
// once. It is called once, before any command runs; the first of
// utilruntime.ErrorHandlers is the one that logs, the others (a backoff)
// stay.
func quietUnreturnedErrors() {
	v2 := func(_ context.Context, err error, msg string, keysAndValues ...interface{}) {
		klog.V(2).ErrorS(err, msg, keysAndValues...)
	}
	if len(utilruntime.ErrorHandlers) > 0 {
		utilruntime.ErrorHandlers = append([]utilruntime.ErrorHandler{v2}, utilruntime.ErrorHandlers[1:]...)
	}
}
