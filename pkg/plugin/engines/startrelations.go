package engines

import (
	"context"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
)

// StartWithRelations starts req's engine over the target's source and,
// once its types have synced, the relations that the relation indexes of
// req.Indexes read (engine.StartRelations with rel, its related caches,
// namespaces and sync timeout the target's). With req.Queue (a watch), a
// change of a related object that changes the relation index values of
// watched objects is pushed to it as a MODIFIED event of each of them.
// Related types that cannot be read are warned of on req.ErrOut. On an
// error nothing is left running; otherwise the caller shuts down both
// (the relations first).
func (o *EngineOptions) StartWithRelations(ctx context.Context, req EngineRequest, rel engine.RelationsConfig) (RunningEngine, *engine.Relations, error) {
	eng, err := o.Engines.Start(ctx, o.Source, req)
	if err != nil {
		return nil, nil, err
	}
	rel.Related, rel.Namespaces, rel.SyncTimeout = o.Engines.Related(o.Source), o.Namespaces, o.SyncTimeout
	if queue := req.Queue; queue != nil {
		rel.OnRelated = func(t *engine.Type, cause string, changes []engine.RelationChange) {
			for _, c := range changes {
				queue.Push(&engine.Event{Type: engine.Modified, Resource: t, Old: c.Object, New: c.Object, Key: c.Key, Related: c.Changes, Cause: cause})
			}
		}
	}
	related, err := engine.StartRelations(ctx, eng.Types(), req.Indexes, rel)
	if err != nil {
		eng.Shutdown()
		return nil, nil, err
	}
	WarnUnreadable(req.ErrOut, related.Unreadable())
	return eng, related, nil
}
