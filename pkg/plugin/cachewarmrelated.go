package plugin

import (
	"github.com/kubectl-informer/kubectl-informer/pkg/cache"
	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/server"
)

// related leases the related types from the warm cache's pool, shared with
// other commands: they stay warm after the command (server.PoolTypes).
func (w warmEngines) related(cache.Source) cache.RelatedTypes {
	return server.PoolTypes{Pool: w.env.pool}
}
