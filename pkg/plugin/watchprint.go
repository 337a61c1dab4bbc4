package plugin

import (
	"bufio"
	"bytes"
	"context"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"reflect"
	goruntime "runtime"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubectl-informer/kubectl-informer/pkg/cache"
	"github.com/kubectl-informer/kubectl-informer/pkg/diff"
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

const (
	colorReset  = "\033[0m"
	colorGreen  = "\033[32m"
	colorYellow = "\033[33m"
	colorRed    = "\033[31m"
	colorFaint  = "\033[2m"
)

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
	// old and new are set for updates only, as diffMaps returns them: for
	// typed objects they may leave out what did not change.
	old, new map[string]interface{}
	changes  []diff.Change
	managers []string
}

func (p *eventPrinter) handle(ev *cache.Event) (bool, error) {
	if ev.Initial && !p.o.Initial {
		return false, nil
	}
	if set := p.names[ev.Resource.Name()]; len(set) > 0 {
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
		if r.old, r.new, err = p.diffMaps(ev.Old, ev.New); err != nil {
			return false, err
		}
		opts := p.textDiffOptions(ev.Resource)
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
		_, err := fmt.Fprintf(p.out, "%s %s/%s\n", r.typ, kindName(ev.Resource), diff.SanitizeText(objectName(ev.Object())))
		return true, err
	}
	return true, p.writeText(r)
}

func (p *eventPrinter) paint(color, s string) string {
	if !p.o.color {
		return s
	}
	return color + s + colorReset
}

