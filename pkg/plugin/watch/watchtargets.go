package watch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/printers"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/fleet"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/cmdutil"
	pluginprogress "github.com/kubectl-informer/kubectl-informer/pkg/plugin/progress"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/targets"
)

// This file runs a watch for each target of its set, one WatchOptions per
// target, in parallel, their events on stdout as they come. One target (no
// selection) writes as a watch of one cluster does. Several targets (--context
// a,b, a pattern, --all-contexts, --group-by context) each have their own
// ConfigFlags, and each event names its context:
//
//   - text: every line (the event's line and its diff) starts with the
//     context's name and a space;
//   - -o name: CONTEXT/TYPE/NAME;
//   - -o json: each event's object has a field "context" first;
//   - -o yaml: each event's document has a key "context" first.
//
// A context that fails to start, or whose watch fails, is named on stderr
// with its reason once; the others go on, and the exit code is 1. Other
// stderr lines of a context (sync, warnings) are prefixed "context NAME: ".
// Each target's watch runs in the warm cache of its identity when one runs
// (as a watch of one context does), unless it feeds a shared table or
// budget.
//
// --until and --until-all are judged in each context as in a watch of that
// context alone; a context's watch ends once its condition holds there, and
// the watch ends when every context has ended (met, failed or interrupted).
// --max-events counts the events of the merged stream. --where context…
// chooses contexts (the built-in context index); the other --where
// selectors apply in each context. --group-by and --sum keep one table
// merged over the contexts (fleetGroups); one target's table is a
// merge of one.

// watchTargetsRunE returns watch's RunE outside a warm cache process: the
// watch of each target the kubeconfig flags and --all-contexts choose.
func watchTargetsRunE(o *WatchOptions, f *targets.Flags) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		_, at, err := splitGroupByContext(o.GroupBy)
		if err != nil {
			return err
		}
		contextWhere, _, err := SplitContextWhere(o.Where)
		if err != nil {
			return err
		}
		set, err := targets.New(o.ConfigFlags, f.AllContexts, at >= 0 || len(contextWhere) > 0)
		if err != nil {
			return err
		}
		return runWatchTargets(cmd, args, o, set)
	}
}

// runWatchTargets runs the watch in each target of set and returns the
// error of the one target, or a *targets.PartialError when some of several
// failed.
func runWatchTargets(cmd *cobra.Command, args []string, o *WatchOptions, set targets.Set) error {
	if !set.Several {
		return watchOne(cmd.Context(), cmd, args, o, watchTarget{target: set.Targets[0], where: o.Where}, o.Out, o.ErrOut)
	}
	if fl := cmd.Flags().Lookup("from"); fl != nil && fl.Changed {
		return fmt.Errorf("--from reads files, not contexts: it cannot be combined with --all-contexts or several contexts")
	}
	if err := o.validateGroups(); err != nil {
		return err
	}
	if o.MaxEvents < 0 {
		return fmt.Errorf("--max-events must not be negative, got %d", o.MaxEvents)
	}
	contextWhere, where, err := SplitContextWhere(o.Where)
	if err != nil {
		return err
	}
	set.Keep(func(name string) bool {
		for _, s := range contextWhere {
			if !s.Matches([]string{name}) {
				return false
			}
		}
		return true
	})
	names := set.Names()
	ctx, stop := cmdutil.Interruptible(cmd.Context())
	defer stop()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var budget *FleetEventBudget
	if o.MaxEvents > 0 {
		budget = &FleetEventBudget{Left: o.MaxEvents, Spent: cancel}
	}

	var mu sync.Mutex // one line at a time on stdout and on stderr
	failures := set.Failures(o.ErrOut)
	progress := pluginprogress.NewTargets(o.ErrOut, names).UntilWatching()
	defer progress.End()
	failures.Writing(&mu, progress.Above)
	// Lines on the terminal the progress is drawn on go above it.
	stdoutAbove, stderrAbove := progress.Above, progress.Above
	if !printers.IsTerminal(o.Out) {
		stdoutAbove = nil
	}
	var groups *fleetGroups
	if o.grouped() {
		if groups, err = newFleetGroups(fleetGroupTitle(args, o.GroupBy, o.Sums), o.GroupBy, o.Sums, o.Timestamps, names, o.Out); err != nil {
			return err
		}
		groups.beforeDraw = progress.End
	}
	watchAll := func() error {
		targets.Run(ctx, set.Targets, 0, func(ctx context.Context, t targets.Target) (struct{}, error) {
			name := t.Name
			stdout := &LinePrefixer{Mu: &mu, W: o.Out, Prefix: WatchLinePrefix(o.Output, name), Above: stdoutAbove}
			stderr := &LinePrefixer{Mu: &mu, W: o.ErrOut, Prefix: func(line []byte) []byte {
				return append([]byte("context "+name+": "), line...)
			}, Above: stderrAbove}
			c := watchTarget{target: t, several: true, where: where, budget: budget}
			if groups != nil {
				c.groups = &fleetGroupContext{shared: groups, name: name}
			}
			if progress != nil {
				c.progress = progress.EngineProgress(name)
			}
			err := watchOne(ctx, cmd, args, o, c, stdout, stderr)
			if groups != nil {
				groups.ended(name, err)
			}
			stdout.Flush()
			stderr.Flush()
			progress.Done(name, err)
			if err != nil {
				failures.Add(name, err)
			}
			return struct{}{}, err
		})
		return nil
	}
	var printErr error
	if groups != nil {
		printErr = runGroupTargets(groups, watchAll)
	} else {
		_ = watchAll()
	}
	if err := failures.Err(); err != nil {
		return err
	}
	return printErr
}

