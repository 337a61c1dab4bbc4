package watch

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	goruntime "runtime"
	"syscall"
	"time"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/expr"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
)

// This file holds the watch's event loop: when output is flushed, how many
// CPUs it runs on, and how it ends.

// maxFlushDelay bounds how long a printed event may wait in the output
// buffer while more events are pending.
const maxFlushDelay = 20 * time.Millisecond

// EventPrinter is the one goroutine that turns queued events into output.
type EventPrinter struct {
	Cfg    WatchPrintConfig
	names  map[string]map[string]bool
	Out    *bufio.Writer
	errOut io.Writer
	// jsonOut encodes -o json's lines into jsonTo, which is Out.
	jsonOut *json.Encoder
	jsonTo  *bufio.Writer
	// until, when set, ends the watch when it is met, and met says it was.
	until *untilCondition
	met   bool
	// Guards are the watch's expressions, checked after each event for one
	// that hit CEL's cost limit, which ends the watch with an error.
	Guards []*expr.Guard
	// exprs reports the expressions' evaluation errors on errOut.
	exprs *engines.ExprReporter
	// RecordedAt, set for the events of a recording, returns the time an
	// event was recorded: --timestamps prints it, date included, and -o
	// json and yaml carry it as "time". Nil for a live watch, whose
	// --timestamps print the time of printing.
	RecordedAt func(*engine.Event) time.Time

	lastCoalesced int64
	lastNotice    time.Time
}

// NewEventPrinter returns the printer of a watch configured by cfg; names
// are the names to print per resource, all names where a set is empty.
func NewEventPrinter(cfg WatchPrintConfig, names map[string]map[string]bool, out, errOut io.Writer) *EventPrinter {
	return &EventPrinter{Cfg: cfg, names: names, Out: bufio.NewWriterSize(out, 64*1024), errOut: errOut}
}

// run prints events until ctx ends, the --max-events budget is spent or the --until
// condition is met (then p.met is set). A closed stdout ends it quietly; an
// expression that hit CEL's cost limit ends it with an error.
func (p *EventPrinter) run(ctx context.Context, q *engine.Queue) error {
	// Unless SIGPIPE is handled, the Go runtime kills the process with it
	// on the first write to a closed stdout (`| head`), before quietPipe
	// sees EPIPE. Handled, the write fails with EPIPE instead.
	sigpipe := make(chan os.Signal, 1)
	signal.Notify(sigpipe, syscall.SIGPIPE)
	defer signal.Stop(sigpipe)
	defer p.Out.Flush()
	var procs procsLimit
	defer procs.restore()
	lastFlush := time.Now()
	for {
		ev, ok := q.Pop(ctx)
		if !ok {
			return QuietPipe(p.Out.Flush())
		}
		if p.Cfg.budget != nil && !p.Cfg.budget.lock() {
			return QuietPipe(p.Out.Flush())
		}
		shown, err := p.Handle(ev)
		if p.Cfg.budget != nil {
			p.Cfg.budget.unlock(shown && err == nil)
		}
		if err != nil {
			return QuietPipe(err)
		}
		if p.until != nil {
			p.until.update(p, ev)
		}
		if err := engines.ExprFatal(p.Guards); err != nil {
			return err
		}
		p.exprs.ReportFirst(p.errOut)
		if p.until != nil && p.until.met() {
			p.met = true
			return QuietPipe(p.Out.Flush())
		}
		// Flush when the queue is empty, and at least every maxFlushDelay
		// under sustained load, so a busy stream is batched but not late.
		pending, coalesced := q.Stats()
		switch {
		case pending == 0 && !procs.started:
			// Caught up with the events of the initial list.
			procs.oneProc()
		case pending >= behindPending || coalesced > 0:
			procs.restore()
		}
		if pending == 0 || time.Since(lastFlush) >= maxFlushDelay {
			if err := p.Out.Flush(); err != nil {
				return QuietPipe(err)
			}
			lastFlush = time.Now()
		}
		p.noticeCoalescing(coalesced)
	}
}

// behindPending is how many pending events, once the printer has caught
// up with the initial list, tell that the watch has fallen behind.
const behindPending = 100

// procsLimit runs a watch's steady state on one P while it keeps up.
type procsLimit struct {
	started bool
	prev    int // 0: nothing to restore
}

// oneProc sets GOMAXPROCS to 1, once, unless the user set GOMAXPROCS or
// there is only one CPU.
//
// One P is the cheaper setting while the watch keeps up: after sync each
// event is handed along a chain of goroutines, and with more than one P
// every hand-off wakes an idle P, which costs more than the event's own
// work; with one P it is a run-queue push. When the output falls behind,
// the loop gives the CPUs back with restore.
func (l *procsLimit) oneProc() {
	l.started = true
	prev := goruntime.GOMAXPROCS(0)
	if _, set := os.LookupEnv("GOMAXPROCS"); set || prev <= 1 {
		return
	}
	goruntime.GOMAXPROCS(1)
	l.prev = prev
}

// restore sets GOMAXPROCS back to what oneProc found, for good: the loop
// calls it as soon as the output falls behind, and when the watch ends.
func (l *procsLimit) restore() {
	if l.prev > 0 {
		goruntime.GOMAXPROCS(l.prev)
		l.prev = 0
	}
}

// noticeCoalescing says on stderr, at most once a second, that updates were
// merged because the output fell behind.
func (p *EventPrinter) noticeCoalescing(coalesced int64) {
	if coalesced == p.lastCoalesced || time.Since(p.lastNotice) < time.Second {
		return
	}
	fmt.Fprintf(p.errOut, "warning: output is behind; %d updates so far were merged into earlier pending updates of the same objects (each printed update shows the net change)\n", coalesced)
	p.lastCoalesced = coalesced
	p.lastNotice = time.Now()
}

// QuietPipe turns a broken pipe (stdout closed, as by `| head`) into a quiet
// end.
func QuietPipe(err error) error {
	if errors.Is(err, syscall.EPIPE) {
		return nil
	}
	return err
}
