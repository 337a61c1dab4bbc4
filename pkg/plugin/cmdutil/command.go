// Package cmdutil holds what every command of the plugin shares, as
// kubectl's cmd/util does: the contract of a command (Command: Complete,
// Validate, Run, and RunE that runs them in that order), a context that
// Ctrl-C and SIGTERM cancel (Interruptible), the kubeconfig flags of a root
// command and the API server's warnings printed as kubectl prints them,
// a writer safe for several goroutines, the terminal's resize signal and
// calls that may not answer, bounded by a timeout (WithinTimeout).
package cmdutil

import (
	"context"
	"errors"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
)

// Command is what the Options of every command do, in order: Complete
// builds typed values from arguments, flags and kubeconfig, Validate checks
// them without I/O, Run does the work.
type Command interface {
	Complete(cmd *cobra.Command, args []string) error
	Validate() error
	Run(ctx context.Context) error
}

// RunE is a command's RunE: Complete, Validate, Run.
func RunE(o Command) func(*cobra.Command, []string) error {
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

// Interruptible returns ctx (context.Background if nil), cancelled on SIGINT
// or SIGTERM, so that every command ends cleanly on Ctrl-C; stop releases
// the signals.
func Interruptible(ctx context.Context) (context.Context, context.CancelFunc) {
	if ctx == nil {
		ctx = context.Background()
	}
	return signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
}

// ErrInterrupted is returned by a command that Ctrl-C (SIGINT) or SIGTERM
// ended where kubectl exits 1 without a message: query -w, as kubectl get
// -w. main exits 1 without printing it.
var ErrInterrupted = errors.New("interrupted")
