package tree

import (
	"context"
	"io"
	"time"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/targets"
)

// Question is tree's arguments and flags as data, for a caller without a
// command line.
type Question struct {
	// Roots are the arguments: TYPE/NAME..., or TYPE [NAME...].
	Roots []string
	// Namespace is -n, the namespace the roots are looked for in; it must
	// be set unless AllNamespaces.
	Namespace     string
	AllNamespaces bool
	// Selector is -l, which picks the roots among every object of TYPE.
	Selector string
	// Up and Refs are --up and --refs; Types is --types.
	Up, Refs bool
	Types    []string
	// SyncTimeout is --sync-timeout.
	SyncTimeout time.Duration
}

// AnswerWarm answers q for the target named target with the tree
// command's own code over env's pool: the roots, the types followed down,
// and the owners and references --up and --refs read are leased from it,
// started by the first call that needs them and kept warm for the next. Its lines carry the table's cells (no objects);
// warnings go to errOut. A named root the target does not have is an
// error that says so, as the command's.
func AnswerWarm(ctx context.Context, env *engines.ServeEnv, target string, q Question, errOut io.Writer) ([]Line, error) {
	o := NewTreeOptions(nil, genericiooptions.IOStreams{Out: io.Discard, ErrOut: errOut})
	o.EngineOptions = env.Options(q.Namespace, q.SyncTimeout)
	o.AllNamespaces, o.LabelSelector, o.Up, o.Refs, o.Types = q.AllNamespaces, q.Selector, q.Up, q.Refs, q.Types
	if err := o.completeQuestion(q.Roots); err != nil {
		return nil, err
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	a, err := o.answerTarget(ctx, targets.Target{Name: target, ConfigFlags: o.ConfigFlags}, errOut)
	if err != nil {
		return nil, err
	}
	return a.Lines, nil
}
