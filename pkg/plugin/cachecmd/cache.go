// Package cachecmd is the cache command: cache start, status and stop of a
// warm cache per target (an identity's process, its socket and its pool of
// shared engines), and cache serve, the process itself, which runs its
// clients' query and watch commands and answers their queries asked as
// data.
package cachecmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/cmdutil"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/client"
	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/server"
)

const cacheLong = `A warm cache is a background process that keeps the informers of the types
you query and watch running between commands, for one identity: the API
server and credentials (user, token, certificate, impersonation) of the
kubeconfig flags it was started with. query and watch use it on their own
(--cache auto) when it runs for the same identity, and answer exactly as
without it; a type it does not hold yet is listed on first use and kept
until no command has used it for --evict-after. A command that asks for
some namespaces or a label selector reads the cache's informer of all
namespaces of its type when there is one, rather than starting its own.

It listens on a unix socket only you can reach, in $XDG_RUNTIME_DIR/kubectl-informer
(or ~/.kube/cache/kubectl-informer), and exits after --idle-timeout without
requests. Its log, next to the socket, starts empty at each start; with -v=8
or more it holds response bodies, Secret data included.`

const cacheExample = `  # Keep informers warm for the current context; stop after an hour unused
  kubectl informer cache start --idle-timeout 1h

  # What runs, what it holds, and whether its watches are healthy
  kubectl informer cache status

  # Stop the cache of the current context, or all of yours
  kubectl informer cache stop
  kubectl informer cache stop --all

  # One warm cache per context of a fleet; list and stop them per context
  kubectl informer cache start --context 'prod-*'
  kubectl informer cache status --all-contexts
  kubectl informer cache stop --context prod-eu,prod-us`

// NewCmdCache returns the cache command and its subcommands.
func NewCmdCache(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "cache",
		Short:   "Start, list and stop warm caches that query and watch share",
		Long:    cacheLong,
		Example: cacheExample,
		RunE:    func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newCmdCacheStart(configFlags, streams))
	cmd.AddCommand(newCmdCacheStatus(configFlags, streams))
	cmd.AddCommand(newCmdCacheStop(configFlags, streams))
	cmd.AddCommand(newCmdCacheServe(streams))
	return cmd
}

// CacheStartOptions are the options of kubectl informer cache start.
type CacheStartOptions struct {
	configFlags *genericclioptions.ConfigFlags
	IdleTimeout time.Duration
	EvictAfter  time.Duration
	Record      string
	Retain      time.Duration
	genericiooptions.IOStreams

	id        engines.CacheIdentity
	kubeArgs  []string
	verbosity string
	fleet     *cacheFleetFlags
}

func newCmdCacheStart(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &CacheStartOptions{configFlags: configFlags, IdleTimeout: 30 * time.Minute, EvictAfter: defaultEvictAfter,
		Retain: defaultRetain, IOStreams: streams}
	cmd := &cobra.Command{
		Use:   "start",
		Short: "Start a warm cache for the current identity in the background",
		Args:  cobra.NoArgs,
	}
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		o.kubeArgs = engines.KubeconfigArgs(cmd)
		if v := cmd.Root().PersistentFlags().Lookup("v"); v != nil && v.Changed {
			o.verbosity = v.Value.String()
		}
		return runCacheStart(cmd, o, o.fleet)
	}
	cmd.Flags().DurationVar(&o.IdleTimeout, "idle-timeout", o.IdleTimeout, "Exit after this long without a query or watch (0: never).")
	cmd.Flags().DurationVar(&o.EvictAfter, "evict-after", o.EvictAfter, "Shut down an informer after this long without a command using it (0: never).")
	addRecordFlags(cmd, &o.Record, &o.Retain)
	o.fleet = addCacheFleetFlags(cmd, "Start a warm cache")
	return cmd
}

// defaultRetain is the default --retain of a recording cache.
const defaultRetain = time.Hour

