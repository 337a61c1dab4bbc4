package tree

import (
	"context"
	"io"
	"strings"
	"time"

	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/printing"
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
	configFlags := genericclioptions.NewConfigFlags(true)
	namespace := q.Namespace
	if namespace == "" {
		namespace = "default"
	}
	configFlags.Namespace = &namespace
	o := NewTreeOptions(configFlags, genericiooptions.IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: errOut})
	zero := time.Duration(0)
	o.Engines = engines.WarmEngines{Env: env, MaxStaleness: &zero}
	o.AllNamespaces, o.LabelSelector, o.Up, o.Refs, o.Types, o.SyncTimeout = q.AllNamespaces, q.Selector, q.Up, q.Refs, q.Types, q.SyncTimeout
	if o.SyncTimeout <= 0 {
		o.SyncTimeout = 60 * time.Second
	}
	var err error
	if o.roots, err = parseTreeArgs(q.Roots); err != nil {
		return nil, err
	}
	if err := o.CompleteFlags(); err != nil {
		return nil, err
	}
	if o.out, err = printing.ParseOutput(""); err != nil {
		return nil, err
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	c := &treeTarget{EngineOptions: o.EngineOptions, q: o, errOut: errOut}
	if err := c.connect(targets.Target{Name: target, ConfigFlags: configFlags}); err != nil {
		return nil, err
	}
	a := &treeAnswer{Context: target}
	if err := c.answer(ctx, a); err != nil {
		return nil, err
	}
	return a.Lines, nil
}
