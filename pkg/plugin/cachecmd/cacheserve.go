package cachecmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/klog/v2"

	"github.com/kubectl-informer/kubectl-informer/internal/version"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/cmdutil"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/query"
	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/client"
	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/protocol"
	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/server"
)

// cacheServeOptions are the options of the hidden cache serve command,
// which cache start runs detached: the kubeconfig flags come on stdin.
type cacheServeOptions struct {
	IdleTimeout time.Duration
	EvictAfter  time.Duration
	Record      string
	Retain      time.Duration
	ReadyFD     int
	genericiooptions.IOStreams
}

func newCmdCacheServe(streams genericiooptions.IOStreams) *cobra.Command {
	o := &cacheServeOptions{EvictAfter: defaultEvictAfter, Retain: defaultRetain, IOStreams: streams}
	cmd := &cobra.Command{
		Use:    "serve",
		Short:  "Run a warm cache in the foreground (started by cache start)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context())
		},
	}
	cmd.Flags().DurationVar(&o.IdleTimeout, "idle-timeout", 0, "Exit after this long without a request (0: never).")
	cmd.Flags().DurationVar(&o.EvictAfter, "evict-after", o.EvictAfter, "Shut down an informer after this long without a command using it (0: never).")
	addRecordFlags(cmd, &o.Record, &o.Retain)
	cmd.Flags().IntVar(&o.ReadyFD, "ready-fd", client.ReadyFD, "File descriptor on which to say \"ready\" (or why not) once listening; 0 for none.")
	return cmd
}

// run serves until stopped; before it listens, any error also goes to the
// ready pipe, so cache start can show it.
func (o *cacheServeOptions) run(ctx context.Context) error {
	var ready *os.File
	if o.ReadyFD > 0 {
		ready = os.NewFile(uintptr(o.ReadyFD), "ready")
	}
	say := func(msg string) {
		if ready != nil {
			fmt.Fprintln(ready, strings.ReplaceAll(msg, "\n", "; "))
			ready.Close()
			ready = nil
		}
	}
	err := o.serve(ctx, func() { say("ready") })
	if err != nil {
		say(err.Error())
		klog.ErrorS(err, "cache ended")
	}
	return err
}

func (o *cacheServeOptions) serve(ctx context.Context, listening func()) error {
	if err := validateServe(o.IdleTimeout, o.EvictAfter, o.Record, o.Retain); err != nil {
		return err
	}
	configFlags, err := readKubeconfigFlags(os.Stdin, o.IOStreams)
	if err != nil {
		return err
	}
	id, err := engines.ResolveCacheIdentity(configFlags)
	if err != nil {
		return err
	}
	env, err := engines.NewServeEnv(configFlags, o.EvictAfter, nil)
	if err != nil {
		return err
	}
	defer env.Shutdown()
	listener, err := claimSocket(id)
	if err != nil {
		return err
	}
	var recorder *server.Recorder
	if o.Record != "" {
		recorder, err = server.NewRecorder(env.Pool, server.RecordOptions{Dir: o.Record, Retain: o.Retain, Server: env.Server})
		if err != nil {
			return err
		}
	}
	user, kubeContext := engines.UserName(configFlags)
	srv := &server.Server{
		Listener:    listener,
		Collect:     query.CollectHandler(env),
		Stream:      server.StreamHandler(env.Pool, env.Warnings, env.Source),
		IdleTimeout: o.IdleTimeout,
		Build:       version.Version,
		BuildID:     version.BuildID(),
		Status: func(st *protocol.Status) {
			st.Server, st.User, st.Context = env.Server, user, kubeContext
			st.Caches = env.Pool.Status()
			st.Usage = env.Usage.Status()
			if recorder != nil {
				st.Recording = recorder.Status()
			}
		},
	}
	ctx, stop := cmdutil.Interruptible(ctx)
	defer stop()
	if recorder != nil {
		// Stopped before the pool shuts down: the segment is closed whole.
		defer runRecorder(ctx, recorder)()
	}
	klog.InfoS("listening", "socket", id.Socket, "server", env.Server, "user", user, "idleTimeout", srv.IdleTimeout)
	listening()
	return srv.Serve(ctx)
}

// readKubeconfigFlags reads the kubeconfig flags cache start passed on r,
// as JSON, into the ConfigFlags of the cache's clients, whose API warnings
// the process keeps for its clients' commands (ServeEnv).
func readKubeconfigFlags(r io.Reader, streams genericiooptions.IOStreams) (*genericclioptions.ConfigFlags, error) {
	var kubeArgs []string
	if err := json.NewDecoder(r).Decode(&kubeArgs); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("reading the kubeconfig flags on stdin: %w", err)
	}
	configFlags := cmdutil.NewConfigFlags(streams, false)
	flags := pflag.NewFlagSet("kubeconfig", pflag.ContinueOnError)
	configFlags.AddFlags(flags)
	if err := flags.Parse(kubeArgs); err != nil {
		return nil, fmt.Errorf("parsing the kubeconfig flags: %w", err)
	}
	return configFlags, nil
}

// claimSocket listens on the socket of identity id: a socket a live cache
// answers on is refused, one left behind by a dead cache removed.
func claimSocket(id engines.CacheIdentity) (*server.Listener, error) {
	pid, err := answering(id)
	if err == nil && pid != 0 {
		err = fmt.Errorf("a cache already runs for this identity (pid %d, socket %s)", pid, id.Socket)
	}
	if err != nil {
		return nil, err
	}
	return server.Listen(id.Socket)
}

// answering returns the pid of the cache that answers on the socket of
// identity id (its directory made if missing), 0 when none does: a socket
// left behind is removed; one on which a cache still listens (another
// version, or too slow to greet) is an error, and keeps its socket.
func answering(id engines.CacheIdentity) (int, error) {
	if err := client.EnsureDir(id.Dir); err != nil {
		return 0, err
	}
	conn, err := client.Dial(id.Socket, engines.DialTimeout)
	if err == nil {
		conn.Close()
		return conn.Hello.Pid, nil
	}
	if errors.Is(err, client.ErrNoCache) {
		return 0, nil
	}
	free, rmErr := client.RemoveStale(id.Socket)
	if rmErr != nil {
		return 0, rmErr
	}
	if !free {
		return 0, fmt.Errorf("%v; stop it first: kubectl informer cache stop", err)
	}
	return 0, nil
}

// runRecorder runs recorder until ctx ends; the func it returns stops it
// and waits until it has closed its segment.
func runRecorder(ctx context.Context, recorder *server.Recorder) func() {
	ctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		recorder.Run(ctx)
		close(done)
	}()
	return func() {
		stop()
		<-done
	}
}
