package capacity

import (
	"context"
	"io"
	"time"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/targets"
)

// Question is capacity's flags as data, for a caller without a command
// line.
type Question struct {
	// Namespace is -n: only its pods count; "" counts every namespace's.
	Namespace string
	// Selector is -l, on nodes.
	Selector string
	// GroupBy is --group-by, an index of nodes (label:KEY); "" is a row
	// per node.
	GroupBy string
	// Sums are --sum measures (requests.RESOURCE, limits.RESOURCE, or
	// globs of RESOURCE).
	Sums []string
	// Resources are --resource names or globs.
	Resources []string
	// Usage is --usage: what the nodes and their pods use, from the
	// samples of the metrics API the env keeps.
	Usage  bool
	SortBy string
	Top    int
	// SyncTimeout is --sync-timeout.
	SyncTimeout time.Duration
}

// AnswerWarm answers q for the target named target from env's warm
// engines (a pool of shared informers, which it leases for the call), with
// the capacity command's own code: its object, rows sorted by q.SortBy and
// cut to q.Top, and the number of rows before the cut. The API server's
// warnings and capacity's own go to errOut. It blocks until the pool's
// informers of nodes and pods have synced, or ctx ends.
func AnswerWarm(ctx context.Context, env *engines.ServeEnv, target string, q Question, errOut io.Writer) (obj *Object, rows int, err error) {
	o := NewCapacityOptions(nil, genericiooptions.IOStreams{Out: io.Discard, ErrOut: errOut})
	o.EngineOptions = env.Options(q.Namespace, q.SyncTimeout)
	o.AllNamespaces, o.LabelSelector, o.Resources, o.Usage = q.Namespace == "", q.Selector, q.Resources, q.Usage
	o.GroupBy, o.Sums, o.SortBy, o.Top = q.GroupBy, q.Sums, q.SortBy, q.Top
	if err := o.completeQuestion(); err != nil {
		return nil, 0, err
	}
	if err := o.Validate(); err != nil {
		return nil, 0, err
	}
	a := &capacityAnswer{Context: target}
	if err := o.answer(ctx, targets.Target{Name: target, ConfigFlags: o.ConfigFlags}, a, errOut); err != nil {
		return nil, 0, err
	}
	if err := o.tables([]*capacityAnswer{a}); err != nil {
		return nil, 0, err
	}
	rows = len(a.Table.Rows)
	if err := o.sortAndCut(&a.Table, 1); err != nil {
		return nil, 0, err
	}
	return objectOf(a), rows, nil
}