// addRecordFlags adds --record and --retain to a cache start or serve
// command.
func addRecordFlags(cmd *cobra.Command, record *string, retain *time.Duration) {
	cmd.Flags().StringVar(record, "record", "", "Keep a rolling recording of the types the cache holds in this directory (created 0700 if missing): "+
		"segment files that --from DIR and --at read. Each type is recorded once, from its informer of all namespaces when the cache has one; "+
		"objects as the cache keeps them (managedFields only for types a watch holds).")
	cmd.Flags().DurationVar(retain, "retain", *retain, "With --record: delete recorded segments older than this; a new segment starts every retain/6 (at least 1m).")
}

// validateRecord checks --record and --retain.
func validateRecord(record string, retain time.Duration) error {
	if retain <= 0 {
		return fmt.Errorf("--retain must be positive, got %s", retain)
	}
	if record == "" {
		return nil
	}
	fi, err := os.Stat(record)
	if err == nil && !fi.IsDir() {
		return fmt.Errorf("--record %s: not a directory", record)
	}
	return nil
}

// Complete resolves the identity from the kubeconfig flags.
func (o *CacheStartOptions) Complete(*cobra.Command, []string) error {
	var err error
	o.id, err = engines.ResolveCacheIdentity(o.configFlags)
	return err
}

// Validate checks --idle-timeout and --evict-after.
func (o *CacheStartOptions) Validate() error {
	if err := validateIdleTimeout(o.IdleTimeout); err != nil {
		return err
	}
	if err := validateRecord(o.Record, o.Retain); err != nil {
		return err
	}
	return validateEvictAfter(o.EvictAfter)
}

// minIdleTimeout is the shortest --idle-timeout: the idle check runs a few
// times per timeout, and shorter would end a cache between two commands.
const minIdleTimeout = time.Second

// validateIdleTimeout checks an --idle-timeout: 0 (never) or at least
// minIdleTimeout.
func validateIdleTimeout(d time.Duration) error {
	if d != 0 && d < minIdleTimeout {
		return fmt.Errorf("--idle-timeout must be 0 (never) or at least %s, got %s", minIdleTimeout, d)
	}
	return nil
}

// defaultEvictAfter is the default --evict-after: shorter than the default
// --idle-timeout, so a cache in use does not keep every namespace, selector
// and type it was ever asked for, and long enough to stay warm between the
// commands of one task.
const defaultEvictAfter = 10 * time.Minute

// validateEvictAfter checks an --evict-after: 0 (never) or at least
// minIdleTimeout, for the same reason.
func validateEvictAfter(d time.Duration) error {
	if d != 0 && d < minIdleTimeout {
		return fmt.Errorf("--evict-after must be 0 (never) or at least %s, got %s", minIdleTimeout, d)
	}
	return nil
}

// cacheReadyTimeout bounds how long start waits for the cache to listen.
const cacheReadyTimeout = 30 * time.Second

// Run starts the cache process, unless one runs for the identity already.
func (o *CacheStartOptions) Run(_ context.Context) error {
	user, _ := engines.UserName(o.configFlags)
	if err := client.EnsureDir(o.id.Dir); err != nil {
		return err
	}
	conn, err := client.Dial(o.id.Socket, engines.DialTimeout)
	if err == nil {
		conn.Close()
		fmt.Fprintf(o.Out, "a cache already runs for %s as %s (pid %d, socket %s)\n", o.id.Server, user, conn.Hello.Pid, o.id.Socket)
		return nil
	}
	if !errors.Is(err, client.ErrNoCache) {
		// A socket left behind is removed; a cache that still listens
		// (another version, or too slow to greet) keeps its socket.
		free, rmErr := client.RemoveStale(o.id.Socket)
		if rmErr != nil {
			return rmErr
		}
		if !free {
			return fmt.Errorf("%v; stop it first: kubectl informer cache stop", err)
		}
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding this program to start the cache: %w", err)
	}
	stdin, err := json.Marshal(o.kubeArgs)
	if err != nil {
		return err
	}
	args := []string{"cache", "serve", "--idle-timeout=" + o.IdleTimeout.String(), "--evict-after=" + o.EvictAfter.String()}
	recording := ""
	if o.Record != "" {
		dir, err := server.PrepareRecordDir(o.Record)
		if err != nil {
			return err
		}
		args = append(args, "--record="+dir, "--retain="+o.Retain.String())
		recording = fmt.Sprintf(", recording to %s for %s", dir, o.Retain)
	}
	if o.verbosity != "" {
		args = append(args, "-v="+o.verbosity)
	}
	pid, err := client.Start(client.StartOptions{
		Executable: exe,
		Args:       args,
		Stdin:      stdin,
		LogPath:    client.LogPath(o.id.Dir, o.id.Key),
		Ready:      cacheReadyTimeout,
	})
	if err != nil {
		return fmt.Errorf("starting the cache: %w", err)
	}
	fmt.Fprintf(o.Out, "started a cache for %s as %s (pid %d, socket %s, idle timeout %s, evict after %s%s)\n", o.id.Server, user, pid, o.id.Socket, o.IdleTimeout, o.EvictAfter, recording)
	return nil
}

