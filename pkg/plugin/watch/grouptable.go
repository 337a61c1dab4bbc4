package watch

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/cli-runtime/pkg/printers"

	"github.com/kubectl-informer/kubectl-informer/pkg/aggregate"
	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/fleet"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/object"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/printing"
	"github.com/kubectl-informer/kubectl-informer/pkg/terminal"
)

// This file holds the live table of watch --group-by … --sum …, of one
// target or several, by the rules of a fleet query's --group-by and
// --sum: a group's count and sums are the sums over the targets, unless
// the built-in context index is one of the --group-by keys, which keeps
// each context's groups apart; TOTAL adds up all targets. One target's
// table is a merge of one.
//
// Each target runs its own engine; once synced it adds its objects to the
// one table and waits. The table is printed when every target has synced
// or failed, so that it starts as the query's answer; then each target's
// events change it as they come: redrawn in place on a terminal, at most
// every redrawInterval, and otherwise printed once, then as one line per
// changed group. A target that fails is named on stderr by the watch of
// several, and what it had added is taken out of the table: the table
// counts only targets that are watched.

// redrawInterval is the shortest time between two redraws of the live
// table on a terminal: a few times a second, like watch(1) and top(1) at
// their fastest, so a burst of events is one redraw.
const redrawInterval = 250 * time.Millisecond

// Terminal control sequences of the live table: it is drawn from the top
// left corner over the last one, each line erased to its end, then the rest
// of the screen erased, so that nothing flashes blank between two draws.
const (
	cursorHome = "\x1b[H"
	eraseLine  = "\x1b[K"
	eraseBelow = "\x1b[J"
)

// groupTable is the live grouped table of a watch. Its methods are safe
// for concurrent use by the targets' goroutines.
type groupTable struct {
	mu sync.Mutex
	// live holds every target's objects, each under its target's name and
	// its type and storage key; its keys are the --group-by keys, context
	// among them where --group-by names it, at contextAt (-1 if not).
	live      *aggregate.Live
	keys      []string
	contextAt int
	measures  []aggregate.Measure
	// title heads the table on a terminal: the command, as watch(1) does.
	title      string
	timestamps bool
	// tty redraws the table in place instead of printing changed groups.
	tty bool
	out *bufio.Writer
	now func() time.Time
	// contexts are the targets watched, in order; seeded those whose
	// objects are in the table, members the table keys each added.
	contexts []string
	seeded   map[string]bool
	members  map[string]map[string]bool
	// waiting counts the targets not yet seeded nor ended; ready is
	// closed when it reaches 0, drawn once the table is first printed.
	waiting int
	ready   chan struct{}
	drawn   chan struct{}
	dirty   bool
	// beforeDraw runs once before the first draw (the progress of several
	// targets ends there).
	beforeDraw func()
}

// groupFeed is one target's part of a groupTable: the target's name ("" for
// one target), the index definitions of its own --group-by keys (without
// context), and which of its objects count: named, if names were given,
// and in the query of --where and --filter.
type groupFeed struct {
	table *groupTable
	name  string
	keys  []index.Definition
	names map[string]map[string]bool
	cfg   WatchPrintConfig
	// measures are the table's bound to the target's usage samples
	// (followUsage); nil for the table's own.
	measures []aggregate.Measure
}

// groupTable returns the live table of the watch of contexts, the
// targets' names, printed to out.
func (o *WatchOptions) groupTable(contexts []string, out io.Writer) *groupTable {
	keys := make([]string, len(o.GroupBy))
	for i, g := range o.GroupBy {
		keys[i] = strings.TrimSpace(g)
	}
	s := &groupTable{
		live: aggregate.NewLive(keys, o.measures), keys: keys, contextAt: slices.Index(keys, fleet.ContextIndex),
		measures: o.measures, title: o.groupTitle(), timestamps: o.Timestamps,
		tty: printers.IsTerminal(out), out: bufio.NewWriterSize(out, 64*1024), now: time.Now,
		contexts: contexts, seeded: map[string]bool{}, members: map[string]map[string]bool{},
		waiting: len(contexts), ready: make(chan struct{}), drawn: make(chan struct{}),
	}
	if s.waiting == 0 {
		close(s.ready)
	}
	return s
}

// keyValues are the table's key values of an object of target name whose
// values of the target's own keys are values.
func (s *groupTable) keyValues(name string, values [][]string) [][]string {
	if s.contextAt < 0 {
		return values
	}
	out := make([][]string, 0, len(values)+1)
	out = append(out, values[:s.contextAt]...)
	out = append(out, []string{name})
	return append(out, values[s.contextAt:]...)
}

