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
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/kubectl-informer/kubectl-informer/internal/version"
	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
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
	if err := validateIdleTimeout(o.IdleTimeout); err != nil {
		return err
	}
	if err := validateEvictAfter(o.EvictAfter); err != nil {
		return err
	}
	if err := validateRecord(o.Record, o.Retain); err != nil {
		return err
	}
	var kubeArgs []string
	if err := json.NewDecoder(os.Stdin).Decode(&kubeArgs); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("reading the kubeconfig flags on stdin: %w", err)
	}
	configFlags := genericclioptions.NewConfigFlags(true).
		WithDiscoveryBurst(300).
		WithDiscoveryQPS(50).
		WithWrapConfigFn(func(c *rest.Config) *rest.Config {
			c.UserAgent = version.UserAgent()
			return c
		})
	flags := pflag.NewFlagSet("kubeconfig", pflag.ContinueOnError)
	configFlags.AddFlags(flags)
	if err := flags.Parse(kubeArgs); err != nil {
		return fmt.Errorf("parsing the kubeconfig flags: %w", err)
	}
	id, err := engines.ResolveCacheIdentity(configFlags)
	if err != nil {
		return err
	}
	restConfig, err := configFlags.ToRESTConfig()
	if err != nil {
		return err
	}
	mapper, err := engines.WarmRESTMapper(configFlags)
	if err != nil {
		return err
	}
	// The API server's warnings of the informers' lists and watches, for
	// the commands to print (they are logged too, by client-go's default
	// handler).
	warnings := server.NewWarnings()
	restConfig.Wrap(warnings.WrapTransport)
	source, err := engine.NewAPIServer(restConfig, mapper, version.UserAgent())
	if err != nil {
		return err
	}
	if err := client.EnsureDir(id.Dir); err != nil {
		return err
	}
	if conn, err := client.Dial(id.Socket, engines.DialTimeout); err == nil {
		conn.Close()
		return fmt.Errorf("a cache already runs for this identity (pid %d, socket %s)", conn.Hello.Pid, id.Socket)
	} else if !errors.Is(err, client.ErrNoCache) {
		free, rmErr := client.RemoveStale(id.Socket)
		if rmErr != nil {
			return rmErr
		}
		if !free {
			return fmt.Errorf("%v; stop it first: kubectl informer cache stop", err)
		}
	}
	listener, err := server.Listen(id.Socket)
	if err != nil {
		return err
	}
	pool := server.NewPool(source, server.PoolOptions{EvictAfter: o.EvictAfter})
	defer pool.Shutdown()
	var recorder *server.Recorder
	if o.Record != "" {
		recorder, err = server.NewRecorder(pool, server.RecordOptions{Dir: o.Record, Retain: o.Retain, Server: restConfig.Host})
		if err != nil {
			return err
		}
	}
	env := &engines.ServeEnv{Server: restConfig.Host, Source: source, Pool: pool, Warnings: warnings}
	user, kubeContext := engines.UserName(configFlags)
	srv := &server.Server{
		Listener:    listener,
		Collect:     query.CollectHandler(env),
		Stream:      server.StreamHandler(pool, warnings, source),
		IdleTimeout: o.IdleTimeout,
		Build:       version.Version,
		BuildID:     version.BuildID(),
		Status: func(st *protocol.Status) {
			st.Server, st.User, st.Context = restConfig.Host, user, kubeContext
			st.Caches = pool.Status()
			if recorder != nil {
				st.Recording = recorder.Status()
			}
		},
	}
	ctx, stop := cmdutil.Interruptible(ctx)
	defer stop()
	if recorder != nil {
		recordCtx, stopRecording := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() {
			recorder.Run(recordCtx)
			close(done)
		}()
		// Before the pool shuts down: the segment is closed whole.
		defer func() {
			stopRecording()
			<-done
		}()
	}
	klog.InfoS("listening", "socket", id.Socket, "server", restConfig.Host, "user", user, "idleTimeout", srv.IdleTimeout)
	listening()
	return srv.Serve(ctx)
}
