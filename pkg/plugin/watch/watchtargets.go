package watch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/printers"

	"github.com/kubectl-informer/kubectl-informer/pkg/fleet"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/cmdutil"
	pluginprogress "github.com/kubectl-informer/kubectl-informer/pkg/plugin/progress"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/targets"
)

// This file runs a watch for each target of its set, the flags completed
// once and a targetWatch per target, in parallel, their events on stdout
// as they come. One target (no selection) writes as a watch of one
// cluster does. Several targets (--context a,b, a pattern, --all-contexts,
// --group-by context) each have their own ConfigFlags, and each event
// names its context:
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
// merged over the contexts (groupTable); one target's table is a
// merge of one.

// watchTargetsRunE returns watch's RunE outside a warm cache process: the
// flags completed and validated once, then the watch of each target the
// kubeconfig flags and --all-contexts choose.
func watchTargetsRunE(o *WatchOptions, f *targets.Flags) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		groupBy, at, err := splitGroupByContext(o.GroupBy)
		if err != nil {
			return err
		}
		contextWhere, where, err := SplitContextWhere(o.Where)
		if err != nil {
			return err
		}
		o.contextWhere = contextWhere
		set, err := targets.New(o.ConfigFlags, f.AllContexts, at >= 0 || len(contextWhere) > 0)
		if err != nil {
			return err
		}
		if err := o.completeFlags(args, where, groupBy); err != nil {
			return err
		}
		if err := o.Validate(); err != nil {
			return err
		}
		return runWatchTargets(cmd, args, o, set)
	}
}

// runWatchTargets runs the watch in each target of set and returns the
// error of the one target, or a *targets.PartialError when some of several
// failed.
func runWatchTargets(cmd *cobra.Command, args []string, o *WatchOptions, set targets.Set) error {
	ctx, stop := cmdutil.Interruptible(cmd.Context())
	defer stop()
	if !set.Several {
		return watchOne(ctx, o.target(o.EngineOptions, o.Out, o.ErrOut), set.Targets[0])
	}
	set.Keep(func(name string) bool {
		for _, s := range o.contextWhere {
			if !s.Matches([]string{name}) {
				return false
			}
		}
		return true
	})
	names := set.Names()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var mu sync.Mutex // one line at a time on stdout and on stderr
	failures := set.Failures(o.ErrOut)
	progress := pluginprogress.NewTargets(o.ErrOut, names).UntilWatching()
	defer progress.End()
	failures.Writing(&mu, progress.Above)
	var groups *groupTable
	if o.grouped() {
		groups = o.groupTable(names, o.Out)
		groups.beforeDraw = progress.End
	}
	var budget *FleetEventBudget
	if o.MaxEvents > 0 {
		budget = &FleetEventBudget{Left: o.MaxEvents, Spent: cancel}
	}
	watch := o.severalTarget(&mu, progress, groups, budget)
	watchAll := func() error {
		targets.Run(ctx, set.Targets, 0, func(ctx context.Context, t targets.Target) (struct{}, error) {
			err := watch(ctx, t)
			if err != nil {
				failures.Add(t.Name, err)
			}
			return struct{}{}, err
		})
		return failures.Err()
	}
	if groups == nil {
		return watchAll()
	}
	return runGroupTargets(groups, watchAll)
}

// severalTarget returns the watch of one target of several: its lines on
// stdout and stderr name it and are written whole under mu, above
// progress on the terminal it is drawn on; it has its line of progress,
// and its part of groups and budget when set.
func (o *WatchOptions) severalTarget(mu *sync.Mutex, progress *pluginprogress.Targets, groups *groupTable, budget *FleetEventBudget) func(context.Context, targets.Target) error {
	stdoutAbove, stderrAbove := progress.Above, progress.Above
	if !printers.IsTerminal(o.Out) {
		stdoutAbove = nil
	}
	return func(ctx context.Context, t targets.Target) error {
		name := t.Name
		stdout := &LinePrefixer{Mu: mu, W: o.Out, Prefix: WatchLinePrefix(o.Output, name), Above: stdoutAbove}
		stderr := &LinePrefixer{Mu: mu, W: o.ErrOut, Prefix: func(line []byte) []byte {
			return append([]byte("context "+name+": "), line...)
		}, Above: stderrAbove}
		w := o.target(o.EngineOptions, stdout, stderr)
		if budget != nil {
			w.print.maxEvents, w.print.budget = 0, budget
		}
		if groups != nil {
			w.groups = &groupFeed{table: groups, name: name}
		}
		if progress != nil {
			w.eo.Config.Progress = progress.EngineProgress(name)
		}
		err := watchOne(ctx, w, t)
		if groups != nil {
			groups.ended(name, err)
		}
		stdout.Flush()
		stderr.Flush()
		progress.Done(name, err)
		return err
	}
}

// watchOne runs w, the watch of target t, connected to t (to its warm
// cache's informers when one runs).
func watchOne(ctx context.Context, w *targetWatch, t targets.Target) error {
	w.eo.Notes = w.errOut
	if err := w.eo.Connect(t.ConfigFlags); err != nil {
		return err
	}
	return w.run(ctx)
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

// splitGroupByContext takes the context index out of --group-by: the
// other keys, trimmed, and the position context had among all keys (-1
// when it is not one).
func splitGroupByContext(groupBy []string) ([]string, int, error) {
	var rest []string
	at := -1
	for i, g := range groupBy {
		g = strings.TrimSpace(g)
		if g != fleet.ContextIndex {
			rest = append(rest, g)
			continue
		}
		if at >= 0 {
			return nil, -1, fmt.Errorf("--group-by %s: named twice", fleet.ContextIndex)
		}
		at = i
	}
	return rest, at, nil
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
