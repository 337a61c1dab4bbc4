package plugin

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

	"github.com/kubectl-informer/kubectl-informer/pkg/cache"
	"github.com/kubectl-informer/kubectl-informer/pkg/fleet"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/targets"
)

// This file runs a watch across several contexts (--context a,b, a
// pattern, --all-contexts): one WatchOptions per context, in parallel,
// each with its own ConfigFlags, their events interleaved on stdout as
// they come, each naming its context:
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
//
// --until and --until-all are judged in each context as in a watch of that
// context alone; a context's watch ends once its condition holds there, and
// the fleet watch ends when every context has ended (met, failed or
// interrupted). --max-events counts the events of the merged stream.
// --where context… chooses contexts (the built-in context index); the other
// --where selectors apply in each context. --group-by and --sum keep one
// table merged over the contexts (fleetwatchgroups.go).

// fleetWatchRunE returns watch's RunE: a fleet watch when contexts are
// chosen the fleet way or --group-by names the context index, next
// otherwise.
func fleetWatchRunE(o *WatchOptions, f *fleetFlags, next func(*cobra.Command, []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if _, at, _ := splitGroupByContext(o.GroupBy); !f.allContexts && !targets.IsSelection(targets.ContextFlag(o.configFlags)) && at < 0 {
			return next(cmd, args)
		}
		return runFleetWatch(cmd, args, o, f)
	}
}

func runFleetWatch(cmd *cobra.Command, args []string, o *WatchOptions, f *fleetFlags) error {
	if fl := cmd.Flags().Lookup("from"); fl != nil && fl.Changed {
		return fmt.Errorf("--from reads files, not contexts: it cannot be combined with --all-contexts or several contexts")
	}
	if err := o.validateGroups(); err != nil {
		return err
	}
	if o.MaxEvents < 0 {
		return fmt.Errorf("--max-events must not be negative, got %d", o.MaxEvents)
	}
	contextWhere, where, err := splitContextWhere(o.Where)
	if err != nil {
		return err
	}
	sel, err := targets.New(o.configFlags, f.allContexts, true)
	if err != nil {
		return err
	}
	sel.Keep(func(name string) bool {
		for _, s := range contextWhere {
			if !s.Matches([]string{name}) {
				return false
			}
		}
		return true
	})
	names := make([]string, len(sel.Targets))
	for i, t := range sel.Targets {
		names[i] = t.Name
	}
	ctx, stop := interruptible(cmd.Context())
	defer stop()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var budget *fleetEventBudget
	if o.MaxEvents > 0 {
		budget = &fleetEventBudget{left: o.MaxEvents, spent: cancel}
	}

	var mu sync.Mutex // one line at a time on stdout and on stderr
	failed := 0
	for _, name := range sel.Missing {
		failed++
		fmt.Fprintf(o.ErrOut, "error: context %s: not in the kubeconfig\n", name)
	}
	progress := newFleetProgress(o.ErrOut, names).untilWatching()
	defer progress.end()
	// Lines on the terminal the progress is drawn on go above it.
	stdoutAbove, stderrAbove := progress.above, progress.above
	if !printers.IsTerminal(o.Out) {
		stdoutAbove = nil
	}
	var groups *fleetGroups
	if o.grouped() {
		if groups, err = newFleetGroups(fleetGroupTitle(args, o.GroupBy, o.Sums), o.GroupBy, o.Sums, o.Timestamps, names, o.Out); err != nil {
			return err
		}
		groups.beforeDraw = progress.end
	}
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stdout := &linePrefixer{mu: &mu, w: o.Out, prefix: watchLinePrefix(o.Output, name), above: stdoutAbove}
			stderr := &linePrefixer{mu: &mu, w: o.ErrOut, prefix: func(line []byte) []byte {
				return append([]byte("context "+name+": "), line...)
			}, above: stderrAbove}
			c := fleetWatchContext{name: name, where: where, budget: budget}
			if groups != nil {
				c.groups = &fleetGroupContext{shared: groups, name: name}
			}
			if progress != nil {
				c.progress = progress.engineProgress(name)
			}
			errs[i] = watchContext(ctx, cmd, args, o, c, stdout, stderr)
			if groups != nil {
				groups.ended(name, errs[i])
			}
			stdout.flush()
			stderr.flush()
			progress.done(name, errs[i])
			if errs[i] != nil {
				stderr.mu.Lock()
				progress.above(func() { fmt.Fprintf(o.ErrOut, "error: context %s: %v\n", name, errs[i]) })
				stderr.mu.Unlock()
			}
		}()
	}
	var printErr error
	if groups != nil {
		done := make(chan struct{})
		printed := make(chan struct{})
		go func() { printErr = groups.print(done); close(printed) }()
		wg.Wait()
		close(done)
		<-printed
	} else {
		wg.Wait()
	}
	for _, err := range errs {
		if err != nil {
			failed++
		}
	}
	if failed > 0 {
		return &targets.PartialError{Failed: failed, Total: sel.Total()}
	}
	return printErr
}

