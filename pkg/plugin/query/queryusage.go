package query

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"

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
func (t *queryTarget) readUsage(ctx context.Context, configFlags *genericclioptions.ConfigFlags) {
	namespace := ""
	if len(t.Namespaces) == 1 {
		namespace = t.Namespaces[0]
	}
	s := t.ReadUsage(ctx, configFlags, namespace, t.errOut)
	t.print.measures = aggregate.BindUsage(t.print.measures, s)
	if t.filter != nil {
		t.filter = t.filter.WithUsage(func(obj any) (corev1.ResourceList, bool) {
			sample, ok := s.Of(obj)
			return sample.Usage, ok
		})
	}
}
