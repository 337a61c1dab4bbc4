package plugin

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
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-informer/kubectl-informer/pkg/cache"
	"github.com/kubectl-informer/kubectl-informer/pkg/diff"
	"github.com/kubectl-informer/kubectl-informer/pkg/terminal"
)

// lockedWriter serialises writes from several goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// maxFlushDelay bounds how long a printed event may wait in the output
// buffer while more events are pending.
const maxFlushDelay = 20 * time.Millisecond

// eventPrinter is the one goroutine that turns queued events into output.
type eventPrinter struct {
	o       *WatchOptions
	names   map[string]map[string]bool
	out     *bufio.Writer
	errOut  io.Writer
	printed int

	lastCoalesced int64
	lastNotice    time.Time
}

func newEventPrinter(o *WatchOptions, names map[string]map[string]bool) *eventPrinter {
	return &eventPrinter{o: o, names: names, out: bufio.NewWriterSize(o.Out, 64*1024), errOut: o.ErrOut}
}

// run prints events until ctx ends or --max-events is reached. A closed
// stdout ends it quietly.
func (p *eventPrinter) run(ctx context.Context, q *cache.Queue) error {
	// Unless SIGPIPE is handled, the Go runtime kills the process with it
	// on the first write to a closed stdout (`| head`), before quietPipe
	// sees EPIPE. Handled, the write fails with EPIPE instead.
	sigpipe := make(chan os.Signal, 1)
	signal.Notify(sigpipe, syscall.SIGPIPE)
	defer signal.Stop(sigpipe)
	defer p.out.Flush()
	var procs procsLimit
	defer procs.restore()
	lastFlush := time.Now()
	for {
		ev, ok := q.Pop(ctx)
		if !ok {
			return quietPipe(p.out.Flush())
		}
		shown, err := p.handle(ev)
		if err != nil {
			return quietPipe(err)
		}
		if shown {
			p.printed++
			if p.o.MaxEvents > 0 && p.printed >= p.o.MaxEvents {
				return quietPipe(p.out.Flush())
			}
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
			if err := p.out.Flush(); err != nil {
				return quietPipe(err)
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
// there is only one CPU; restore gives the other CPUs back, for good, as
// soon as the output falls behind (and when the watch ends).
//
// After sync a watch is a chain of goroutines handing each event on (HTTP/2
// read loop, watch decoder, reflector, informer, handler, this printer).
// With more than one P, every hand-off wakes an idle P whose thread spins
// looking for work and sleeps again: futex calls and context switches that
// cost more than the event's own work. With one P a hand-off is a run-queue
// push. Measured with watch pods -o text under churn of 1,000 pods at 500
// updates/s on 2 CPUs, two alternating runs each: 318 and 312 µs of CPU
// per event with GOMAXPROCS=2, 257 and 257 µs with 1 (-18%); at 200/s,
// 486/488 against 429/433 µs. One P handles a few thousand events a
// second; a watch that needs more queues events, and then gets every CPU
// back.
func (l *procsLimit) oneProc() {
	l.started = true
	prev := goruntime.GOMAXPROCS(0)
	if _, set := os.LookupEnv("GOMAXPROCS"); set || prev <= 1 {
		return
	}
	goruntime.GOMAXPROCS(1)
	l.prev = prev
}

func (l *procsLimit) restore() {
	if l.prev > 0 {
		goruntime.GOMAXPROCS(l.prev)
		l.prev = 0
	}
}

// noticeCoalescing says on stderr, at most once a second, that updates were
// merged because the output fell behind.
func (p *eventPrinter) noticeCoalescing(coalesced int64) {
	if coalesced == p.lastCoalesced || time.Since(p.lastNotice) < time.Second {
		return
	}
	fmt.Fprintf(p.errOut, "warning: output is behind; %d updates so far were merged into earlier pending updates of the same objects (each printed update shows the net change)\n", coalesced)
	p.lastCoalesced = coalesced
	p.lastNotice = time.Now()
}

// quietPipe turns a broken pipe (stdout closed, as by `| head`) into a quiet
// end.
func quietPipe(err error) error {
	if errors.Is(err, syscall.EPIPE) {
		return nil
	}
	return err
}

// rendered is one event ready to print.
type rendered struct {
	ev   *cache.Event
	typ  cache.EventType
	note string
	// old and new are set for updates only, as diff.UpdateMaps returns them: for
	// typed objects they may leave out what did not change.
	old, new map[string]interface{}
	changes  []diff.Change
	managers []string
}

func (p *eventPrinter) handle(ev *cache.Event) (bool, error) {
	if ev.Initial && !p.o.Initial {
		return false, nil
	}
	if set := p.names[ev.T.Name()]; len(set) > 0 {
		if a, err := meta.Accessor(ev.Object()); err != nil || !set[a.GetName()] {
			return false, nil
		}
	}
	r := rendered{ev: ev, typ: ev.Type}
	if len(p.o.where) > 0 {
		oldIn, newIn := p.o.matches(ev.Old), p.o.matches(ev.New)
		switch {
		case ev.Type == cache.Added && newIn, ev.Type == cache.Deleted && oldIn:
		case ev.Type == cache.Modified && oldIn && newIn:
		case ev.Type == cache.Modified && newIn:
			r.typ, r.note = cache.Added, "entered query"
		case ev.Type == cache.Modified && oldIn:
			r.typ, r.note = cache.Deleted, "left query"
		default:
			return false, nil
		}
	}
	if r.typ == cache.Modified {
		var err error
		if r.old, r.new, err = diff.UpdateMaps(ev.Old, ev.New, p.o.Output == "text" && p.o.Diff == "unified"); err != nil {
			return false, err
		}
		opts := p.textDiffOptions(ev.T)
		if p.o.Output == "text" && p.o.Diff == "compact" {
			r.changes = diff.Compare(r.old, r.new, opts)
			if len(r.changes) == 0 {
				return false, nil
			}
		} else if !diff.Changed(r.old, r.new, opts) && !p.patchOnly(r) {
			return false, nil
		}
		r.managers = changedManagers(ev.Old, ev.New)
	}
	switch p.o.Output {
	case "json":
		return true, p.writeJSON(r)
	case "yaml":
		return true, p.writeYAML(r)
	case "name":
		_, err := fmt.Fprintf(p.out, "%s %s/%s\n", r.typ, kindName(ev.T), terminal.SanitizeText(objectName(ev.Object())))
		return true, err
	}
	return true, p.writeText(r)
}

func (p *eventPrinter) paint(color, s string) string {
	if !p.o.color {
		return s
	}
	return color + s + terminal.Reset
}

func (p *eventPrinter) writeText(r rendered) error {
	var line strings.Builder
	if p.o.Timestamps {
		line.WriteString(time.Now().Format("15:04:05.000 "))
	}
	color := map[cache.EventType]string{cache.Added: terminal.Green, cache.Modified: terminal.Yellow, cache.Deleted: terminal.Red}[r.typ]
	line.WriteString(p.paint(color, fmt.Sprintf("%-8s", r.typ)))
	line.WriteString(" ")
	line.WriteString(kindName(r.ev.T) + "/" + terminal.SanitizeText(objectName(r.ev.Object())))
	if ns := objectNamespace(r.ev.Object()); ns != "" {
		line.WriteString(" -n " + terminal.SanitizeText(ns))
	}
	var notes []string
	if len(r.managers) > 0 {
		notes = append(notes, "by "+terminal.SanitizeText(strings.Join(r.managers, ", ")))
	}
	if r.note != "" {
		notes = append(notes, r.note)
	}
	if r.ev.FinalStateUnknown {
		notes = append(notes, "final state unknown: deleted while the watch was down")
	}
	if r.ev.Coalesced > 0 {
		notes = append(notes, fmt.Sprintf("net of %d updates", r.ev.Coalesced+1))
	}
	if len(notes) > 0 {
		line.WriteString("  " + p.paint(terminal.Faint, "("+strings.Join(notes, "; ")+")"))
	}
	line.WriteString("\n")
	if _, err := p.out.WriteString(line.String()); err != nil {
		return err
	}
	if r.typ != cache.Modified {
		return nil
	}
	opts := p.textDiffOptions(r.ev.T)
	switch p.o.Diff {
	case "compact":
		return diff.WriteCompact(p.out, r.changes, "    ", p.o.color)
	case "unified":
		label := kindName(r.ev.T) + "/" + objectName(r.ev.New)
		return diff.Unified(p.out, label+" (old)", label+" (new)", r.old, r.new, opts, 3, p.o.color)
	}
	return nil
}

// textDiffOptions adds the redaction of Secret values to the diff options.
func (p *eventPrinter) textDiffOptions(t *cache.Type) diff.Options {
	opts := p.o.diffOpts
	if !p.o.ShowSecretValues && t.Mapping.Resource.Group == "" && t.Mapping.Resource.Resource == "secrets" {
		opts.Redact = append(opts.Redact, secretPaths()...)
	}
	return opts
}

func secretPaths() []diff.Path {
	var paths []diff.Path
	for _, s := range []string{"data", "stringData"} {
		p, err := diff.ParsePath(s)
		if err == nil {
			paths = append(paths, p)
		}
	}
	return paths
}

// jsonEvent is one line of -o json: the shape of kubectl get -w
// --output-watch-events -o json, plus the patch and what we know of it.
type jsonEvent struct {
	Type cache.EventType `json:"type"`
	// Object is the object without managedFields: an unstructured map, or
	// a typed object, which encoding/json renders as ToUnstructured would
	// (the same fields and values; keys in the struct's order, not sorted).
	Object            interface{}    `json:"object"`
	Patch             []diff.PatchOp `json:"patch,omitempty"`
	Managers          []string       `json:"managers,omitempty"`
	FinalStateUnknown bool           `json:"finalStateUnknown,omitempty"`
	Coalesced         int            `json:"coalesced,omitempty"`
	Note              string         `json:"note,omitempty"`
}

func (p *eventPrinter) event(r rendered) (jsonEvent, error) {
	obj, err := diff.WithoutManagedFields(r.ev.Object())
	if err != nil {
		return jsonEvent{}, err
	}
	ev := jsonEvent{
		Type:              r.typ,
		Object:            obj,
		Managers:          r.managers,
		FinalStateUnknown: r.ev.FinalStateUnknown,
		Coalesced:         r.ev.Coalesced,
		Note:              r.note,
	}
	if r.typ == cache.Modified {
		ev.Patch = diff.JSONPatch(r.old, r.new, p.o.diffOpts)
	}
	return ev, nil
}

// patchOnly reports whether -o json or yaml must print an update that
// diff.Changed finds empty: Changed matches named list elements by name, so
// reordering them is no change, but the JSON Patch works by index, and
// each event's patch must apply to the object of the event before it.
func (p *eventPrinter) patchOnly(r rendered) bool {
	return (p.o.Output == "json" || p.o.Output == "yaml") && len(diff.JSONPatch(r.old, r.new, p.o.diffOpts)) > 0
}

func (p *eventPrinter) writeJSON(r rendered) error {
	ev, err := p.event(r)
	if err != nil {
		return err
	}
	b, err := json.Marshal(ev)
	if err != nil {
		return fmt.Errorf("encoding event: %w", err)
	}
	b = append(b, '\n')
	_, err = p.out.Write(b)
	return err
}

func (p *eventPrinter) writeYAML(r rendered) error {
	ev, err := p.event(r)
	if err != nil {
		return err
	}
	b, err := marshalYAML(ev)
	if err != nil {
		return fmt.Errorf("encoding event: %w", err)
	}
	if _, err := p.out.WriteString("---\n"); err != nil {
		return err
	}
	_, err = p.out.Write(b)
	return err
}

// changedManagers names the field managers whose managedFields entry is new
// or has a new time in newObj: who made this update, as far as the server
// recorded it.
func changedManagers(oldObj, newObj interface{}) []string {
	o, err1 := meta.Accessor(oldObj)
	n, err2 := meta.Accessor(newObj)
	if err1 != nil || err2 != nil {
		return nil
	}
	key := func(e metav1.ManagedFieldsEntry) string {
		return e.Manager + "\x00" + string(e.Operation) + "\x00" + e.Subresource
	}
	before := map[string]metav1.ManagedFieldsEntry{}
	for _, e := range o.GetManagedFields() {
		before[key(e)] = e
	}
	var managers []string
	for _, e := range n.GetManagedFields() {
		prev, ok := before[key(e)]
		if ok && timeEqual(prev.Time, e.Time) {
			continue
		}
		name := e.Manager + "/" + string(e.Operation)
		if e.Subresource != "" {
			name += "/" + e.Subresource
		}
		managers = append(managers, name)
	}
	sort.Strings(managers)
	return managers
}

func timeEqual(a, b *metav1.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(b)
}

func objectName(obj interface{}) string {
	if a, err := meta.Accessor(obj); err == nil {
		return a.GetName()
	}
	return ""
}

func objectNamespace(obj interface{}) string {
	if a, err := meta.Accessor(obj); err == nil {
		return a.GetNamespace()
	}
	return ""
}
