package engines

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/klog/v2"

	"github.com/kubectl-informer/kubectl-informer/internal/version"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/cmdutil"
	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/client"
	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/protocol"
)

// DialTimeout bounds the connection to a warm cache and its hello: a cache
// that does not answer in time is treated as broken.
const DialTimeout = 2 * time.Second

// FirstFrameMargin is added to the command's --sync-timeout to bound the
// wait for the cache's first frame: a cache that says nothing for that long
// is lost, and the command runs here.
const FirstFrameMargin = 10 * time.Second

// CacheRunE is the RunE of query and watch: with --cache auto, outside a
// cache process, the command goes to the running warm cache of this
// identity if there is one; otherwise (none runs, it is broken, or it
// declines) the command runs here (Complete, Validate, Run).
//
// extraArgs, when set, returns flags this side resolves for the cache
// process (watch's --color); local, when set, reports that the command must
// run here whatever the cache (a grouped watch redrawn on this terminal).
func CacheRunE(o cmdutil.Command, eo *EngineOptions, streams genericiooptions.IOStreams, extraArgs func() []string, local func() bool) func(*cobra.Command, []string) error {
	direct := cmdutil.RunE(o)
	return func(cmd *cobra.Command, args []string) error {
		if eo.Engines.Shared() || eo.Cache == "off" || Verbose(cmd) || (local != nil && local()) {
			return direct(cmd, args)
		}
		handled, err := ForwardToCache(cmd, args, eo, streams, extraArgs)
		if handled {
			return err
		}
		return direct(cmd, args)
	}
}

// Verbose reports whether -v was given: such a command runs here, since
// its klog lines would be written by the cache process, to its own log.
func Verbose(cmd *cobra.Command) bool {
	v := cmd.Root().PersistentFlags().Lookup("v")
	return v != nil && v.Changed
}

// ForwardToCache runs the command in the warm cache of this identity and
// reports whether it did (handled): not when no cache runs (silently), nor
// when the cache is unusable (a one-line warning on errOut) or declines.
func ForwardToCache(cmd *cobra.Command, args []string, eo *EngineOptions, streams genericiooptions.IOStreams, extraArgs func() []string) (handled bool, err error) {
	errOut := streams.ErrOut
	if eo.Cache != "" && eo.Cache != "auto" {
		return false, nil // Validate names the flag
	}
	id, err := ResolveCacheIdentity(eo.ConfigFlags)
	if err != nil {
		klog.V(1).InfoS("not using a warm cache", "err", err)
		return false, nil
	}
	if _, err := os.Lstat(id.Socket); err != nil {
		// No cache (the common case), or a directory we may not search
		// (made by root under sudo): silently.
		return false, nil
	}
	// The directory is checked before the socket in it is used.
	err = client.CheckDir(id.Dir)
	var conn *client.Conn
	if err == nil {
		conn, err = client.Dial(id.Socket, DialTimeout)
	}
	if errors.Is(err, client.ErrNoCache) {
		return false, nil
	}
	if err != nil {
		fmt.Fprintf(errOut, "warning: not using the warm cache: %v; asking the API server directly\n", err)
		return false, nil
	}
	defer conn.Close()
	if other := OtherBuild(conn.Hello); other != "" {
		fmt.Fprintf(errOut, "warning: not using the warm cache: %s; restart it (kubectl informer cache stop; kubectl informer cache start); asking the API server directly\n", other)
		return false, nil
	}
	var extra []string
	if extraArgs != nil {
		extra = extraArgs()
	}
	argv, err := ForwardArgs(cmd, args, eo, extra)
	if err != nil {
		return false, nil
	}
	ctx, stop := cmdutil.Interruptible(cmd.Context())
	defer stop()
	// As the direct watch does: a write to a closed stdout (| head) fails
	// with EPIPE instead of the runtime killing the process.
	sigpipe := make(chan os.Signal, 1)
	signal.Notify(sigpipe, syscall.SIGPIPE)
	defer signal.Stop(sigpipe)
	res, err := conn.Run(ctx, protocol.Request{Args: argv, TZ: clientTZ(), WarningColor: printers.AllowsColorOutput(errOut)}, eo.SyncTimeout+FirstFrameMargin, streams.Out, errOut)
	var unavailable *client.UnavailableError
	switch {
	case errors.As(err, &unavailable):
		fmt.Fprintf(errOut, "warning: not using the warm cache: %v; asking the API server directly\n", err)
		return false, nil
	case errors.Is(err, context.Canceled) && ctx.Err() != nil:
		if cmd.Name() == "query" && (cmd.Flags().Changed("watch") || cmd.Flags().Changed("watch-only")) {
			return true, cmdutil.ErrInterrupted // as a direct query -w, as kubectl get -w
		}
		return true, nil
	case errors.Is(err, syscall.EPIPE):
		if cmd.Name() == "query" && streams.Out == os.Stdout {
			// A direct query does not handle SIGPIPE: `query | head` dies
			// of it (status 141). So does this one.
			signal.Stop(sigpipe)
			DieOfSIGPIPE()
		}
		return true, nil // a direct watch ends quietly on EPIPE
	case err != nil:
		return true, err
	case res.Fallback != nil:
		klog.V(1).InfoS("the warm cache declined", "reason", res.Fallback.Reason)
		if res.Fallback.Warning != "" {
			fmt.Fprintln(errOut, res.Fallback.Warning)
		}
		return false, nil
	case res.Exit.Code != 0:
		return true, errors.New(res.Exit.Error)
	}
	return true, nil
}

