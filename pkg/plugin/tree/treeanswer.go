package tree

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"

	"github.com/kubectl-informer/kubectl-informer/pkg/columns"
	"github.com/kubectl-informer/kubectl-informer/pkg/object"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/cmdutil"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/printing"
	pluginprogress "github.com/kubectl-informer/kubectl-informer/pkg/plugin/progress"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/targets"
	"github.com/kubectl-informer/kubectl-informer/pkg/tree"
)

// treeAnswer is one target's trees as data: every line the printers print
// (a table, -o name, json or yaml), so that it can travel as JSON.
type treeAnswer struct {
	// Context is the target's context.
	Context string `json:"context"`
	// Namespace is the namespace the roots were looked for in, "" for all.
	Namespace string `json:"namespace,omitempty"`
	// Lines are the trees' objects in depth-first order, each root
	// followed by its subtree.
	Lines []Line `json:"lines"`
}

// Line is one object of a drawn tree, as data.
type Line struct {
	// Depth is 0 for a root. Prefix is drawn before the name: "" for a
	// root, then "├─" or "└─" after "│ " or "  " for each level above.
	Depth  int    `json:"depth"`
	Prefix string `json:"prefix,omitempty"`
	// Kind, Namespace and Name identify the object; Group is its
	// resource's API group ("" for the core group, or when unknown).
	Kind      string `json:"kind"`
	Group     string `json:"group,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	// Relation names the edge from the parent with --refs ("uses
	// (envFrom)").
	Relation string `json:"relation,omitempty"`
	// Ready, Status and Age are the READY, STATUS and AGE cells kubectl
	// get prints for the object; "" where its table has no such column or
	// the object is known only from a reference.
	Ready  string `json:"ready,omitempty"`
	Status string `json:"status,omitempty"`
	Age    string `json:"age,omitempty"`
	// Object is the object as the API server sent it, with -o json or
	// yaml only; nil for an object known only from a reference.
	Object map[string]interface{} `json:"object,omitempty"`
}

// Run answers every target (in parallel, each under the deadline of one
// of several) and prints the answers as one (printAnswers).
func (o *TreeOptions) Run(ctx context.Context) error {
	ctx, stop := cmdutil.Interruptible(ctx)
	defer stop()
	set := o.targets
	results := targets.Answer(ctx, set, treeProgress{pluginprogress.Of(o.ErrOut, set)}, set.Deadline(o.SyncTimeout), o.ErrOut,
		o.answerTarget)
	return o.printAnswers(set, results)
}

// answerTarget answers the tree of target t, its warnings going to errOut.
func (o *TreeOptions) answerTarget(ctx context.Context, t targets.Target, errOut io.Writer) (*treeAnswer, error) {
	a := &treeAnswer{Context: t.Name}
	c := &treeTarget{EngineOptions: o.EngineOptions, q: o, errOut: errOut}
	if err := c.connect(t); err != nil {
		return a, err
	}
	return a, c.answer(ctx, a)
}

// treeProgress shows each target of a tree as reading, then listing the
// objects of its engines, run one after another; a target where a named
// root does not exist has no root here.
type treeProgress struct{ *pluginprogress.Targets }

// Begin implements targets.Progress.
func (p treeProgress) Begin(ctx context.Context, name string) context.Context {
	if p.Targets == nil {
		return ctx
	}
	p.Set(name, "reading")
	return pluginprogress.WithTargets(ctx, p.ListingProgress(name))
}

// Done implements targets.Progress.
func (p treeProgress) Done(name string, err error) {
	var notFound *rootNotFoundError
	if p.Targets != nil && errors.As(err, &notFound) {
		p.Set(name, "no root here")
		return
	}
	p.Targets.Done(name, err)
}

// connect connects c's engine options to target t: tree looks in one
// namespace, or all. A tree printed as a table learns the instant its ages
// count from (EngineOptions.Ages), said on stderr when it is not now.
func (c *treeTarget) connect(t targets.Target) error {
	c.Notes = c.errOut
	if err := c.Connect(t.ConfigFlags); err != nil {
		return err
	}
	switch len(c.Namespaces) {
	case 0:
	case 1:
		c.namespace = c.Namespaces[0]
	default:
		return fmt.Errorf("tree looks in one namespace (-n NS) or all (-A), got -n %s", strings.Join(c.Namespaces, ","))
	}
	if c.q.out.Format == "" {
		var err error
		if c.ages, err = c.Ages(c.errOut); err != nil {
			return err
		}
	}
	return nil
}

// answer builds the target's trees into a; a named root the target does
// not have is a *rootNotFoundError. The informers are shut down before it
// returns.
func (c *treeTarget) answer(ctx context.Context, a *treeAnswer) error {
	a.Namespace = c.namespace
	full := c.q.out.Format != "name" || c.q.Refs
	roots, shutdown, err := c.findRoots(ctx, full)
	defer shutdown()
	if err != nil || len(roots) == 0 {
		return err
	}
	var trees []*tree.Node
	switch {
	case c.q.Refs:
		trees, err = c.refsTrees(ctx, roots)
	case c.q.Up:
		trees, err = c.upTrees(ctx, roots, full)
	default:
		trees, err = c.downTrees(ctx, roots, full)
	}
	if err != nil {
		return err
	}
	now := c.ages.Now()
	for _, l := range tree.Lines(trees) {
		line, err := c.q.lineOf(l, now)
		if err != nil {
			return err
		}
		a.Lines = append(a.Lines, line)
	}
	return nil
}

// lineOf is l as data: the cells of a table, or the object of -o json and
// yaml.
func (o *TreeOptions) lineOf(l tree.Line, now time.Time) (Line, error) {
	line := Line{Depth: l.Depth, Prefix: l.Prefix, Kind: l.Kind, Group: l.Resource.Group, Namespace: l.Namespace, Name: l.Name, Relation: l.Relation}
	switch {
	case o.out.Format == "json" || o.out.Format == "yaml":
		if l.Obj != nil {
			m, err := object.Content(l.Obj)
			if err != nil {
				return line, err
			}
			line.Object = m
		}
	case o.out.Format == "":
		line.Ready, line.Status = statusCells(l.Object, now)
		line.Age = age(l.Obj, now)
	}
	return line, nil
}

// printAnswers prints the targets' answers as one (printTrees). With one
// target (not set.Several) its error is the command's. With several, a
// target where a named root does not exist is left out without an error,
// unless no target has it; each failed context is named on stderr once,
// the others' trees are printed, and the error is a *targets.PartialError.
func (o *TreeOptions) printAnswers(set targets.Set, results []targets.Result[*treeAnswer]) error {
	var notFound *rootNotFoundError
	missing := 0
	for i, r := range results {
		if set.Several && errors.As(r.Err, &notFound) {
			results[i].Value, results[i].Err = nil, nil
			missing++
		}
	}
	answers, failures, err := targets.Answers(set, results, o.ErrOut)
	if err != nil {
		return err
	}
	answers = slices.DeleteFunc(answers, func(a *treeAnswer) bool { return a == nil })
	if len(answers) == 0 && missing > 0 {
		if failures.Count() == 0 {
			return fmt.Errorf("%v in any of the %d contexts", notFound, missing)
		}
		fmt.Fprintf(o.ErrOut, "error: %v in any of the %d contexts that answered\n", notFound, missing)
	} else if len(answers) > 0 {
		if err := o.printTrees(answers, set.Several); err != nil {
			return err
		}
	}
	return failures.Err()
}

// printTrees writes the answers' lines: kubectl's -o name of each object
// ("deployment.apps/web", "kind/name" for an owner known only from a
// reference), a List of every object, or the trees with kubectl's READY
// and STATUS cells and the AGE (and the RELATION of each edge with
// --refs). Several targets add where each line came from, as a query
// does. When no target has a root, it says "No resources found" on
// stderr, as kubectl does.
func (o *TreeOptions) printTrees(answers []*treeAnswer, several bool) error {
	lines, namespace := 0, answers[0].Namespace
	for _, a := range answers {
		lines += len(a.Lines)
		if a.Namespace != namespace {
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
	switch o.out.Format {
	case "name":
		for _, a := range answers {
			for _, l := range a.Lines {
				name := strings.ToLower(l.Kind)
				if l.Group != "" {
					name += "." + l.Group
				}
				if _, err := fmt.Fprintln(o.Out, strings.Join(withContext(a.Context, []string{name, l.Name}), "/")); err != nil {
					return err
				}
			}
		}
		return nil
	case "json", "yaml":
		list := printing.ContextList{One: !several}
		for _, a := range answers {
			for _, l := range a.Lines {
				if l.Object != nil {
					list.Add(a.Context, l.Object)
				}
			}
		}
		return list.Write(o.Out, o.out.Format, o.out.Printer)
	}
	var header []string
	var rows [][]string
	for _, a := range answers {
		h, table := Table(a.Lines, o.Refs)
		header = withContext("CONTEXT", h)
		for _, row := range table {
			rows = append(rows, withContext(a.Context, row))
		}
	}
	return printing.WriteTable(o.Out, header, rows, o.NoHeaders)
}

// Table is the tree table of lines: its header and a row per line, with
// the cells NAMESPACE, NAME (drawn with its prefix), RELATION with refs,
// READY, STATUS and AGE.
func Table(lines []Line, refs bool) (header []string, rows [][]string) {
	header = []string{"NAMESPACE", "NAME", "READY", "STATUS", "AGE"}
	if refs {
		header = slices.Insert(header, 2, "RELATION")
	}
	for _, l := range lines {
		row := []string{l.Namespace, l.Prefix + l.Kind + "/" + l.Name, l.Ready, l.Status, l.Age}
		if refs {
			row = slices.Insert(row, 2, l.Relation)
		}
		rows = append(rows, row)
	}
	return header, rows
}

// statusCells returns the READY and STATUS cells kubectl get prints for obj, where its table has
// such columns; "" otherwise.
func statusCells(obj tree.Object, now time.Time) (ready, status string) {
	ro, ok := obj.Obj.(runtime.Object)
	if !ok {
		return "", ""
	}
	table, ok := columns.For(obj.Resource)
	if !ok {
		return "", ""
	}
	row, err := table.Row(ro, now)
	if err != nil {
		return "", ""
	}
	for i, c := range table.Columns {
		if i >= len(row) {
			break
		}
		switch c.Header {
		case "READY":
			ready = row[i]
		case "STATUS":
			status = row[i]
		}
	}
	return ready, status
}

// age is the AGE kubectl prints for obj, "" when obj is unknown.
func age(obj interface{}, now time.Time) string {
	m, err := meta.Accessor(obj)
	if err != nil {
		return ""
	}
	created := m.GetCreationTimestamp()
	if created.IsZero() {
		return ""
	}
	return duration.HumanDuration(now.Sub(created.Time))
}

// AnswerWarm answers the tree of roots (the arguments: TYPE/NAME..., or
// TYPE [NAME...]) as the flags of o ask it, for a caller without a
// command line, in the target named target, with the tree command's own
// code: o's engine options are a warm cache's (engines.ServeEnv.Options),
// whose pool lends the roots, the types followed down, and the owners and
// references --up and --refs read, started by the first call that needs
// them and kept warm for the next. Its lines carry the table's cells (no
// objects); warnings go to o.ErrOut. A named root the target does not
// have is an error that says so, as the command's.
func (o *TreeOptions) AnswerWarm(ctx context.Context, target string, roots []string) ([]Line, error) {
	if err := o.completeQuestion(roots); err != nil {
		return nil, err
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	a, err := o.answerTarget(ctx, targets.Target{Name: target, ConfigFlags: o.ConfigFlags}, o.ErrOut)
	if err != nil {
		return nil, err
	}
	return a.Lines, nil
}
