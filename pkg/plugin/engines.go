package plugin

import (
	"context"
	"io"

	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/kubectl-informer/kubectl-informer/pkg/cache"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// runningEngine is what query and watch read of a synced engine: a
// *cache.Engine the command started itself, or a lease on a warm cache's
// engines (server.Lease). Shutdown ends the command's use of it.
type runningEngine interface {
	Types() []*cache.Type
	Failed() <-chan struct{}
	Err() error
	Shutdown()
}

// engineRequest is what a command asks of an engine source.
type engineRequest struct {
	mappings []*meta.RESTMapping
	config   cache.Config
	// queue, when set, gets every event of the types, the initial list
	// first (a watch).
	queue *cache.Queue
	// indexes are every index the command uses, relationship and --indexer
	// ones included (config.Indexes holds only those registered before
	// sync): a warm cache declines what it cannot share.
	indexes []index.Definition
	// custom reports whether the command defines --indexer indexes.
	custom bool
	// errOut is the command's stderr, for a warm cache's staleness warning.
	errOut io.Writer
	// pushdown are selectors the command's own engine may have the API
	// server apply to its lists (withPushdown); a warm cache ignores them.
	pushdown []index.Selector
}

// engineSource gives a command a synced engine: directEngines starts one for
// the command, warmEngines (in the cache process) leases shared ones.
type engineSource interface {
	start(ctx context.Context, clients *cache.Clients, req engineRequest) (runningEngine, error)
}

// directEngines starts an engine of the command's own, as every command
// without a warm cache does.
type directEngines struct{}

func (directEngines) start(ctx context.Context, clients *cache.Clients, req engineRequest) (runningEngine, error) {
	engine, err := cache.New(clients, req.mappings, withPushdown(req.config, req.mappings, req.pushdown))
	if err != nil {
		return nil, err
	}
	if req.queue != nil {
		if err := engine.SendEvents(req.queue); err != nil {
			engine.Shutdown()
			return nil, err
		}
	}
	if err := startEngine(ctx, engine); err != nil {
		engine.Shutdown()
		return nil, err
	}
	return engine, nil
}