func (p *eventPrinter) writeText(r rendered) error {
	var line strings.Builder
	if p.o.Timestamps {
		line.WriteString(time.Now().Format("15:04:05.000 "))
	}
	color := map[cache.EventType]string{cache.Added: colorGreen, cache.Modified: colorYellow, cache.Deleted: colorRed}[r.typ]
	line.WriteString(p.paint(color, fmt.Sprintf("%-8s", r.typ)))
	line.WriteString(" ")
	line.WriteString(kindName(r.ev.Resource) + "/" + diff.SanitizeText(objectName(r.ev.Object())))
	if ns := objectNamespace(r.ev.Object()); ns != "" {
		line.WriteString(" -n " + diff.SanitizeText(ns))
	}
	var notes []string
	if len(r.managers) > 0 {
		notes = append(notes, "by "+diff.SanitizeText(strings.Join(r.managers, ", ")))
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
		line.WriteString("  " + p.paint(colorFaint, "("+strings.Join(notes, "; ")+")"))
	}
	line.WriteString("\n")
	if _, err := p.out.WriteString(line.String()); err != nil {
		return err
	}
	if r.typ != cache.Modified {
		return nil
	}
	opts := p.textDiffOptions(r.ev.Resource)
	switch p.o.Diff {
	case "compact":
		return diff.WriteCompact(p.out, r.changes, "    ", p.o.color)
	case "unified":
		label := kindName(r.ev.Resource) + "/" + objectName(r.ev.New)
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
	obj, err := printable(r.ev.Object())
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

// withoutManagedFields returns obj without metadata.managedFields, as kubectl
// prints objects; it copies only the maps it changes.
func withoutManagedFields(obj map[string]interface{}) map[string]interface{} {
	md, ok := obj["metadata"].(map[string]interface{})
	if !ok {
		return obj
	}
	if _, ok := md["managedFields"]; !ok {
		return obj
	}
	mdCopy := make(map[string]interface{}, len(md))
	for k, v := range md {
		if k != "managedFields" {
			mdCopy[k] = v
		}
	}
	out := make(map[string]interface{}, len(obj))
	for k, v := range obj {
		out[k] = v
	}
	out["metadata"] = mdCopy
	return out
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

// printable returns obj as -o json and -o yaml print it: without
// metadata.managedFields, as kubectl prints objects. An unstructured object
// becomes its map; a typed object stays typed (a shallow copy when it has
// managedFields), for encoding/json to render straight from the struct,
// which costs a fraction of converting it to a map first.
func printable(obj interface{}) (interface{}, error) {
	switch o := obj.(type) {
	case *unstructured.Unstructured:
		return withoutManagedFields(o.Object), nil
	case runtime.Object:
		if a, err := meta.Accessor(o); err != nil || a.GetManagedFields() == nil {
			return o, nil
		}
		if c, ok := shallowCopy(o); ok {
			dropManagedFields(c)
			return c.Interface(), nil
		}
		return withoutManagedFieldsMap(o)
	}
	return nil, fmt.Errorf("cannot print %T", obj)
}

func withoutManagedFieldsMap(obj interface{}) (map[string]interface{}, error) {
	m, err := toMap(obj)
	if err != nil {
		return nil, err
	}
	return withoutManagedFields(m), nil
}

// diffMaps returns the two sides of an update as the maps package diff
// compares.
//
// Unstructured objects are maps already. Typed objects (what protobuf
// informers hold) have to be converted by reflection, which was the largest
// part of the watch's CPU per event; so, unless a unified diff needs the
// unchanged lines for context, diffMaps converts only the fields that differ
// (see changedParts) and leaves out managedFields (Validate always puts
// metadata.managedFields in the ignored paths). What is left out is left out
// of both maps, and a path absent from both sides yields no change in
// Compare, Changed or JSONPatch, whatever the --only and --ignore paths: the
// changes are those of the whole objects, at a fraction of the cost.
func (p *eventPrinter) diffMaps(oldObj, newObj interface{}) (old, new map[string]interface{}, err error) {
	ou, ok1 := oldObj.(*unstructured.Unstructured)
	nu, ok2 := newObj.(*unstructured.Unstructured)
	if ok1 && ok2 {
		return ou.Object, nu.Object, nil
	}
	oc, ok1 := shallowCopy(oldObj)
	nc, ok2 := shallowCopy(newObj)
	if ok1 && ok2 && oc.Type() == nc.Type() {
		dropManagedFields(oc)
		dropManagedFields(nc)
		if p.o.Output != "text" || p.o.Diff != "unified" {
			old, new = map[string]interface{}{}, map[string]interface{}{}
			if err := changedParts(oc.Elem(), nc.Elem(), old, new, maxPartsDepth); err == nil {
				return old, new, nil
			}
		}
		oldObj, newObj = oc.Interface(), nc.Interface()
	}
	if old, err = toMap(oldObj); err != nil {
		return nil, nil, err
	}
	new, err = toMap(newObj)
	return old, new, err
}

// shallowCopy returns a new pointer to a copy of the struct obj points to,
// so fields of the copy can be set without touching the cache's object. The
// copy shares every pointer, slice and map with obj: only its own fields may
// be set.
func shallowCopy(obj interface{}) (reflect.Value, bool) {
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return reflect.Value{}, false
	}
	c := reflect.New(v.Elem().Type())
	c.Elem().Set(v.Elem())
	return c, true
}

// dropManagedFields clears managedFields in c, a shallow copy: SetManagedFields
// sets the copy's own ObjectMeta field.
func dropManagedFields(c reflect.Value) {
	if a, err := meta.Accessor(c.Interface()); err == nil && a.GetManagedFields() != nil {
		a.SetManagedFields(nil)
	}
}

// maxPartsDepth bounds how deep changedParts descends into structs; four
// levels reach e.g. spec.securityContext.seLinuxOptions.
const maxPartsDepth = 4

// errNotPartable says changedParts met a struct it cannot convert in parts;
// the caller converts the whole objects instead.
var errNotPartable = errors.New("not convertible in parts")

// changedParts adds to old and new what runtime.DefaultUnstructuredConverter
// would put there for the structs a and b (one type), leaving out every
// field that is deeply equal on both sides. It descends into structs and
// non-nil pointers to structs, and compares and converts the other fields
// whole: lists (whose elements the differ may match by name), maps,
// scalars, and types that render themselves (times, quantities) or are left
// out when zero (omitzero); see partField.convert for how.
func changedParts(a, b reflect.Value, old, new map[string]interface{}, depth int) error {
	plan := partsPlanOf(a.Type())
	if !plan.ok {
		return errNotPartable
	}
	for i := range plan.fields {
		f := &plan.fields[i]
		fa, fb := a.Field(f.index), b.Field(f.index)
		if f.inline {
			// Inlined, as TypeMeta is: its fields go into this map.
			if err := changedParts(fa, fb, old, new, depth); err != nil {
				return err
			}
			continue
		}
		if depth > 0 && f.descend != descendNo {
			sa, sb := fa, fb
			if f.descend == descendPointer && !fa.IsNil() && !fb.IsNil() {
				sa, sb = fa.Elem(), fb.Elem()
			}
			if sa.Kind() == reflect.Struct && partsPlanOf(sa.Type()).ok {
				// No DeepEqual of the whole struct first: its fields are
				// compared one by one, and an equal struct leaves both
				// maps empty.
				om, nm := map[string]interface{}{}, map[string]interface{}{}
				if err := changedParts(sa, sb, om, nm, depth-1); err != nil {
					return err
				}
				if len(om) > 0 || len(nm) > 0 {
					old[f.name], new[f.name] = om, nm
				}
				continue
			}
		}
		if f.equal(fa, fb) {
			continue
		}
		if err := f.convert(fa, old); err != nil {
			return err
		}
		if err := f.convert(fb, new); err != nil {
			return err
		}
	}
	return nil
}

// partsPlan is how changedParts takes a struct type apart, worked out once
// per type.
type partsPlan struct {
	// ok is false when the type cannot be taken apart: it has unexported
	// fields, or it or its pointer renders itself.
	ok     bool
	fields []partField
}

// Whether changedParts descends into a field.
const (
	descendNo      = iota
	descendStruct  // a struct, if it can be taken apart
	descendPointer // a pointer to one, when neither side is nil
)

// partField is one field of a partsPlan, with its JSON name and options
// read as runtime.DefaultUnstructuredConverter reads them (Go 1.26: an
// anonymous struct field without a JSON name is inlined).
type partField struct {
	index     int
	name      string
	omitempty bool
	omitzero  bool
	inline    bool
	descend   int
	kind      reflect.Kind // the field's kind, for the scalar fast paths
	wrapper   reflect.Type // a struct with this field alone, for convert
}

var (
	partsPlans    sync.Map // reflect.Type → *partsPlan
	selfRendering = []reflect.Type{
		reflect.TypeFor[json.Marshaler](),
		reflect.TypeFor[encoding.TextMarshaler](),
		reflect.TypeFor[interface{ ToUnstructured() interface{} }](),
	}
)

// partsPlanOf returns the plan of struct type t.
func partsPlanOf(t reflect.Type) *partsPlan {
	if p, ok := partsPlans.Load(t); ok {
		return p.(*partsPlan)
	}
	plan := &partsPlan{ok: true}
	for _, m := range selfRendering {
		if t.Implements(m) || reflect.PointerTo(t).Implements(m) {
			plan.ok = false
		}
	}
	for i := 0; plan.ok && i < t.NumField(); i++ {
		sf := t.Field(i)
		if !sf.IsExported() {
			plan.ok = false
			break
		}
		name, opts, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "-" && opts == "" {
			continue
		}
		f := partField{index: i, name: name, kind: sf.Type.Kind()}
		for _, o := range strings.Split(opts, ",") {
			f.omitempty = f.omitempty || o == "omitempty"
			f.omitzero = f.omitzero || o == "omitzero"
		}
		if name == "" && sf.Anonymous {
			if sf.Type.Kind() != reflect.Struct {
				plan.ok = false
				break
			}
			f.inline = true
			plan.fields = append(plan.fields, f)
			continue
		}
		if name == "" {
			f.name = sf.Name
		}
		// Whether the struct can be taken apart is asked when a value
		// calls for it, not here: a type may contain itself.
		if !f.omitzero {
			switch {
			case sf.Type.Kind() == reflect.Struct:
				f.descend = descendStruct
			case sf.Type.Kind() == reflect.Pointer && sf.Type.Elem().Kind() == reflect.Struct:
				f.descend = descendPointer
			}
		}
		f.wrapper = reflect.StructOf([]reflect.StructField{{Name: sf.Name, Type: sf.Type, Tag: sf.Tag}})
		plan.fields = append(plan.fields, f)
	}
	p, _ := partsPlans.LoadOrStore(t, plan)
	return p.(*partsPlan)
}

// equal reports whether the field holds the same value in a and b.
func (f *partField) equal(a, b reflect.Value) bool {
	switch f.kind {
	case reflect.String:
		return a.String() == b.String()
	case reflect.Bool:
		return a.Bool() == b.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return a.Int() == b.Int()
	}
	return valuesEqual(a, b)
}

// valuesEqual is reflect.DeepEqual for the trees that API objects are: it
// keeps no record of visited pointers (an object decoded from the wire has
// no cycles), which was most of DeepEqual's cost here. Where it is unsure
// (functions, channels) it says false: a field found unequal is only
// converted and compared, never lost.
func valuesEqual(a, b reflect.Value) bool {
	switch a.Kind() {
	case reflect.String:
		return a.String() == b.String()
	case reflect.Bool:
		return a.Bool() == b.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return a.Int() == b.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return a.Uint() == b.Uint()
	case reflect.Float32, reflect.Float64:
		return a.Float() == b.Float()
	case reflect.Complex64, reflect.Complex128:
		return a.Complex() == b.Complex()
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return a.Pointer() == b.Pointer() || valuesEqual(a.Elem(), b.Elem())
	case reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return a.Elem().Type() == b.Elem().Type() && valuesEqual(a.Elem(), b.Elem())
	case reflect.Struct:
		for i := range a.NumField() {
			if !valuesEqual(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Slice:
		// A nil and an empty slice differ, as in DeepEqual: JSON null and [].
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return false
		}
		if a.Pointer() == b.Pointer() {
			return true
		}
		if a.Type().Elem().Kind() == reflect.Uint8 {
			return bytes.Equal(a.Bytes(), b.Bytes())
		}
		fallthrough
	case reflect.Array:
		for i := range a.Len() {
			if !valuesEqual(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Map:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return false
		}
		if a.Pointer() == b.Pointer() {
			return true
		}
		for it := a.MapRange(); it.Next(); {
			bv := b.MapIndex(it.Key())
			if !bv.IsValid() || !valuesEqual(it.Value(), bv) {
				return false
			}
		}
		return true
	}
	return false
}

// convert puts the field's value v into m as the whole struct's conversion
// would: strings, bools and integers directly, as structToUnstructured
// writes them (by kind, marshalers or not), and anything else through a
// struct with this field alone, so omitempty, omitzero, marshalers and the
// field's JSON name apply exactly as in the whole conversion.
func (f *partField) convert(v reflect.Value, m map[string]interface{}) error {
	if !f.omitzero {
		switch f.kind {
		case reflect.String:
			if !f.omitempty || v.Len() > 0 {
				m[f.name] = v.String()
			}
			return nil
		case reflect.Bool:
			if !f.omitempty || v.Bool() {
				m[f.name] = v.Bool()
			}
			return nil
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			if !f.omitempty || v.Int() != 0 {
				m[f.name] = v.Int()
			}
			return nil
		}
	}
	w := reflect.New(f.wrapper)
	w.Elem().Field(0).Set(v)
	part, err := runtime.DefaultUnstructuredConverter.ToUnstructured(w.Interface())
	if err != nil {
		return err
	}
	for k, v := range part {
		m[k] = v
	}
	return nil
}
