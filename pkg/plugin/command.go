// Package plugin holds kubectl-informer's cobra commands. Each command
// follows one contract, the one of kubectl's own commands:
//
//   - An Options struct (QueryOptions, WatchOptions, CapacityOptions,
//     TreeOptions, …) holds the flags as the user typed them, and, set by
//     Complete, the typed values built from them.
//   - NewXOptions(configFlags, streams) returns the Options with their
//     defaults; NewCmdX(configFlags, streams) returns the cobra command
//     that binds its flags to them. Data goes to streams.Out, diagnostics to
//     streams.ErrOut.
//   - The command's RunE is runE: Complete, then Validate, then Run, and
//     nothing else (query and watch go through cacheRunE first, which may
//     hand the whole command to a warm cache process instead).
//   - Complete turns the arguments, flags and kubeconfig into clients and
//     typed values (an engine config, a print config). Validate checks them
//     without I/O, in errors that name the flag. Run does the work; it reads
//     the Options and the values Complete built, and changes neither.
//   - Run first derives its context from interruptible, so that Ctrl-C
//     (SIGINT) or SIGTERM cancels it and the command ends cleanly, informers
//     shut down.
//
// The engine (pkg/engine, pkg/index) has no cobra: commands turn flags into
// its typed configs, and its answers into text.
package plugin

import (
	"context"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
)

// command is what the Options of every command do, in order: Complete
// builds typed values from arguments, flags and kubeconfig, Validate checks
// them without I/O, Run does the work.
type command interface {
	Complete(cmd *cobra.Command, args []string) error
	Validate() error
	Run(ctx context.Context) error
}

// runE is a command's RunE: Complete, Validate, Run.
func runE(o command) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if err := o.Complete(cmd, args); err != nil {
			return err
		}
		if err := o.Validate(); err != nil {
			return err
		}
		return o.Run(cmd.Context())
	}
}

// interruptible returns ctx (context.Background if nil), cancelled on SIGINT
// or SIGTERM, so that every command ends cleanly on Ctrl-C; stop releases
// the signals.
func interruptible(ctx context.Context) (context.Context, context.CancelFunc) {
	if ctx == nil {
		ctx = context.Background()
	}
	return signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
}
