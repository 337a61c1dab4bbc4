// Package cachecmd is the cache command: cache start, status and stop of a
// warm cache per target (an identity's process, its socket and its pool of
// shared engines), and cache serve, the process itself, which answers its
// clients' queries asked as data and streams the objects and changes of
// the types their other commands read.
package cachecmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/cmdutil"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/targets"
	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/client"
	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/server"
)

const cacheLong = `A warm cache is a background process that keeps the informers of the types
you query and watch running between commands, for one identity: the API
server and credentials (user, token, certificate, impersonation) of the
kubeconfig flags it was started with. query, watch, tree and capacity use
it on their own (--cache auto) when it runs for the same identity, and
answer exactly as without it; a type it does not hold yet is listed on first use and kept
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
		Short:   "Start, list and stop warm caches that query, watch, tree and capacity read",
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

	// contexts are the flags that select contexts besides --context.
	contexts *targets.Flags

	// Set by Complete.
	targets   targets.Set
	kubeArgs  []string
	verbosity string
}

func newCmdCacheStart(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &CacheStartOptions{configFlags: configFlags, IdleTimeout: 30 * time.Minute, EvictAfter: defaultEvictAfter,
		Retain: defaultRetain, IOStreams: streams}
	cmd := &cobra.Command{
		Use:   "start",
		Short: "Start a warm cache for the current identity in the background",
		Args:  cobra.NoArgs,
		RunE:  cmdutil.RunE(o),
	}
	cmd.Flags().DurationVar(&o.IdleTimeout, "idle-timeout", o.IdleTimeout, "Exit after this long without a query or watch (0: never).")
	cmd.Flags().DurationVar(&o.EvictAfter, "evict-after", o.EvictAfter, "Shut down an informer after this long without a command using it (0: never).")
	addRecordFlags(cmd, &o.Record, &o.Retain)
	o.contexts = addContextsFlag(cmd, "Start a warm cache")
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

// Complete keeps the kubeconfig arguments and -v the cache process gets,
// and names the targets.
func (o *CacheStartOptions) Complete(cmd *cobra.Command, _ []string) error {
	o.kubeArgs = engines.KubeconfigArgs(cmd)
	if v := cmd.Root().PersistentFlags().Lookup("v"); v != nil && v.Changed {
		o.verbosity = v.Value.String()
	}
	var err error
	o.targets, err = o.contexts.Targets(o.configFlags, false)
	return err
}

// Validate checks --idle-timeout, --evict-after, --record and --retain.
func (o *CacheStartOptions) Validate() error {
	return validateServe(o.IdleTimeout, o.EvictAfter, o.Record, o.Retain)
}

// minIdleTimeout is the shortest --idle-timeout and --evict-after: the
// idle check runs a few times per timeout, and shorter would end a cache,
// or its informers, between two commands.
const minIdleTimeout = time.Second

// defaultEvictAfter is the default --evict-after: shorter than the default
// --idle-timeout, so a cache in use does not keep every namespace, selector
// and type it was ever asked for, and long enough to stay warm between the
// commands of one task.
const defaultEvictAfter = 10 * time.Minute

// validateServe checks the flags of a cache process: --idle-timeout and
// --evict-after 0 (never) or at least minIdleTimeout, --retain positive,
// and --record, when given, no file but a directory (or none yet).
func validateServe(idleTimeout, evictAfter time.Duration, record string, retain time.Duration) error {
	for _, d := range []struct {
		flag  string
		value time.Duration
	}{{"--idle-timeout", idleTimeout}, {"--evict-after", evictAfter}} {
		if d.value != 0 && d.value < minIdleTimeout {
			return fmt.Errorf("%s must be 0 (never) or at least %s, got %s", d.flag, minIdleTimeout, d.value)
		}
	}
	if retain <= 0 {
		return fmt.Errorf("--retain must be positive, got %s", retain)
	}
	if record == "" {
		return nil
	}
	if fi, err := os.Stat(record); err == nil && !fi.IsDir() {
		return fmt.Errorf("--record %s: not a directory", record)
	}
	return nil
}

// cacheReadyTimeout bounds how long start waits for the cache to listen.
const cacheReadyTimeout = 30 * time.Second

// Run starts one warm cache per target, with o's flags and each target's
// own identity (eachContext): the caches of several contexts start in
// parallel, those of one identity one after the other (the first starts
// it, the others find it running).
func (o *CacheStartOptions) Run(context.Context) error {
	var bySocket sync.Map // a *sync.Mutex per socket
	return eachContext(o.targets, o.Out, o.ErrOut, func(t targets.Target, out, _ io.Writer) error {
		id, err := engines.ResolveCacheIdentity(t.ConfigFlags)
		if err != nil {
			return err
		}
		lock, _ := bySocket.LoadOrStore(id.Socket, &sync.Mutex{})
		lock.(*sync.Mutex).Lock()
		defer lock.(*sync.Mutex).Unlock()
		kubeArgs := o.kubeArgs
		if o.targets.Several {
			kubeArgs = withContextArg(o.kubeArgs, t.Name)
		}
		return o.start(t, id, kubeArgs, out)
	})
}

// start starts the cache process of target t's identity id, with
// kubeArgs on its stdin, unless one runs for the identity already.
func (o *CacheStartOptions) start(t targets.Target, id engines.CacheIdentity, kubeArgs []string, out io.Writer) error {
	user, _ := engines.UserName(t.ConfigFlags)
	if pid, err := answering(id); err != nil || pid != 0 {
		if err == nil {
			fmt.Fprintf(out, "a cache already runs for %s as %s (pid %d, socket %s)\n", id.Server, user, pid, id.Socket)
		}
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding this program to start the cache: %w", err)
	}
	stdin, err := json.Marshal(kubeArgs)
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
		LogPath:    client.LogPath(id.Dir, id.Key),
		Ready:      cacheReadyTimeout,
	})
	if err != nil {
		return fmt.Errorf("starting the cache: %w", err)
	}
	fmt.Fprintf(out, "started a cache for %s as %s (pid %d, socket %s, idle timeout %s, evict after %s%s)\n", id.Server, user, pid, id.Socket, o.IdleTimeout, o.EvictAfter, recording)
	return nil
}

// CacheStopOptions are the options of kubectl informer cache stop.
type CacheStopOptions struct {
	configFlags *genericclioptions.ConfigFlags
	All         bool
	genericiooptions.IOStreams

	// contexts are the flags that select contexts besides --context.
	contexts *targets.Flags
	// targets, set by Complete, are the contexts whose caches stop; none
	// with --all.
	targets targets.Set
}

func newCmdCacheStop(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &CacheStopOptions{configFlags: configFlags, IOStreams: streams}
	cmd := &cobra.Command{
		Use:   "stop",
		Short: "Stop the warm cache of the current identity, or all of yours",
		Args:  cobra.NoArgs,
		RunE:  cmdutil.RunE(o),
	}
	cmd.Flags().BoolVar(&o.All, "all", false, "Stop every warm cache of your OS user, whatever its identity.")
	o.contexts = addContextsFlag(cmd, "Stop the warm cache")
	return cmd
}

// Complete names the targets, unless --all stops every cache.
func (o *CacheStopOptions) Complete(*cobra.Command, []string) error {
	if o.All {
		if targets.Selected(o.configFlags, o.contexts.AllContexts) {
			return fmt.Errorf("--all stops every cache of your OS user; it cannot be combined with --all-contexts or several contexts")
		}
		return nil
	}
	var err error
	o.targets, err = o.contexts.Targets(o.configFlags, false)
	return err
}

// Validate has nothing to check.
func (o *CacheStopOptions) Validate() error { return nil }

// Run stops the cache of each target (eachContext), or every cache of the
// OS user (--all), and waits for their sockets to go.
func (o *CacheStopOptions) Run(context.Context) error {
	if !o.All {
		return eachContext(o.targets, o.Out, o.ErrOut, func(t targets.Target, out, errOut io.Writer) error {
			id, err := engines.ResolveCacheIdentity(t.ConfigFlags)
			if err != nil {
				return err
			}
			return stopPrinting(id.Socket, out, errOut)
		})
	}
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
		errs = append(errs, stopPrinting(socket, o.Out, o.ErrOut))
	}
	return errors.Join(errs...)
}

// stopPrinting stops the cache at socket (stopCache) and says so on out,
// or on errOut that none runs there.
func stopPrinting(socket string, out, errOut io.Writer) error {
	err := stopCache(socket)
	switch {
	case errors.Is(err, client.ErrNoCache):
		fmt.Fprintln(errOut, "no cache runs for this identity")
		return nil
	case err == nil:
		fmt.Fprintf(out, "stopped the cache at %s\n", socket)
	}
	return err
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

// addContextsFlag adds --all-contexts to a cache subcommand; verb says
// what it does in each context.
func addContextsFlag(cmd *cobra.Command, verb string) *targets.Flags {
	f := targets.AddFlags(cmd)
	cmd.Flags().Lookup("all-contexts").Usage = verb + " for every context of the kubeconfig, one cache per context (see --context, which also takes several names joined by commas and shell-style patterns such as 'prod-*'). A context that fails is named on stderr, the others are done, and the exit code is 1."
	return f
}

// withContextArg returns the kubeconfig arguments of a cache process
// (engines.KubeconfigArgs) for context name: any --context replaced by
// --context=name.
func withContextArg(args []string, name string) []string {
	out := make([]string, 0, len(args)+1)
	for _, a := range args {
		if a == "--context" || strings.HasPrefix(a, "--context=") {
			continue
		}
		out = append(out, a)
	}
	return append(out, "--context="+name)
}

// eachContext runs fn for each target of set, each its own warm cache (a
// process and socket for the identity of its context), through
// targets.Answer: one target writes to out and errOut as it goes, and its
// error is the command's. Several run all at once; then each one's stdout
// and stderr are written, target by target in the order selected (stderr first), every
// line prefixed by the context's name, and a context missing from the
// kubeconfig or whose fn fails is named on errOut: the error is then a
// *targets.PartialError.
func eachContext(set targets.Set, out, errOut io.Writer, fn func(t targets.Target, out, errOut io.Writer) error) error {
	results := targets.Answer(context.Background(), set, nil, 0, errOut, func(_ context.Context, t targets.Target, errOut io.Writer) (*targets.Buffer, error) {
		if !set.Several {
			return nil, fn(t, out, errOut)
		}
		stdout := &targets.Buffer{}
		return stdout, fn(t, stdout, errOut)
	})
	_, failures, err := targets.Answers(set, results, errOut)
	if err != nil {
		return err
	}
	for _, r := range results {
		r.Value.FlushPrefixed(out, r.Target.Name)
	}
	return failures.Err()
}
