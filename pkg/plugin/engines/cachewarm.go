package engines

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/restmapper"

	"github.com/kubectl-informer/kubectl-informer/internal/version"
	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/usage"
	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/server"
)

// ServeEnv is what a command run inside a warm cache process uses instead
// of building its own: the process's source (one identity's API server) and
// its pool of warm engines.
type ServeEnv struct {
	Server string
	Source engine.Source
	Pool   *server.Pool
	// Warnings are the API server's warnings the process's lists and
	// watches got.
	Warnings *server.Warnings
	// PrintWarning, per request, takes an API warning for the client to
	// print as its own command would.
	PrintWarning func(message string)
	// At is the instant Source's objects are as of, when they are a
	// recording's state at an instant: the commands' ages count from it.
	// Zero for a live source.
	At time.Time
	// Usage keeps the metrics API's samples the commands' usage
	// measures read (ReadUsage); nil where there is no metrics API to
	// read (a recording).
	Usage *server.Samples
}

// NewServeEnv returns the warm engines of configFlags' identity: its API
// server as their source (wrapped by wrap, when set), the API server's
// warnings of their lists and watches (logged too, by client-go's default
// handler), and an empty pool whose informers start the first time a type
// is asked for and are evicted after evictAfter without users (0: never),
// and the metrics API's samples kept alike (Usage).
// Its REST mapper is kubectl's (deferred discovery behind the short-name
// expander), with discovery kept in memory rather than read back from the
// disk cache for every command; Reset (WarmEngines.resolve calls it when a
// type is not found) empties the memory and the disk cache alike, so a
// type created since is found after one fresh discovery. It sends no
// request.
func NewServeEnv(configFlags *genericclioptions.ConfigFlags, evictAfter time.Duration, wrap func(engine.Source) engine.Source) (*ServeEnv, error) {
	restConfig, err := configFlags.ToRESTConfig()
	if err != nil {
		return nil, err
	}
	disk, err := configFlags.ToDiscoveryClient()
	if err != nil {
		return nil, err
	}
	discovery := memory.NewMemCacheClient(disk)
	mapper := restmapper.NewShortcutExpander(restmapper.NewDeferredDiscoveryRESTMapper(discovery), discovery, func(string) {})
	warnings := server.NewWarnings()
	restConfig.Wrap(warnings.WrapTransport)
	apiServer, err := engine.NewAPIServer(restConfig, mapper, version.UserAgent())
	if err != nil {
		return nil, err
	}
	var source engine.Source = apiServer
	if wrap != nil {
		source = wrap(source)
	}
	metrics, err := usage.NewClient(restConfig)
	if err != nil {
		return nil, err
	}
	return &ServeEnv{Server: restConfig.Host, Source: source, Warnings: warnings,
		Pool:  server.NewPool(source, server.PoolOptions{EvictAfter: evictAfter}),
		Usage: server.NewSamples(metrics, evictAfter)}, nil
}

// Shutdown stops the env's informers and its readers of the metrics API,
// and waits for them.
func (e *ServeEnv) Shutdown() {
	e.Pool.Shutdown()
	if e.Usage != nil {
		e.Usage.Shutdown()
	}
}

// Options are the engine options of a command answered over e's pool for
// a caller without a command line: its -n is namespace ("default" when
// empty), its --sync-timeout syncTimeout (60s when not positive), and no
// type is declined as stale (--max-staleness 0).
func (e *ServeEnv) Options(namespace string, syncTimeout time.Duration) EngineOptions {
	if namespace == "" {
		namespace = "default"
	}
	if syncTimeout <= 0 {
		syncTimeout = 60 * time.Second
	}
	configFlags := genericclioptions.NewConfigFlags(true)
	configFlags.Namespace = &namespace
	zero := time.Duration(0)
	return EngineOptions{ConfigFlags: configFlags, Engines: WarmEngines{Env: e, MaxStaleness: &zero}, SyncTimeout: syncTimeout}
}