// runGroupTargets runs watch, the watches that feed groups, while groups
// prints the table; it returns watch's error, else the print's.
func runGroupTargets(groups *fleetGroups, watch func() error) error {
	done := make(chan struct{})
	printed := make(chan error, 1)
	go func() { printed <- groups.print(done) }()
	err := watch()
	close(done)
	if printErr := <-printed; err == nil {
		err = printErr
	}
	return err
}

// watchTarget is what one target's watch gets beside the command's
// options.
type watchTarget struct {
	target  targets.Target
	several bool
	// where are the --where selectors other than the context index's.
	where []string
	// budget is the shared --max-events, nil without one.
	budget *FleetEventBudget
	// progress is the engine progress callback of the target's line of
	// the progress of several, nil without one.
	progress func(engine.Progress)
	// groups, for --group-by and --sum, is the target's part of the
	// table, nil otherwise.
	groups *fleetGroupContext
}

// watchOne runs the watch of c.target, writing to stdout and stderr: in
// the warm cache of its identity when one runs and the watch feeds no
// shared table or budget and redraws no table on this terminal, else here
// (Complete, Validate, Run) with the target's own ConfigFlags.
func watchOne(ctx context.Context, cmd *cobra.Command, args []string, o *WatchOptions, c watchTarget, stdout, stderr io.Writer) error {
	co := *o
	co.ConfigFlags = c.target.ConfigFlags
	co.IOStreams = genericiooptions.IOStreams{In: o.In, Out: stdout, ErrOut: stderr}
	co.Where = c.where
	if c.budget != nil {
		co.MaxEvents = 0
	}
	if c.groups != nil {
		co.fleetGroups = c.groups
		co.GroupBy, _, _ = splitGroupByContext(o.GroupBy)
	}
	if err := co.Complete(cmd, args); err != nil {
		return err
	}
	if err := co.Validate(); err != nil {
		return err
	}
	co.print.budget = c.budget
	if c.progress != nil {
		co.Config.Progress = c.progress
	}
	return co.Run(ctx)
}

// SplitContextWhere takes the selectors of the context index out of
// --where.
func SplitContextWhere(where []string) ([]index.Selector, []string, error) {
	var contextSel []index.Selector
	var rest []string
	for _, s := range where {
		sel, err := index.ParseSelector("--where", s)
		if err != nil {
			return nil, nil, err
		}
		if sel.Name == fleet.ContextIndex {
			contextSel = append(contextSel, sel)
			continue
		}
		rest = append(rest, s)
	}
	return contextSel, rest, nil
}

// FleetEventBudget is --max-events across the watches of a fleet: each
// context's printer holds it while it prints an event, so the merged
// stream has exactly that many events; when they are spent, spent ends
// every context's watch.
type FleetEventBudget struct {
	mu    sync.Mutex
	Left  int
	Spent func()
}

// Lock holds the budget for one event; false when it is spent (not held).
func (b *FleetEventBudget) Lock() bool {
	b.mu.Lock()
	if b.Left <= 0 {
		b.mu.Unlock()
		return false
	}
	return true
}

// Unlock releases the budget, counting an event if one was printed.
func (b *FleetEventBudget) Unlock(printed bool) {
	if printed {
		b.Left--
		if b.Left == 0 {
			b.Spent()
		}
	}
	b.mu.Unlock()
}

// WatchLinePrefix returns how a line of a fleet watch's output names its
// context, per -o.
func WatchLinePrefix(output, name string) func([]byte) []byte {
	switch output {
	case "json":
		field := []byte(`{"context":` + strconv.Quote(name) + `,`)
		return func(line []byte) []byte {
			if bytes.HasPrefix(line, []byte("{")) {
				return append(append([]byte(nil), field...), line[1:]...)
			}
			return line
		}
	case "yaml":
		key, _ := json.Marshal(name) // a JSON string is a YAML scalar
		field := append([]byte("context: "), key...)
		return func(line []byte) []byte {
			if string(line) == "---" {
				return append([]byte("---\n"), field...)
			}
			return line
		}
	case "name":
		return func(line []byte) []byte { return append([]byte(name+"/"), line...) }
	}
	return func(line []byte) []byte { return append([]byte(name+" "), line...) }
}

// LinePrefixer writes whole lines to w, each changed by prefix; the whole
// lines of one Write go out together under mu (shared by the targets'
// writers), so that what a target's printer writes at once (an event, a
// YAML document) is not interleaved with another target's lines. An
// unfinished line waits for its end or for flush.
type LinePrefixer struct {
	Mu     *sync.Mutex
	W      io.Writer
	Prefix func([]byte) []byte
	// Above, if set, runs each write (progress.Targets.Above).
	Above func(write func())
	buf   []byte
}

func (l *LinePrefixer) Write(b []byte) (int, error) {
	l.buf = append(l.buf, b...)
	end := bytes.LastIndexByte(l.buf, '\n')
	if end < 0 {
		return len(b), nil
	}
	var out []byte
	for _, line := range bytes.SplitAfter(l.buf[:end+1], []byte("\n")) {
		if len(line) > 0 {
			out = append(append(out, l.Prefix(line[:len(line)-1])...), '\n')
		}
	}
	l.buf = append(l.buf[:0], l.buf[end+1:]...)
	var err error
	write := func() { _, err = l.W.Write(out) }
	l.Mu.Lock()
	if l.Above != nil {
		l.Above(write)
	} else {
		write()
	}
	l.Mu.Unlock()
	return len(b), err
}

// WriteString lets the watch's printers write strings.
func (l *LinePrefixer) WriteString(s string) (int, error) { return l.Write([]byte(s)) }

// Flush writes an unfinished last line.
func (l *LinePrefixer) Flush() {
	if len(l.buf) > 0 {
		l.Write([]byte("\n"))
	}
}
