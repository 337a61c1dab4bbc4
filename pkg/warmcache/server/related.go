package server

import (
	"context"
	"errors"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
)

// PoolTypes are the engine.RelatedTypes of the commands a warm cache runs:
// the owner types, selecting kinds, nodes, pods and referring kinds (uses,
// used-by) their relations read are leased from Pool, whole objects, like
// the commands' own types, and shared
// with other commands (a command of some namespaces reads the entry of all
// namespaces through a view, see Pool). Ending the use of them ends the
// leases, not the engines: they stay warm for the next command, until the
// pool evicts them for lack of users.
type PoolTypes struct {
	// Pool leases the related types.
	Pool *Pool
	// forKept marks the leases as a kept set's (Options.forKept).
	forKept bool
}

// KeptRelations implements engine.RelationsKeeper: the pool keeps the
// relation indexes of one-shot commands, following changes, until the
// engines they index leave the pool or no command asked for them for
// EvictAfter; a kept set leases its related types from the pool itself.
func (p PoolTypes) KeptRelations() (*engine.KeptRelations, engine.RelatedTypes) {
	return p.Pool.kept, PoolTypes{Pool: p.Pool, forKept: true}
}

// RESTMapper implements engine.RelatedTypes with the mapper of the pool's
// source.
func (p PoolTypes) RESTMapper() meta.RESTMapper { return p.Pool.source.RESTMapper() }

// Start implements engine.RelatedTypes: it leases each mapping on its own,
// concurrently, so that a type the identity may not read, or whose list the
// API server refuses, is reported in Unreadable (as engine.StartEach reports
// it) instead of failing the others. A type whose entry the pool holds but
// whose latest list or watch was refused (Lease.Denied) is unreadable too.
// Of cfg it uses Namespaces, Indexes (registered as Acquire registers
// them) and SyncTimeout, which bounds the wait for each type; the types always hold whole objects. It fails only when ctx ends;
// the returned Each's Shutdown ends every lease.
func (p PoolTypes) Start(ctx context.Context, mappings []*meta.RESTMapping, cfg engine.Config) (*engine.Each, error) {
	leases := make([]*Lease, len(mappings))
	errs := make([]error, len(mappings))
	var wg sync.WaitGroup
	for i, mapping := range mappings {
		wg.Go(func() { leases[i], errs[i] = p.lease(ctx, mapping, cfg) })
	}
	wg.Wait()
	release := func() {
		for _, l := range leases {
			if l != nil {
				l.Shutdown()
			}
		}
	}
	var types []*engine.Type
	var unreadable []engine.UnreadableType
	for i, mapping := range mappings {
		if errs[i] != nil {
			unreadable = append(unreadable, engine.UnreadableType{Name: mapping.Resource.GroupResource().String(), Err: errs[i]})
			continue
		}
		types = append(types, leases[i].Types()[0])
	}
	return engine.NewEach(types, unreadable, release), ctx.Err()
}

// lease leases mapping's type as Start needs it: a lease on a synced
// entry, or why the type cannot be read.
func (p PoolTypes) lease(ctx context.Context, mapping *meta.RESTMapping, cfg engine.Config) (*Lease, error) {
	acquireCtx, cancel := ctx, context.CancelFunc(func() {})
	if cfg.SyncTimeout > 0 {
		acquireCtx, cancel = context.WithTimeout(ctx, cfg.SyncTimeout)
	}
	defer cancel()
	l, err := p.Pool.Acquire(acquireCtx, []*meta.RESTMapping{mapping}, engine.Config{
		Namespaces:  cfg.Namespaces,
		Indexes:     cfg.Indexes,
		FullObjects: true,
		SyncTimeout: cfg.SyncTimeout,
	}, Options{forKept: p.forKept})
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		// Another command's engine still syncing: the wait a command of
		// its own would have had.
		return nil, &engine.SyncTimeoutError{Timeout: cfg.SyncTimeout, Pending: []engine.TypeProgress{{Name: mapping.Resource.GroupResource().String()}}}
	}
	if err != nil {
		return nil, err
	}
	if _, lastErr, denied := l.Denied(); denied {
		l.Shutdown()
		return nil, errors.New(lastErr)
	}
	return l, nil
}