// OtherBuild says how the cache's build differs from this one ("" when
// they are the same build): its version, or, with the same version string
// (every build outside the Makefile is v0.0.0-dev), its build identity.
func OtherBuild(hello protocol.Hello) string {
	switch {
	case hello.Build != version.Version:
		return fmt.Sprintf("it runs kubectl-informer %s, this is %s", hello.Build, version.Version)
	case hello.BuildID != version.BuildID():
		return fmt.Sprintf("it runs another build of kubectl-informer %s", version.Version)
	}
	return ""
}

// ForwardArgs rebuilds the command's arguments for the cache process: the
// command's name, every flag the user set except kubeconfig and credential
// flags (root's persistent flags), --cache and --all-contexts (the cache
// serves one context: the target's), the namespace made explicit
// as this side resolves it, extra (flags this side resolves, such as
// --color), and the positional arguments.
func ForwardArgs(cmd *cobra.Command, args []string, eo *EngineOptions, extra []string) ([]string, error) {
	argv := []string{cmd.Name()}
	persistent := cmd.Root().PersistentFlags()
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if persistent.Lookup(f.Name) != nil || f.Name == "cache" || f.Name == "all-contexts" {
			return
		}
		if f.Name == "output" {
			// -o jsonpath-file=PATH and the like: the cache process runs
			// in another directory.
			if format, path, ok := strings.Cut(f.Value.String(), "="); ok && strings.HasSuffix(format, "-file") && path != "" {
				if abs, err := filepath.Abs(path); err == nil {
					argv = append(argv, "--output="+format+"="+abs)
					return
				}
			}
		}
		argv = append(argv, flagArgs(f)...)
	})
	ns, err := eo.Engines.Namespace(eo.ConfigFlags)
	if err != nil {
		return nil, err
	}
	argv = append(argv, extra...)
	argv = append(argv, "--namespace="+ns, "--")
	return append(argv, args...), nil
}

// DieOfSIGPIPE makes the process die of SIGPIPE as a direct command writing
// to a closed stdout does: with SIGPIPE back to its default, the Go runtime
// raises it on a write to stdout that fails with EPIPE. It returns only if
// that write succeeds.
func DieOfSIGPIPE() {
	signal.Reset(syscall.SIGPIPE)
	_, _ = os.Stdout.Write([]byte("\n"))
}