// set adds or replaces an object of the feed's target in the table, or
// takes it out when the feed does not count it; the table's mu is held.
func (f *groupFeed) set(t *engine.Type, key string, obj interface{}) ([]aggregate.GroupChange, error) {
	s := f.table
	member := f.name + "\x00" + t.Name() + "/" + key
	if obj == nil || !named(f.names, t, obj) || !f.cfg.matches(obj) {
		delete(s.members[f.name], member)
		return s.live.Delete(member), nil
	}
	values := make([][]string, len(f.keys))
	for i, def := range f.keys {
		values[i] = index.Values(def, obj)
	}
	measures := f.measures
	if measures == nil {
		measures = s.measures
	}
	changes, err := s.live.SetWith(member, obj, s.keyValues(f.name, values), measures)
	if err != nil {
		return nil, fmt.Errorf("--sum: %w", err)
	}
	if s.members[f.name] == nil {
		s.members[f.name] = map[string]bool{}
	}
	s.members[f.name][member] = true
	return changes, nil
}

// expandGlobs expands the table's glob measures (requests.nvidia.com/*)
// against the resources the cached pods of types request, the first time
// a target has synced: the table's columns are fixed from then on, so a
// resource first requested later, or only in a context that synced later,
// has no column.
func (s *groupTable) expandGlobs(types []*engine.Type) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !slices.ContainsFunc(s.measures, aggregate.Measure.IsGlob) {
		return nil
	}
	var objs []interface{}
	for _, t := range types {
		list, err := t.Lookup(nil)
		if err != nil {
			return err
		}
		objs = append(objs, list...)
	}
	s.measures, _ = aggregate.ExpandGlobsOver(s.measures, objs)
	s.live = aggregate.NewLive(s.keys, s.measures)
	return nil
}

// seed adds every cached object of types and counts the feed's target as
// seeded.
func (f *groupFeed) seed(types []*engine.Type) error {
	s := f.table
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := f.setAll(types); err != nil {
		return err
	}
	s.seeded[f.name] = true
	s.settle()
	return nil
}

// setAll sets every cached object of types, and returns the groups that
// changed; the table's mu is held.
func (f *groupFeed) setAll(types []*engine.Type) ([]aggregate.GroupChange, error) {
	var changes []aggregate.GroupChange
	for _, t := range types {
		objs, err := t.Lookup(nil)
		if err != nil {
			return nil, err
		}
		for _, obj := range objs {
			key, err := object.Key(obj)
			if err != nil {
				return nil, err
			}
			c, err := f.set(t, key, obj)
			if err != nil {
				return nil, err
			}
			changes = append(changes, c...)
		}
	}
	return changes, nil
}

// settle counts one target less waiting; s.mu is held.
func (s *groupTable) settle() {
	s.waiting--
	if s.waiting == 0 {
		close(s.ready)
	}
}

// ended records that target name's watch ended with err: a target that
// never seeded no longer holds the first draw back, and a failed one's
// objects are taken out of the table.
func (s *groupTable) ended(name string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.seeded[name] {
		s.settle()
	} else if err == nil {
		return
	}
	delete(s.seeded, name)
	members := make([]string, 0, len(s.members[name]))
	for m := range s.members[name] {
		members = append(members, m)
	}
	delete(s.members, name)
	slices.Sort(members)
	var changes []aggregate.GroupChange
	for _, m := range members {
		changes = append(changes, s.live.Delete(m)...)
	}
	s.changed(netChanges(changes))
	if !s.tty {
		s.out.Flush()
	}
}

// netChanges merges successive changes of the same group into one, from
// its first state before to its last after, in the order groups first
// changed.
func netChanges(changes []aggregate.GroupChange) []aggregate.GroupChange {
	var out []aggregate.GroupChange
	at := map[string]int{}
	for _, c := range changes {
		id := strings.Join(c.Key, "\x00")
		if c.Key == nil {
			id = "\x01total"
		}
		if i, ok := at[id]; ok {
			out[i].After = c.After
			continue
		}
		at[id] = len(out)
		out = append(out, c)
	}
	return out
}

// changed prints the changes off a terminal, once the table is printed,
// and marks the table to be drawn again on one; s.mu is held.
func (s *groupTable) changed(changes []aggregate.GroupChange) {
	if len(changes) == 0 {
		return
	}
	select {
	case <-s.drawn:
	default:
		return
	}
	if s.tty {
		s.dirty = true
		return
	}
	for _, c := range changes {
		s.out.WriteString(s.changeLine(c))
	}
}

// follow applies the events of q to the table, once it is printed, until
// ctx ends.
func (f *groupFeed) follow(ctx context.Context, q *engine.Queue) error {
	s := f.table
	select {
	case <-s.drawn:
	case <-ctx.Done():
		return nil
	}
	for {
		ev, ok := q.Pop(ctx)
		if !ok {
			return nil
		}
		s.mu.Lock()
		changes, err := f.set(ev.Resource, ev.Key, ev.New)
		if err != nil {
			s.mu.Unlock()
			return err
		}
		s.changed(changes)
		var flushErr error
		if pending, _ := q.Stats(); pending == 0 && !s.tty {
			flushErr = s.out.Flush()
		}
		s.mu.Unlock()
		if flushErr != nil {
			return QuietPipe(flushErr)
		}
	}
}

