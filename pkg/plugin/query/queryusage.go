package query

import (
	"context"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-informer/kubectl-informer/pkg/aggregate"
)

// readsUsage reports whether the query reads the metrics API: a usage
// measure (--sum usage.cpu), or a --filter that refers to usage.
func (o *QueryOptions) readsUsage() bool {
	return aggregate.NeedsUsage(o.print.measures) || (o.filterGuard != nil && o.filterGuard.Program().ReadsUsage())
}

// readUsage reads the target's metrics API once and gives its samples to
// the target's measures and --filter (which then see no usage if it could
// not be read).
func (t *queryTarget) readUsage(ctx context.Context) {
	s := t.ReadUsage(ctx, t.errOut)
	t.print.measures = aggregate.BindUsage(t.print.measures, s)
	if t.filter != nil {
		t.filter = t.filter.WithUsage(func(obj any) (corev1.ResourceList, bool) {
			sample, ok := s.Of(obj)
			return sample.Usage, ok
		})
	}
}