// WarmEngines leases the warm cache's engines, and the related types the
// command's relations read (related). It declines (declinedError) what one
// shared informer cannot answer as the command's own would: what the pool
// does not share (server.NotSharedError: a computed --indexer index that
// reads now, or one that hit CEL's cost limit in the cache);
// and, with --max-staleness, a type whose watch has been failing for
// longer. Other --indexer indexes are served: the pool registers each
// definition once, whatever the commands call it. A type whose list or watch the API server refuses (401, 403)
// is declined too, and evicted by the pool: the command then gets the
// server's refusal itself. The cache learns of a revocation only when the
// informer next lists or watches (a watch is renewed every 5 to 10 minutes).
//
// The API server's warnings of the types' lists and watches are printed on
// the command's stderr (printWarning) as the command's own list and watch
// would print them: those the cache holds before the answer, later ones as
// they come; none for a command the cache declines.
type WarmEngines struct {
	Env *ServeEnv
	// MaxStaleness is the command's --max-staleness, read when it starts.
	MaxStaleness *time.Duration
}

// Namespace returns the -n the client made explicit, without reading a
// kubeconfig (the process's own is another user's view of the file), or
// else the kubeconfig context's, as directEngines does.
func (w WarmEngines) Namespace(configFlags *genericclioptions.ConfigFlags) (string, error) {
	if configFlags.Namespace != nil && *configFlags.Namespace != "" {
		return *configFlags.Namespace, nil
	}
	return DirectEngines{}.Namespace(configFlags)
}

// connect returns the process's source: commands never build clients of
// their own inside a cache.
func (w WarmEngines) connect(*genericclioptions.ConfigFlags) (engine.Source, string, error) {
	return w.Env.Source, w.Env.Server, nil
}

// resolve resolves through the process's discovery, which is as old as the
// cache: a type created since (a new CRD) is found after one fresh
// discovery, as a command of its own would find it.
func (w WarmEngines) resolve(source engine.Source, args []string) ([]*meta.RESTMapping, error) {
	mappings, err := engine.Resolve(source.RESTMapper(), args)
	if err == nil {
		return mappings, nil
	}
	if mapper, ok := source.RESTMapper().(meta.ResettableRESTMapper); ok {
		mapper.Reset()
		return engine.Resolve(source.RESTMapper(), args)
	}
	return nil, err
}

func (w WarmEngines) Shared() bool { return true }

// warnedLease is a lease whose command prints the API warnings of its
// types until it ends.
type warnedLease struct {
	*server.Lease
	warnings *server.Subscription
}

// Shutdown ends the command's warnings, then its lease.
func (l warnedLease) Shutdown() {
	l.warnings.Cancel()
	l.Lease.Shutdown()
}

func (w WarmEngines) Start(ctx context.Context, _ engine.Source, req EngineRequest) (RunningEngine, error) {
	warnings := w.Env.subscribe(req.Mappings)
	lease, err := w.Env.Pool.AcquireFresh(ctx, req.Mappings, req.Config, server.Options{Queue: req.Queue}, *w.MaxStaleness)
	if err != nil {
		warnings.Cancel()
		return nil, err
	}
	// As the command's own list would, before its answer.
	warnings.Release()
	t, since, lastErr, stale := lease.Stale()
	if stale && req.Queue == nil {
		// A query: say it once. A watch's error reporter has been told.
		age := time.Since(since).Round(time.Second)
		fmt.Fprintf(req.ErrOut, "warning: the warm cache's watch of %s has been failing since %s (%s): %s; this answer may be stale\n", t.Name(), since.UTC().Format(time.RFC3339), age, lastErr)
	}
	return warnedLease{Lease: lease, warnings: warnings}, nil
}

// subscribe subscribes a command to the API warnings of the types of
// mappings, which it prints with PrintWarning.
func (e *ServeEnv) subscribe(mappings []*meta.RESTMapping) *server.Subscription {
	resources := make([]schema.GroupVersionResource, 0, len(mappings))
	for _, m := range mappings {
		resources = append(resources, m.Resource)
	}
	printWarning := e.PrintWarning
	if printWarning == nil {
		printWarning = func(string) {}
	}
	return e.Warnings.Subscribe(resources, printWarning)
}
