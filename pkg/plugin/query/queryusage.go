package query

import (
	"context"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-informer/kubectl-informer/pkg/aggregate"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
	"github.com/kubectl-informer/kubectl-informer/pkg/usage"
)

// readsUsage reports whether the query reads the metrics API: a usage
// measure (--sum usage.cpu), or a --filter that refers to usage.
func (o *QueryOptions) readsUsage() bool {
	return aggregate.NeedsUsage(o.print.measures) || (o.filterGuard != nil && o.filterGuard.Program().ReadsUsage())
}

// readUsage reads the target's metrics API once, for the pods and nodes
// among the query's types, and gives its samples to the target's measures
// and --filter (which then see no usage if it could not be read).
func (t *queryTarget) readUsage(ctx context.Context) error {
	mappings, err := t.Resolve(t.q.typeArg)
	if err != nil {
		return err
	}
	pods, nodes := engines.UsageOf(mappings)
	var s *usage.Snapshot
	if pods || nodes {
		s = t.ReadUsage(ctx, t.errOut, pods, nodes)
	}
	t.print.measures = aggregate.BindUsage(t.print.measures, s)
	if t.filter != nil {
		t.filter = t.filter.WithUsage(func(obj any) (corev1.ResourceList, bool) {
			sample, ok := s.Of(obj)
			return sample.Usage, ok
		})
	}
	return nil
}