// table is the table as it stands. Grouped by context alone, a seeded
// context with no object has a row of zeros, as in a fleet query.
func (s *groupTable) table() aggregate.Table {
	t := s.live.Table()
	if s.contextAt < 0 || len(s.keys) != 1 {
		return t
	}
	for _, name := range s.contexts {
		if !s.seeded[name] || slices.ContainsFunc(t.Rows, func(r []aggregate.Value) bool { return r[0].Text() == name }) {
			continue
		}
		row := []aggregate.Value{aggregate.Text(name), aggregate.Count(0)}
		for range s.measures {
			row = append(row, aggregate.Quantity(resource.Quantity{}))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// print draws the table once every target has seeded or ended, then, on
// a terminal, again at most every redrawInterval while it changes, until
// done is closed (every target has ended).
func (s *groupTable) print(done <-chan struct{}) error {
	select {
	case <-s.ready:
	case <-done:
	}
	s.mu.Lock()
	if s.beforeDraw != nil {
		s.beforeDraw()
	}
	var err error
	if len(s.seeded) > 0 {
		err = s.draw()
	}
	close(s.drawn)
	s.mu.Unlock()
	if err != nil {
		return QuietPipe(err)
	}
	if !s.tty {
		<-done
		s.mu.Lock()
		defer s.mu.Unlock()
		return QuietPipe(s.out.Flush())
	}
	ticker := time.NewTicker(redrawInterval)
	defer ticker.Stop()
	for {
		var last bool
		select {
		case <-done:
			last = true
		case <-ticker.C:
		}
		s.mu.Lock()
		if s.dirty {
			err = s.draw()
			s.dirty = false
		}
		s.mu.Unlock()
		if err != nil || last {
			return QuietPipe(err)
		}
	}
}

// runGroupTargets runs watch, the watches that feed s, while s prints the
// table; it returns watch's error, else the print's.
func runGroupTargets(s *groupTable, watch func() error) error {
	done := make(chan struct{})
	printed := make(chan error, 1)
	go func() { printed <- s.print(done) }()
	err := watch()
	close(done)
	if printErr := <-printed; err == nil {
		err = printErr
	}
	return err
}

// draw prints the whole table: on a terminal in place of the last one,
// under a title line with the time; s.mu is held.
func (s *groupTable) draw() error {
	table := s.table()
	if len(s.measures) == 0 {
		table.Total = nil
	}
	header, rows := table.Strings()
	var buf bytes.Buffer
	if s.tty {
		fmt.Fprintf(&buf, "%s — %d objects — %s\n\n", terminal.SanitizeText(s.title), s.live.Len(), s.now().Format("15:04:05"))
	}
	if err := printing.WriteTable(&buf, header, rows, false); err != nil {
		return err
	}
	out := buf.Bytes()
	if s.tty {
		out = append([]byte(cursorHome), bytes.ReplaceAll(out, []byte("\n"), []byte(eraseLine+"\n"))...)
		out = append(out, eraseBelow...)
	}
	if _, err := s.out.Write(out); err != nil {
		return err
	}
	return s.out.Flush()
}

// changeLine is one changed group as a line: its key values, then its count
// and each sum, "before → after" where they changed:
//
//	node=worker-1 label:app=web: count 2 → 3, requests.cpu 500m → 750m
func (s *groupTable) changeLine(c aggregate.GroupChange) string {
	var line strings.Builder
	if s.timestamps {
		line.WriteString(s.now().Format("15:04:05.000 "))
	}
	if c.Key == nil {
		line.WriteString(aggregate.TotalLabel)
	}
	for i, v := range c.Key {
		if i > 0 {
			line.WriteByte(' ')
		}
		if v == "" {
			v = aggregate.NoValue
		}
		line.WriteString(terminal.SanitizeText(s.keys[i] + "=" + v))
	}
	line.WriteString(": count ")
	line.WriteString(fromTo(fmt.Sprint(c.Before.Count), fmt.Sprint(c.After.Count)))
	for i, m := range s.measures {
		line.WriteString(", " + m.Name + " ")
		line.WriteString(fromTo(sumString(c.Before, i), sumString(c.After, i)))
	}
	line.WriteByte('\n')
	return line.String()
}

// sumString is the i-th sum of s, "0" for a group that was not there; a
// share measure's cell ("250m/1 (25%)").
func sumString(s aggregate.GroupState, i int) string {
	if i >= len(s.Sums) {
		return "0"
	}
	if i < len(s.Cells) && s.Cells[i].IsShare() {
		return s.Cells[i].String()
	}
	return s.Sums[i].String()
}

// fromTo is "a → b", or a alone when they are equal.
func fromTo(a, b string) string {
	if a == b {
		return a
	}
	return a + " → " + b
}
