package plugin

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-informer/kubectl-informer/pkg/fleet"
	"github.com/kubectl-informer/kubectl-informer/pkg/object"
	"github.com/kubectl-informer/kubectl-informer/pkg/tree"
)

// This file runs tree across several contexts (--context a,b, a pattern,
// --all-contexts), one TreeOptions per context in parallel. Each context
// that has the root prints its tree, in the order the contexts were
// chosen: a table with a first column CONTEXT, -o name as CONTEXT/TYPE/NAME,
// -o json|yaml as one List with contexts beside items (as query). A
// context where a named root does not exist is left out without an error,
// unless no context has it; a context that fails otherwise is named on
// stderr once and the exit code is 1.

// errNoRootHere marks a context in which a named root does not exist.
var errNoRootHere = errors.New("no such root here")

// fleetTreeRunE returns tree's RunE: across contexts when they are chosen
// the fleet way, next otherwise.
func fleetTreeRunE(o *TreeOptions, f *fleetFlags, next func(*cobra.Command, []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if !f.allContexts && !fleet.IsSelection(contextFlag(o.configFlags)) {
			return next(cmd, args)
		}
		return runFleetTree(cmd, args, o, f)
	}
}

// fleetTreeAnswer is one context's tree lines and what it wrote on stderr.
type fleetTreeAnswer struct {
	lines    []tree.Line
	missing  string // why errNoRootHere
	stderr   *lockedWriter
	shutdown func()
}

func runFleetTree(cmd *cobra.Command, args []string, o *TreeOptions, f *fleetFlags) error {
	if fl := cmd.Flags().Lookup("from"); fl != nil && fl.Changed {
		return fmt.Errorf("--from reads files, not contexts: it cannot be combined with several contexts")
	}
	if set := identityFlags(o.configFlags); len(set) > 0 {
		return fmt.Errorf("%s would make every context the same identity: tree across contexts uses each context's own server and credentials", strings.Join(set, ", "))
	}
	sel, err := selectContexts(o.configFlags, f.allContexts)
	if err != nil {
		return err
	}
	quietErrorHandlers()
	ctx, stop := interruptible(cmd.Context())
	defer stop()
	progress := newFleetProgress(o.ErrOut, sel.Names)
	results := fleet.Run(ctx, sel.Names, fleetDeadline(o.SyncTimeout), func(ctx context.Context, name string) (a *fleetTreeAnswer, err error) {
		defer func() {
			if errors.Is(err, errNoRootHere) {
				progress.set(name, "no root here")
				return
			}
			progress.done(name, err)
		}()
		a = &fleetTreeAnswer{stderr: &lockedWriter{w: &bytes.Buffer{}}, shutdown: func() {}}
		co := *o
		co.configFlags = contextConfigFlags(o.configFlags, name)
		co.engines = directEngines{}
		co.IOStreams = genericiooptions.IOStreams{In: o.In, Out: io.Discard, ErrOut: a.stderr}
		if err := co.Complete(cmd, args); err != nil {
			return a, err
		}
		if err := co.Validate(); err != nil {
			return a, err
		}
		progress.set(name, "reading")
		err = co.collectTree(withFleetProgress(ctx, progress.listingProgress(name)), a)
		return a, err
	})
	progress.end()
	defer func() {
		for _, r := range results {
			if r.Value != nil {
				r.Value.shutdown()
			}
		}
	}()
	failed, missing := 0, 0
	for _, name := range sel.Missing {
		failed++
		fmt.Fprintf(o.ErrOut, "error: context %s: not in the kubeconfig\n", name)
	}
	type treeOf struct {
		context string
		lines   []tree.Line
	}
	var trees []treeOf
	var lastMissing string
	for _, r := range results {
		if r.Value != nil {
			(&fleetAnswer{name: r.Context, stderr: r.Value.stderr}).flushStderr(o.ErrOut)
		}
		switch {
		case errors.Is(r.Err, errNoRootHere):
			missing++
			lastMissing = r.Value.missing
		case r.Err != nil:
			failed++
			fmt.Fprintf(o.ErrOut, "error: context %s: %v\n", r.Context, r.Err)
		default:
			trees = append(trees, treeOf{r.Context, r.Value.lines})
		}
	}
	if len(trees) == 0 && missing > 0 {
		if failed == 0 {
			return fmt.Errorf("%s in any of the %d contexts", lastMissing, missing)
		}
		fmt.Fprintf(o.ErrOut, "error: %s in any of the %d contexts that answered\n", lastMissing, missing)
	}
	out, err := parseOutput(o.Output)
	if err != nil {
		return err
	}
	switch out.format {
	case "name":
		for _, t := range trees {
			var b bytes.Buffer
			if err := printTreeNames(&b, t.lines); err != nil {
				return err
			}
			for _, line := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
				if line != "" {
					fmt.Fprintf(o.Out, "%s/%s\n", t.context, line)
				}
			}
		}
	case "json", "yaml":
		var list fleetList
		for _, t := range trees {
			for _, l := range t.lines {
				if l.Obj == nil {
					continue
				}
				m, err := object.Content(l.Obj)
				if err != nil {
					return err
				}
				list.add(t.context, m)
			}
		}
		if err := list.write(o.Out, out.format, out.printer); err != nil {
			return err
		}
	default:
		now := time.Now()
		var rows [][]string
		for _, t := range trees {
			for _, l := range t.lines {
				ready, status := statusCells(l.Object, now)
				rows = append(rows, []string{t.context, l.Namespace, l.Prefix + l.Kind + "/" + l.Name, ready, status, age(l.Obj, now)})
			}
		}
		if len(rows) > 0 {
			if err := writeTable(o.Out, []string{"CONTEXT", "NAMESPACE", "NAME", "READY", "STATUS", "AGE"}, rows, o.NoHeaders); err != nil {
				return err
			}
		}
	}
	if failed > 0 {
		return &fleet.PartialError{Failed: failed, Total: len(sel.Names) + len(sel.Missing)}
	}
	return nil
}

// collectTree does what Run does up to printing, for one context of a
// fleet tree; a named root this context does not have is errNoRootHere.
func (o *TreeOptions) collectTree(ctx context.Context, a *fleetTreeAnswer) error {
	full := o.out.format != "name"
	roots, shutdown, err := o.findRoots(ctx, full)
	a.shutdown = shutdown
	if err != nil {
		// findRoots's only error that ends so: a named root is missing.
		if strings.HasSuffix(err.Error(), " not found") {
			a.missing = err.Error()
			return fmt.Errorf("%w: %v", errNoRootHere, err)
		}
		return err
	}
	if len(roots) == 0 {
		return nil
	}
	var trees []*tree.Node
	if o.Up {
		trees, err = o.upTrees(ctx, roots, full)
	} else {
		trees, err = o.downTrees(ctx, roots, full)
	}
	if err != nil {
		return err
	}
	a.lines = tree.Lines(trees)
	return nil
}
