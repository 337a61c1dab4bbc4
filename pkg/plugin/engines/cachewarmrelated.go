package engines

import (
	"context"

	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/server"
)

// Related leases the related types from the warm cache's pool, shared with
// other commands: they stay warm after the command (server.PoolTypes).
func (w WarmEngines) Related(engine.Source) engine.RelatedTypes {
	return warnedRelated{PoolTypes: server.PoolTypes{Pool: w.Env.Pool}, env: w.Env}
}

// warnedRelated are the related types of a command inside a warm cache,
// whose API warnings the command prints as it prints those of its own
// types (see warmEngines): those the cache holds once the types are leased,
// later ones as they come, until the command ends its use of them.
type warnedRelated struct {
	server.PoolTypes
	env *ServeEnv
}

// Start implements engine.RelatedTypes.
func (r warnedRelated) Start(ctx context.Context, mappings []*meta.RESTMapping, cfg engine.Config) (*engine.Each, error) {
	warnings := r.env.subscribe(mappings)
	each, err := r.PoolTypes.Start(ctx, mappings, cfg)
	if err != nil {
		warnings.Cancel()
		return each, err
	}
	warnings.Release()
	return engine.NewEach(each.Types, each.Unreadable, func() {
		warnings.Cancel()
		each.Shutdown()
	}), nil
}

// UseRelated implements engine.KeptRelationsUser: a command reading kept
// relation indexes prints the API warnings of their related types as it
// prints those of the related types it leases itself (Start).
func (r warnedRelated) UseRelated(related []*engine.Type) func() {
	mappings := make([]*meta.RESTMapping, 0, len(related))
	for _, t := range related {
		mappings = append(mappings, t.Mapping)
	}
	warnings := r.env.subscribe(mappings)
	warnings.Release()
	return warnings.Cancel
}
