package plugin

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/server"
)

// serveEnv is what a command run inside a warm cache process uses instead
// of building its own: the process's source (one identity's API server) and
// its pool of warm engines.
type serveEnv struct {
	server string
	source engine.Source
	pool   *server.Pool
	// warnings are the API server's warnings the process's lists and
	// watches got.
	warnings *server.Warnings
	// Per request: location is the client's time zone (clientLocation of
	// its Request); printWarning prints an API warning on the command's
	// stderr as the client's own command would (apiWarnings).
	location     *time.Location
	printWarning func(message string)
}

// warmEngines leases the warm cache's engines, and the related types the
// command's relations read (related). It declines (declinedError) what one
// shared informer cannot answer as the command's own would: what the pool
// does not share (server.NotSharedError: a computed --indexer index that
// reads now, or one that hit CEL's cost limit in the cache);
// and, with --max-staleness, a type whose watch has been failing for
// longer. Other --indexer indexes are served: the pool registers each
// definition once, whatever the commands call it (see the server package's
// custom.go). A type whose list or watch the API server refuses (401, 403)
// is declined too, and evicted by the pool: the command then gets the
// server's refusal itself. The cache learns of a revocation only when the
// informer next lists or watches (a watch is renewed every 5 to 10 minutes).
//
// The API server's warnings of the types' lists and watches are printed on
// the command's stderr (printWarning) as the command's own list and watch
// would print them: those the cache holds before the answer, later ones as
// they come; none for a command the cache declines.
type warmEngines struct {
	env *serveEnv
	// maxStaleness is the command's --max-staleness, read when it starts.
	maxStaleness *time.Duration
}

// namespace returns the -n the client made explicit, without reading a
// kubeconfig (the process's own is another user's view of the file), or
// else the kubeconfig context's, as directEngines does.
func (w warmEngines) namespace(configFlags *genericclioptions.ConfigFlags) (string, error) {
	if configFlags.Namespace != nil && *configFlags.Namespace != "" {
		return *configFlags.Namespace, nil
	}
	return directEngines{}.namespace(configFlags)
}

// connect returns the process's source: commands never build clients of
// their own inside a cache.
func (w warmEngines) connect(*genericclioptions.ConfigFlags) (engine.Source, string, error) {
	return w.env.source, w.env.server, nil
}

// resolve resolves through the process's discovery, which is as old as the
// cache: a type created since (a new CRD) is found after one fresh
// discovery, as a command of its own would find it.
func (w warmEngines) resolve(source engine.Source, args []string) ([]*meta.RESTMapping, error) {
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

func (w warmEngines) shared() bool { return true }

// location is the client's time zone, which the client sent with its
// request; the process's own otherwise.
func (w warmEngines) location() *time.Location {
	if w.env.location != nil {
		return w.env.location
	}
	return time.Local
}

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

// declinedError says why the warm cache does not answer a command; the
// client then answers it itself, printing warning first if set.
type declinedError struct {
	reason  string
	warning string
}

func (e *declinedError) Error() string { return "the warm cache declined: " + e.reason }

func (w warmEngines) start(ctx context.Context, _ engine.Source, req engineRequest) (runningEngine, error) {
	resources := make([]schema.GroupVersionResource, 0, len(req.mappings))
	for _, m := range req.mappings {
		resources = append(resources, m.Resource)
	}
	printWarning := w.env.printWarning
	if printWarning == nil {
		printWarning = func(string) {}
	}
	warnings := w.env.warnings.Subscribe(resources, printWarning)
	lease, err := w.lease(ctx, req)
	if err != nil {
		warnings.Cancel()
		return nil, err
	}
	// As the command's own list would, before its answer.
	warnings.Release()
	t, since, lastErr, stale := lease.Stale()
	if stale && req.queue == nil {
		// A query: say it once. A watch's error reporter has been told.
		age := time.Since(since).Round(time.Second)
		fmt.Fprintf(req.errOut, "warning: the warm cache's watch of %s has been failing since %s (%s): %s; this answer may be stale\n", t.Name(), since.UTC().Format(time.RFC3339), age, lastErr)
	}
	return warnedLease{Lease: lease, warnings: warnings}, nil
}

// lease acquires the engines of req from the pool, declining (declinedError)
// those the pool cannot share or whose watch was refused or, with
// --max-staleness, fails for too long.
func (w warmEngines) lease(ctx context.Context, req engineRequest) (*server.Lease, error) {
	// Wait for the engines no longer than this command's own --sync-timeout,
	// whatever the timeout of the command that started them.
	acquireCtx, cancel := ctx, context.CancelFunc(func() {})
	if req.config.SyncTimeout > 0 {
		acquireCtx, cancel = context.WithTimeout(ctx, req.config.SyncTimeout)
	}
	defer cancel()
	lease, err := w.env.pool.Acquire(acquireCtx, req.mappings, req.config, server.Options{Queue: req.queue})
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		return nil, fmt.Errorf("timed out after %s waiting for the warm cache to sync (raise --sync-timeout for very large lists)", req.config.SyncTimeout)
	}
	var timeout *engine.SyncTimeoutError
	if errors.As(err, &timeout) {
		return nil, fmt.Errorf("%w (raise --sync-timeout for very large lists)", err)
	}
	var notShared *server.NotSharedError
	if errors.As(err, &notShared) {
		return nil, &declinedError{reason: notShared.Reason}
	}
	if engine.IsForbidden(err) {
		// Let the command ask the API server itself and print its refusal
		// exactly as a command without the cache does.
		return nil, &declinedError{reason: "the API server refused the cache's list: " + err.Error()}
	}
	if err != nil {
		return nil, err
	}
	if t, lastErr, denied := lease.Denied(); denied {
		lease.Shutdown()
		return nil, &declinedError{reason: fmt.Sprintf("the API server refused the watch of %s: %s", t.Name(), lastErr)}
	}
	t, since, _, stale := lease.Stale()
	if !stale {
		return lease, nil
	}
	age := time.Since(since).Round(time.Second)
	if *w.maxStaleness > 0 && age > *w.maxStaleness {
		lease.Shutdown()
		return nil, &declinedError{
			reason:  fmt.Sprintf("the watch of %s has been failing for %s", t.Name(), age),
			warning: fmt.Sprintf("warning: the warm cache's watch of %s has been failing for %s (since %s), longer than --max-staleness %s; asking the API server directly", t.Name(), age, since.UTC().Format(time.RFC3339), *w.maxStaleness),
		}
	}
	return lease, nil
}