// fleetWatchContext is what one context's watch of a fleet watch gets
// beside the command's options.
type fleetWatchContext struct {
	name string
	// where are the --where selectors other than the context index's.
	where []string
	// budget is the shared --max-events, nil without one.
	budget *fleetEventBudget
	// progress is the engine progress callback of the context's line of
	// the fleet's progress, nil without one.
	progress func(cache.Progress)
	// groups, for --group-by and --sum, is the context's part of the
	// fleet's table, nil otherwise.
	groups *fleetGroupContext
}

// watchContext runs the watch in context c.name with its own ConfigFlags,
// writing to stdout and stderr.
func watchContext(ctx context.Context, cmd *cobra.Command, args []string, o *WatchOptions, c fleetWatchContext, stdout, stderr io.Writer) error {
	co := *o
	co.configFlags = targets.ForContext(o.configFlags, c.name)
	co.engines = directEngines{}
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
		co.config.Progress = c.progress
	}
	return co.Run(ctx)
}

// splitContextWhere takes the selectors of the context index out of
// --where.
func splitContextWhere(where []string) ([]index.Selector, []string, error) {
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

// fleetEventBudget is --max-events across the watches of a fleet: each
// context's printer holds it while it prints an event, so the merged
// stream has exactly that many events; when they are spent, spent ends
// every context's watch.
type fleetEventBudget struct {
	mu    sync.Mutex
	left  int
	spent func()
}

// lock holds the budget for one event; false when it is spent (not held).
func (b *fleetEventBudget) lock() bool {
	b.mu.Lock()
	if b.left <= 0 {
		b.mu.Unlock()
		return false
	}
	return true
}

// unlock releases the budget, counting an event if one was printed.
func (b *fleetEventBudget) unlock(printed bool) {
	if printed {
		b.left--
		if b.left == 0 {
			b.spent()
		}
	}
	b.mu.Unlock()
}

// watchLinePrefix returns how a line of a fleet watch's output names its
// context, per -o.
func watchLinePrefix(output, name string) func([]byte) []byte {
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

// linePrefixer writes whole lines to w, each changed by prefix, one at a
// time under mu (shared by the contexts' writers); an unfinished line waits
// for its end or for flush.
type linePrefixer struct {
	mu     *sync.Mutex
	w      io.Writer
	prefix func([]byte) []byte
	// above, if set, runs each write of a line (fleetProgress.above).
	above func(write func())
	buf   []byte
}

func (l *linePrefixer) Write(b []byte) (int, error) {
	l.buf = append(l.buf, b...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			return len(b), nil
		}
		line := append(l.prefix(l.buf[:i]), '\n')
		var err error
		write := func() { _, err = l.w.Write(line) }
		l.mu.Lock()
		if l.above != nil {
			l.above(write)
		} else {
			write()
		}
		l.mu.Unlock()
		l.buf = l.buf[i+1:]
		if err != nil {
			return len(b), err
		}
	}
}

// WriteString lets the watch's printers write strings.
func (l *linePrefixer) WriteString(s string) (int, error) { return l.Write([]byte(s)) }

// flush writes an unfinished last line.
func (l *linePrefixer) flush() {
	if len(l.buf) > 0 {
		l.Write([]byte("\n"))
	}
}
