package query

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"

	"k8s.io/cli-runtime/pkg/printers"

	"github.com/kubectl-informer/kubectl-informer/pkg/columns"
	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/cmdutil"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/live"
	pluginprogress "github.com/kubectl-informer/kubectl-informer/pkg/plugin/progress"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/targets"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/watch"
)

// This file holds query -w and --watch-only, one target or several: one
// watch per target (its own engine), their answers printed as one, redrawn
// (live.Follow) or as a stream of rows; the rows of several targets name their
// context as a query of several does:
//
//   - tables (and -o wide, custom-columns): a first column CONTEXT;
//   - -o name: CONTEXT/TYPE/NAME;
//   - -o json, yaml and templates: each object printed as the List a
//     query of several prints, of that one object, its context in
//     "contexts"; with --output-watch-events, a watch event whose object
//     is that List.
//
// The answer is printed first once every context has synced or failed,
// merged as the one-shot query merges it (types in the order asked,
// contexts in the order selected, --sort-by across contexts); then each
// change in any context is printed as a row, as kubectl get -w prints it
// (rowPrinter). A context that fails is named on stderr once; the others
// go on, and the exit code is then 1. Ctrl-C ends every context's watch
// (exit 1 without a message, as kubectl get -w).

// watchOutput is the shared output of a query -w of objects, of one
// target or several. Its methods are safe for concurrent use by the
// targets' goroutines.
type watchOutput struct {
	mu   sync.Mutex
	out  *bufio.Writer
	tabs interface {
		io.Writer
		Flush() error
	}
	// lastHeader is the header printed last, over every context.
	lastHeader []string
	// docs counts the YAML documents printed, for their separators.
	docs int
	// contexts are the contexts watched, in order; printers the row
	// printers of those synced, nil for those that ended without (or
	// failed since).
	contexts []string
	printers map[string]*rowPrinter
	// waiting counts the contexts neither synced nor ended; ready is
	// closed when it reaches 0, printed once the answer is printed.
	waiting   int
	ready     chan struct{}
	printed   chan struct{}
	watchOnly bool
	// live, set on a terminal, is the table redrawn in place as it
	// changes (follow); changed is sent on when a target's answer
	// changed.
	live    *live.Screen
	changed chan struct{}
	// several is set when the rows come from several targets: they name
	// their context.
	several bool
	// answered runs before the answer is first printed.
	answered func()
}

// newWatchOutput returns the shared output of a query -w of contexts on
// out: with watchOnly, changes only; redrawn, a table redrawn in place on
// out, a terminal; several, rows naming their context.
func newWatchOutput(out io.Writer, contexts []string, watchOnly, redrawn, several bool) *watchOutput {
	buf := bufio.NewWriterSize(out, 64*1024)
	s := &watchOutput{
		out: buf, tabs: printers.GetNewTabWriter(buf), contexts: contexts,
		printers: map[string]*rowPrinter{},
		waiting:  len(contexts), ready: make(chan struct{}), printed: make(chan struct{}),
		watchOnly: watchOnly, changed: make(chan struct{}, 1), several: several,
	}
	if redrawn {
		s.live = live.NewScreen(out)
	}
	if s.waiting == 0 {
		close(s.ready)
	}
	return s
}

// settle counts one context less waiting; s.mu is held.
func (s *watchOutput) settle() {
	s.waiting--
	if s.waiting == 0 {
		close(s.ready)
	}
}

// ended records that context name's watch ended with err: one that never
// synced no longer holds the answer back, and a failed one leaves a
// redrawn answer.
func (s *watchOutput) ended(name string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp, ok := s.printers[name]
	switch {
	case !ok:
		s.printers[name] = nil
		s.settle()
	case rp != nil && err != nil:
		s.printers[name] = nil
		s.notify()
	}
}

// notify says that the redrawn answer changed, unless that is said
// already.
func (s *watchOutput) notify() {
	select {
	case s.changed <- struct{}{}:
	default:
	}
}

