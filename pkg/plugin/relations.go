package plugin

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/kubectl-informer/kubectl-informer/pkg/cache"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// plainIndexes returns defs without the relationship indexes (owner-root), which are
// registered only after the caches they read have synced; see startRelations.
func plainIndexes(defs []index.Definition) []index.Definition {
	var plain []index.Definition
	for _, def := range defs {
		if def.Relation == index.NoRelation {
			plain = append(plain, def)
		}
	}
	return plain
}

// startRelations is the second phase of an engine whose indexes include relationship indexes:
// once types have synced, it caches the owner types their objects' controller references lead
// to (cache.StartOwners), registers the bound owner-root index on every type, and says on errOut
// which owner types it could not read. It returns defs with the relationship indexes bound, in
// the same order, and the owners to shut down (nil when no index needed them).
func startRelations(ctx context.Context, clients *cache.Clients, namespace string, syncTimeout time.Duration, types []*cache.Type, defs []index.Definition, errOut io.Writer) ([]index.Definition, *cache.Owners, error) {
	needsOwners := false
	for _, def := range defs {
		needsOwners = needsOwners || def.Relation == index.OwnerRelation
	}
	if !needsOwners {
		return defs, nil, nil
	}
	var seeds []interface{}
	for _, t := range types {
		seeds = append(seeds, t.Informer.GetIndexer().List()...)
	}
	owners, err := cache.StartOwners(ctx, clients, seeds, cache.OwnersConfig{Namespace: namespace, SyncTimeout: syncTimeout})
	if err != nil {
		return nil, nil, err
	}
	reportUnreadable(errOut, owners)
	bound := make([]index.Definition, len(defs))
	var added []index.Definition
	for i, def := range defs {
		bound[i] = def
		if def.Relation == index.OwnerRelation {
			bound[i] = index.OwnerRoot(owners.Graph())
			added = append(added, bound[i])
		}
	}
	for _, t := range types {
		if err := t.AddIndexes(added...); err != nil {
			owners.Shutdown()
			return nil, nil, err
		}
	}
	return bound, owners, nil
}

// reportUnreadable says on errOut which owner types could not be cached, and so where walks up
// the owners stop.
func reportUnreadable(errOut io.Writer, owners *cache.Owners) {
	for _, u := range owners.Unreadable() {
		fmt.Fprintf(errOut, "Warning: owners stop at %s, which cannot be read: %v\n", u.Name, u.Err)
	}
}
