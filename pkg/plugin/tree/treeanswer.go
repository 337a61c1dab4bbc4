package tree

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-informer/kubectl-informer/pkg/object"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/cmdutil"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/printing"
	pluginprogress "github.com/kubectl-informer/kubectl-informer/pkg/plugin/progress"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/targets"
	"github.com/kubectl-informer/kubectl-informer/pkg/tree"
)

// errNoRootHere marks a target in which a named root does not exist.
var errNoRootHere = errors.New("no such root here")

// fleetTreeRunE returns tree's RunE: across contexts when they are chosen
// the fleet way (runFleetTree), next otherwise.
func fleetTreeRunE(o *TreeOptions, f *targets.Flags, next func(*cobra.Command, []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if !targets.Selected(o.ConfigFlags, f.AllContexts) {
			return next(cmd, args)
		}
		return runFleetTree(cmd, args, o, f)
	}
}

// treeAnswer is one target's tree lines, the namespace it looked in, and
// what it wrote on stderr when it is one of several.
type treeAnswer struct {
	name      string
	namespace string
	// out is the -o the target's options parsed.
	out      printing.Output
	lines    []tree.Line
	missing  string // why errNoRootHere
	stderr   *cmdutil.LockedWriter
	shutdown func()
}

// runFleetTree answers tree in each context of a selection, o's flags
// completed for each context on its own, and prints the trees as one
// (answerTreeTargets).
func runFleetTree(cmd *cobra.Command, args []string, o *TreeOptions, f *targets.Flags) error {
	if fl := cmd.Flags().Lookup("from"); fl != nil && fl.Changed {
		return fmt.Errorf("--from reads files, not contexts: it cannot be combined with several contexts")
	}
	set, err := targets.New(o.ConfigFlags, f.AllContexts, true)
	if err != nil {
		return err
	}
	ctx, stop := cmdutil.Interruptible(cmd.Context())
	defer stop()
	return o.answerTreeTargets(ctx, set, func(ctx context.Context, t targets.Target) (*treeAnswer, error) {
		a := &treeAnswer{name: t.Name, stderr: &cmdutil.LockedWriter{W: &bytes.Buffer{}}, shutdown: func() {}}
		co := *o
		co.ConfigFlags = t.ConfigFlags
		co.Engines = engines.DirectEngines{}
		co.IOStreams = genericiooptions.IOStreams{In: o.In, Out: io.Discard, ErrOut: a.stderr}
		if err := co.Complete(cmd, args); err != nil {
			return a, err
		}
		if err := co.Validate(); err != nil {
			return a, err
		}
		return a, co.collectTree(ctx, a)
	})
}

// answerTreeTargets builds the trees of each target of set (answer), in
// parallel, and prints them as one (printTrees). With one target (not
// set.Several) its error is the command's. With several, a target where a
// named root does not exist is left out without an error, unless no
// target has it; each failed context is named on stderr once, the others'
// trees are printed, and the error is a *targets.PartialError.
func (o *TreeOptions) answerTreeTargets(ctx context.Context, set targets.Set, answer func(ctx context.Context, t targets.Target) (*treeAnswer, error)) error {
	progress, deadline := pluginprogress.Of(o.ErrOut, set), set.Deadline(o.SyncTimeout)
	results := targets.Run(ctx, set.Targets, deadline, func(ctx context.Context, t targets.Target) (a *treeAnswer, err error) {
		defer func() {
			if errors.Is(err, errNoRootHere) {
				progress.Set(t.Name, "no root here")
				return
			}
			progress.Done(t.Name, err)
		}()
		if progress != nil {
			progress.Set(t.Name, "reading")
			ctx = pluginprogress.WithTargets(ctx, progress.ListingProgress(t.Name))
		}
		return answer(ctx, t)
	})
	progress.End()
	defer func() {
		for _, r := range results {
			if r.Value != nil {
				r.Value.shutdown()
			}
		}
	}()
	failures, missing := set.Failures(o.ErrOut), 0
	var (
		answers     []*treeAnswer
		lastMissing string
	)
	for _, r := range results {
		if r.Value != nil && r.Value.stderr != nil {
			cmdutil.FlushPrefixed(o.ErrOut, r.Target.Name, r.Value.stderr)
		}
		switch {
		case r.Err != nil && !set.Several:
			if errors.Is(r.Err, errNoRootHere) {
				return errors.New(r.Value.missing)
			}
			return r.Err
		case errors.Is(r.Err, errNoRootHere):
			missing++
			lastMissing = r.Value.missing
		case r.Err != nil:
			failures.Add(r.Target.Name, r.Err)
		default:
			answers = append(answers, r.Value)
		}
	}
	if len(answers) == 0 && missing > 0 {
		if failures.Count() == 0 {
			return fmt.Errorf("%s in any of the %d contexts", lastMissing, missing)
		}
		fmt.Fprintf(o.ErrOut, "error: %s in any of the %d contexts that answered\n", lastMissing, missing)
	} else if len(answers) > 0 {
		if err := o.printTrees(answers, set.Several); err != nil {
			return err
		}
	}
	return failures.Err()
}