// CacheStopOptions are the options of kubectl informer cache stop.
type CacheStopOptions struct {
	configFlags *genericclioptions.ConfigFlags
	All         bool
	genericiooptions.IOStreams

	fleet *cacheFleetFlags
}

func newCmdCacheStop(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &CacheStopOptions{configFlags: configFlags, IOStreams: streams}
	cmd := &cobra.Command{
		Use:   "stop",
		Short: "Stop the warm cache of the current identity, or all of yours",
		Args:  cobra.NoArgs,
	}
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if o.All {
			if o.fleet.isFleet(o.configFlags) {
				return fmt.Errorf("--all stops every cache of your OS user; it cannot be combined with --all-contexts or several contexts")
			}
			return cmdutil.RunE(o)(cmd, args)
		}
		return runCacheStop(o, o.fleet)
	}
	cmd.Flags().BoolVar(&o.All, "all", false, "Stop every warm cache of your OS user, whatever its identity.")
	o.fleet = addCacheFleetFlags(cmd, "Stop the warm cache")
	return cmd
}

// Complete does nothing: Run resolves what it stops.
func (o *CacheStopOptions) Complete(*cobra.Command, []string) error { return nil }

// Validate has nothing to check.
func (o *CacheStopOptions) Validate() error { return nil }

// Run stops every cache of the OS user (--all) and waits for their
// sockets to go; the cache of each target is stopped by runCacheStop.
func (o *CacheStopOptions) Run(context.Context) error {
	dir, err := client.Dir()
	if err != nil {
		return err
	}
	sockets, err := client.Sockets(dir)
	if err != nil {
		return err
	}
	if len(sockets) == 0 {
		fmt.Fprintln(o.ErrOut, "no cache runs")
		return nil
	}
	var errs []error
	for _, socket := range sockets {
		if err := stopCache(socket); errors.Is(err, client.ErrNoCache) {
			fmt.Fprintln(o.ErrOut, "no cache runs for this identity")
		} else if err != nil {
			errs = append(errs, err)
		} else {
			fmt.Fprintf(o.Out, "stopped the cache at %s\n", socket)
		}
	}
	return errors.Join(errs...)
}

// stopCache stops the cache at socket; a socket that no cache answers on is
// removed.
func stopCache(socket string) error {
	conn, err := client.Dial(socket, engines.DialTimeout)
	if errors.Is(err, client.ErrNoCache) {
		return err
	}
	var version *client.VersionError
	switch {
	case errors.As(err, &version):
		// A cache of another build: its Stop request is the same.
		if err := client.StopAnyVersion(socket, engines.DialTimeout); err != nil {
			return fmt.Errorf("stopping the cache at %s: %w", socket, err)
		}
	case err != nil:
		free, rmErr := client.RemoveStale(socket)
		if rmErr != nil {
			return rmErr
		}
		if !free {
			return fmt.Errorf("%w; it still listens, so its socket is left alone", err)
		}
		return nil
	default:
		defer conn.Close()
		if err := conn.Stop(engines.DialTimeout); err != nil {
			return fmt.Errorf("stopping the cache at %s: %w", socket, err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Lstat(socket); errors.Is(err, os.ErrNotExist) {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("the cache at %s (pid %d) was asked to stop but its socket is still there after 5s", socket, conn.Hello.Pid)
}