// print prints the merged answer once every context has synced or ended
// (or done is closed), then lets the contexts print their changes, or
// redraws it as they change until ctx ends; it returns once done is
// closed (every context has ended), what they printed flushed, or at its
// first error.
func (s *watchOutput) print(ctx context.Context, done <-chan struct{}) error {
	err := s.printAnswer(ctx, done)
	if err == nil && s.live != nil {
		err = live.Follow(ctx, done, s.changed, s.live, 0, func() error { return s.draw(ctx) })
	}
	if err == nil {
		<-done
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if flushErr := s.flush(); err == nil {
		err = flushErr
	}
	return err
}

// printAnswer prints the merged answer once every context has synced or
// ended (or done is closed), then lets the contexts print their changes.
// A redrawn answer is drawn by follow instead.
func (s *watchOutput) printAnswer(ctx context.Context, done <-chan struct{}) error {
	select {
	case <-s.ready:
	case <-done:
	}
	defer close(s.printed)
	if s.answered != nil {
		s.answered()
	}
	if s.watchOnly || s.live != nil {
		return nil
	}
	answers, err := s.current(ctx)
	if err != nil || len(answers) == 0 {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	types, err := answerPrinter{answers: answers, several: s.several}.sortedTypes()
	if err != nil {
		return err
	}
	now := answers[0].cfg.ages.Now()
	for _, entries := range types {
		for _, e := range entries {
			rp := s.printers[e.a.name]
			if rp == nil {
				continue // failed since it was looked up: named as failed
			}
			rp.now = now
			if err := rp.print(ctx, e.t, engine.Added, e.obj); err != nil {
				return err
			}
		}
	}
	return s.flush()
}

// flush writes what the tab writer holds, and the buffer; s.mu is held.
func (s *watchOutput) flush() error {
	if err := s.tabs.Flush(); err != nil {
		return err
	}
	return s.out.Flush()
}

// follow follows target t until ctx ends: once the merged answer is
// printed, a redrawn answer is told of its changes; otherwise each change
// is printed as a row.
func (s *watchOutput) follow(watching context.Context, t *queryTarget, w *running, _ io.Writer) error {
	return s.run(watching, t.name, w)
}

// notes is where the targets' warnings go when the answer is redrawn.
func (s *watchOutput) notes() io.Writer {
	if s.live == nil {
		return nil
	}
	return s.live.Notes()
}

// run is follow of target name.
func (s *watchOutput) run(watching context.Context, name string, w *running) error {
	ctx, fail := context.WithCancelCause(watching)
	defer fail(nil)
	rp := &rowPrinter{w: w, s: s, name: name, tables: map[*engine.Type]columns.Table{},
		withKind: w.cfg.showKind || len(w.types) > 1, fail: fail}
	s.mu.Lock()
	s.printers[name] = rp
	s.settle()
	s.mu.Unlock()
	select {
	case <-s.printed:
	case <-ctx.Done():
	}
	for {
		ev, ok := w.queue.Pop(ctx)
		if !ok || ctx.Err() != nil {
			if watching.Err() == nil {
				return context.Cause(ctx) // ended by rowPrinter.fail, or nil
			}
			return nil
		}
		r, changed := w.changes.Classify(ev)
		if err := engines.ExprFatal(w.changes.Guards); err != nil {
			return err
		}
		if !changed {
			continue
		}
		if s.live != nil {
			s.live.Count(r.Typ)
			s.notify()
			continue
		}
		if err := s.printChange(ctx, rp, ev, r.Typ); err != nil {
			return err
		}
	}
}

// printChange prints the row of ev, a change of type typ, with rp;
// deleted objects print their last state.
func (s *watchOutput) printChange(ctx context.Context, rp *rowPrinter, ev *engine.Event, typ engine.EventType) error {
	obj := ev.Object()
	if typ == engine.Deleted && ev.Old != nil {
		obj = ev.Old
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rp.now = rp.w.cfg.ages.Now()
	if err := rp.print(ctx, ev.Resource, typ, obj); err != nil {
		return err
	}
	if err := s.tabs.Flush(); err != nil {
		return err
	}
	if pending, _ := rp.w.queue.Stats(); pending == 0 {
		return s.out.Flush()
	}
	return nil
}

// runWatch is Run for -w and --watch-only: it keeps the answer of every
// target current (a watchSink) until Ctrl-C (then cmdutil.ErrInterrupted)
// or the engines fail: each target watched in parallel (watchTarget),
// their rows printed as one stream, or the answer redrawn. One target's
// failure is the command's error; of several, a context that fails is
// named on stderr once, the others go on, and the exit code is then 1. A
// failed print (stdout closed) ends every target's watch.
func (o *QueryOptions) runWatch(signals context.Context) error {
	switch o.Engines.(type) {
	case engines.DirectEngines, engines.WarmEngines:
	default:
		return fmt.Errorf("--watch follows an API server's changes; --from files do not change (drop --watch)")
	}
	sigpipe := make(chan os.Signal, 1)
	signal.Notify(sigpipe, syscall.SIGPIPE)
	defer signal.Stop(sigpipe)
	set := o.set
	ctx, cancel := context.WithCancel(signals)
	defer cancel()
	var mu sync.Mutex // one line at a time on stderr
	progress := pluginprogress.Of(o.ErrOut, set).UntilWatching()
	defer progress.End()
	var sink watchSink
	if o.grouped() {
		sink = o.newGroupWatch(progress.End)
	} else {
		rows := newWatchOutput(o.Out, set.Names(), o.WatchOnly, o.redraws(), set.Several)
		rows.answered = progress.End
		sink = rows
	}
	// A target's watch may see Ctrl-C before this command's own context
	// does: either way the command was interrupted.
	var interruptedHere atomic.Bool
	watched := make(chan error, 1)
	go func() {
		watched <- targets.Watch(ctx, set, progress, &mu, o.ErrOut, func(ctx context.Context, t targets.Target, errOut io.Writer) error {
			err := o.watchTarget(ctx, t, errOut, sink)
			if errors.Is(err, cmdutil.ErrInterrupted) {
				interruptedHere.Store(true)
				err = nil
			}
			sink.ended(t.Name, err)
			return err
		})
	}()
	done := make(chan struct{})
	printed := make(chan error, 1)
	go func() {
		err := sink.print(ctx, done)
		if err != nil {
			cancel()
		}
		printed <- err
	}()
	watchErr := <-watched
	close(done)
	printErr := <-printed
	if watchErr != nil {
		return watchErr
	}
	if printErr != nil {
		return watch.QuietPipe(printErr)
	}
	if interruptedHere.Load() {
		return cmdutil.ErrInterrupted
	}
	return interrupted(signals, nil)
}