// collectTree builds the target's trees into a; a named root the target
// does not have is errNoRootHere (a.missing says which). The informers stay
// up until a.shutdown.
func (o *TreeOptions) collectTree(ctx context.Context, a *treeAnswer) error {
	a.namespace, a.out = o.namespace, o.out
	full := o.out.Format != "name" || o.Refs
	roots, shutdown, err := o.findRoots(ctx, full)
	a.shutdown = shutdown
	if err != nil {
		var notFound *rootNotFoundError
		if errors.As(err, &notFound) {
			a.missing = err.Error()
			return fmt.Errorf("%w: %v", errNoRootHere, err)
		}
		return err
	}
	if len(roots) == 0 {
		return nil
	}
	var trees []*tree.Node
	switch {
	case o.Refs:
		trees, err = o.refsTrees(ctx, roots)
	case o.Up:
		trees, err = o.upTrees(ctx, roots, full)
	default:
		trees, err = o.downTrees(ctx, roots, full)
	}
	if err != nil {
		return err
	}
	a.lines = tree.Lines(trees)
	return nil
}

// printTrees writes the answers' lines: names, a List of every object, or
// the trees with kubectl's READY and STATUS cells and the AGE (and the
// RELATION of each edge with --refs). Several targets add where each line
// came from, as a query does (answerPrinter). When no target has a root,
// it says "No resources found" on stderr, as kubectl does.
func (o *TreeOptions) printTrees(answers []*treeAnswer, several bool) error {
	lines := 0
	namespace := answers[0].namespace
	for _, a := range answers {
		lines += len(a.lines)
		if a.namespace != namespace {
			namespace = ""
		}
	}
	if lines == 0 {
		if namespace == "" {
			fmt.Fprintln(o.ErrOut, "No resources found")
		} else {
			fmt.Fprintf(o.ErrOut, "No resources found in %s namespace.\n", namespace)
		}
		return nil
	}
	withContext := func(name string, row []string) []string {
		if !several {
			return row
		}
		return append([]string{name}, row...)
	}
	out := answers[0].out
	switch out.Format {
	case "name":
		for _, a := range answers {
			var b bytes.Buffer
			if err := printTreeNames(&b, a.lines); err != nil {
				return err
			}
			for _, line := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
				if line == "" {
					continue
				}
				if several {
					line = a.name + "/" + line
				}
				if _, err := fmt.Fprintln(o.Out, line); err != nil {
					return err
				}
			}
		}
		return nil
	case "json", "yaml":
		var (
			list printing.ContextList
			objs []interface{}
		)
		for _, a := range answers {
			for _, l := range a.lines {
				if l.Obj == nil {
					continue
				}
				objs = append(objs, l.Obj)
				m, err := object.Content(l.Obj)
				if err != nil {
					return err
				}
				list.Add(a.name, m)
			}
		}
		if !several {
			return printing.PrintList(o.Out, out.Printer, out.Format, objs)
		}
		return list.Write(o.Out, out.Format, out.Printer)
	}
	now := o.ages.Now()
	header := []string{"NAMESPACE", "NAME", "READY", "STATUS", "AGE"}
	if o.Refs {
		header = []string{"NAMESPACE", "NAME", "RELATION", "READY", "STATUS", "AGE"}
	}
	var rows [][]string
	for _, a := range answers {
		for _, l := range a.lines {
			ready, status := statusCells(l.Object, now)
			row := []string{l.Namespace, l.Prefix + l.Kind + "/" + l.Name, ready, status, age(l.Obj, now)}
			if o.Refs {
				row = []string{l.Namespace, l.Prefix + l.Kind + "/" + l.Name, l.Relation, ready, status, age(l.Obj, now)}
			}
			rows = append(rows, withContext(a.name, row))
		}
	}
	return printing.WriteTable(o.Out, withContext("CONTEXT", header), rows, o.NoHeaders)
}
