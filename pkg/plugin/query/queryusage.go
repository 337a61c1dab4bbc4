package query

import (
	"context"
	"fmt"
	"io"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"

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

// followUsage keeps the usage measures of w, a grouped query -w's running
// answer of target t, on the target's latest metrics API sample until ctx
// ends: a Poller reads the API at its resolution (it has no watch), and
// each new sample rebinds the measures, under rows.mu, and tells rows the
// answer changed, so that it is looked up and redrawn. A failed reading is
// said once per error on errOut; the measures keep the last sample. It
// returns once the Poller's Run has.
func (t *queryTarget) followUsage(ctx context.Context, w *running, rows *watchOutput, errOut io.Writer) {
	mappings := make([]*meta.RESTMapping, 0, len(w.types))
	for _, typ := range w.types {
		mappings = append(mappings, typ.Mapping)
	}
	pods, nodes := engines.UsageOf(mappings)
	if !pods && !nodes {
		return
	}
	poller, err := t.UsagePoller(pods, nodes)
	if err != nil {
		fmt.Fprintf(errOut, "warning: reading usage: %v; the usage sums stay as they were\n", err)
		return
	}
	usage.Follow(ctx, poller, func(s *usage.Snapshot) {
		rows.mu.Lock()
		w.cfg.measures = aggregate.BindUsage(w.cfg.measures, s)
		rows.mu.Unlock()
		rows.notify()
	}, func(err error) {
		fmt.Fprintf(errOut, "warning: reading usage: %v; the usage sums stay as they were\n", err)
	})
}
