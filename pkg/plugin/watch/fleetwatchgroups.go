package watch

import (
	"bufio"
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
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/printing"
)

// This file holds watch --group-by … --sum … across contexts: one live
// grouped table over every context's objects, by the rules of a fleet
// query's --group-by and --sum: a group's count and sums are
// the sums over the contexts, unless the built-in context index is one of
// the --group-by keys, which keeps each context's groups apart; TOTAL adds
// up all contexts.
//
// Each context runs its own engine (runWatchTargets); once synced it adds its
// objects to the one table and waits. The table is printed when every
// context has synced or failed, so that it starts as the fleet query's
// answer; then each context's events change it as they come, drawn as
// groupWatch.draw draws a table (redrawn in place on a terminal,
// a line per changed group otherwise). A context that fails is named on
// stderr by the fleet watch, and what it had added is taken out of the
// table: the table counts only contexts that are watched.

// fleetGroups is the live grouped table of a fleet watch. Its methods are
// safe for concurrent use by the contexts' goroutines.
type fleetGroups struct {
	mu sync.Mutex
	// g prints the merged table: its keys are the --group-by keys with
	// context among them where --group-by names it; its Live holds every
	// context's objects, each under its context's name and liveKey.
	g *groupWatch
	// contextAt is the position of context among the keys, -1 if none.
	contextAt int
	// contexts are the contexts watched, in order; seeded those whose
	// objects are in the table, members the table keys each added.
	contexts []string
	seeded   map[string]bool
	members  map[string]map[string]bool
	// waiting counts the contexts not yet seeded nor ended; ready is
	// closed when it reaches 0, drawn once the table is first printed.
	waiting int
	ready   chan struct{}
	drawn   chan struct{}
	dirty   bool
	// beforeDraw runs once before the first draw (the fleet progress
	// ends there).
	beforeDraw func()
}

// fleetGroupContext is one context's part of a fleetGroups: a WatchOptions
// that has it feeds the shared table instead of printing its own.
type fleetGroupContext struct {
	shared *fleetGroups
	name   string
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

// newFleetGroups returns the table of a fleet watch of contexts, grouped
// by groupBy (context included) and summing sums, printed to out.
func newFleetGroups(title string, groupBy, sums []string, timestamps bool, contexts []string, out io.Writer) (*fleetGroups, error) {
	_, at, err := splitGroupByContext(groupBy)
	if err != nil {
		return nil, err
	}
	keys := make([]string, len(groupBy))
	defs := make([]index.Definition, len(groupBy))
	for i, g := range groupBy {
		keys[i] = strings.TrimSpace(g)
		defs[i] = index.Definition{Name: keys[i]}
	}
	var measures []aggregate.Measure
	for _, s := range sums {
		m, err := aggregate.ParseMeasure(s)
		if err != nil {
			return nil, err
		}
		measures = append(measures, m)
	}
	s := &fleetGroups{
		g: &groupWatch{
			live: aggregate.NewLive(keys, measures), keys: defs, measures: measures,
			cfg: WatchPrintConfig{Timestamps: timestamps}, title: title,
			tty: printers.IsTerminal(out), out: bufio.NewWriterSize(out, 64*1024), now: time.Now,
		},
		contextAt: at, contexts: contexts, seeded: map[string]bool{}, members: map[string]map[string]bool{},
		waiting: len(contexts), ready: make(chan struct{}), drawn: make(chan struct{}),
	}
	s.g.tableOf = s.table
	if s.waiting == 0 {
		close(s.ready)
	}
	return s, nil
}

// fleetGroupTitle is the title of a fleet group watch on a terminal: "pods
// by context, node; sum of requests.cpu".
func fleetGroupTitle(args, groupBy, sums []string) string {
	title := strings.Join(args, " ")
	if len(groupBy) > 0 {
		title += " by " + strings.Join(groupBy, ", ")
	}
	if len(sums) > 0 {
		title += "; sum of " + strings.Join(sums, ", ")
	}
	return title
}

// keyValues are the merged table's key values of an object of context
// name whose values of the context's own keys are values.
func (s *fleetGroups) keyValues(name string, values [][]string) [][]string {
	if s.contextAt < 0 {
		return values
	}
	out := make([][]string, 0, len(values)+1)
	out = append(out, values[:s.contextAt]...)
	out = append(out, []string{name})
	return append(out, values[s.contextAt:]...)
}

// set adds or replaces an object of context name in the table, or takes it
// out when feed does not count it; feed holds the context's keys, names
// and query. s.mu is held.
func (s *fleetGroups) set(name string, feed *groupWatch, t *engine.Type, key string, obj interface{}) ([]aggregate.GroupChange, error) {
	member := name + "\x00" + liveKey(t, key)
	if obj == nil || !feed.counts(t, obj) {
		delete(s.members[name], member)
		return s.g.live.Delete(member), nil
	}
	values := make([][]string, len(feed.keys))
	for i, def := range feed.keys {
		values[i] = index.Values(def, obj)
	}
	changes, err := s.g.live.Set(member, obj, s.keyValues(name, values))
	if err != nil {
		return nil, fmt.Errorf("--sum: %w", err)
	}
	if s.members[name] == nil {
		s.members[name] = map[string]bool{}
	}
	s.members[name][member] = true
	return changes, nil
}

// seed adds every cached object of context name's types and counts the
// context as seeded.
func (s *fleetGroups) seed(name string, feed *groupWatch, types []*engine.Type) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range types {
		objs, err := t.Lookup(nil)
		if err != nil {
			return err
		}
		for _, obj := range objs {
			if _, err := s.set(name, feed, t, objectKey(obj), obj); err != nil {
				return err
			}
		}
	}
	s.seeded[name] = true
	s.settle()
	return nil
}

// objectKey is an object's storage key, ns/name or name.
func objectKey(obj interface{}) string {
	if ns := printing.ObjectNamespace(obj); ns != "" {
		return ns + "/" + printing.ObjectName(obj)
	}
	return printing.ObjectName(obj)
}

// settle counts one context less waiting; s.mu is held.
func (s *fleetGroups) settle() {
	s.waiting--
	if s.waiting == 0 {
		close(s.ready)
	}
}

// ended records that context name's watch ended with err: a context that
// never seeded no longer holds the first draw back, and a failed one's
// objects are taken out of the table.
func (s *fleetGroups) ended(name string, err error) {
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
		changes = append(changes, s.g.live.Delete(m)...)
	}
	s.changed(netChanges(changes))
	if !s.g.tty {
		s.g.out.Flush()
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
func (s *fleetGroups) changed(changes []aggregate.GroupChange) {
	if len(changes) == 0 {
		return
	}
	select {
	case <-s.drawn:
	default:
		return
	}
	if s.g.tty {
		s.dirty = true
		return
	}
	for _, c := range changes {
		s.g.out.WriteString(s.g.changeLine(c))
	}
}

// follow applies context name's events to the table, once it is printed,
// until ctx ends.
func (s *fleetGroups) follow(ctx context.Context, name string, feed *groupWatch, q *engine.Queue) error {
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
		changes, err := s.set(name, feed, ev.Resource, ev.Key, ev.New)
		if err != nil {
			s.mu.Unlock()
			return err
		}
		s.changed(changes)
		var flushErr error
		if pending, _ := q.Stats(); pending == 0 && !s.g.tty {
			flushErr = s.g.out.Flush()
		}
		s.mu.Unlock()
		if flushErr != nil {
			return QuietPipe(flushErr)
		}
	}
}

// table is the merged table as it stands. Grouped by context alone, a
// seeded context with no object has a row of zeros, as in a fleet query.
func (s *fleetGroups) table() aggregate.Table {
	t := s.g.live.Table()
	if s.contextAt < 0 || len(s.g.keys) != 1 {
		return t
	}
	for _, name := range s.contexts {
		if !s.seeded[name] || slices.ContainsFunc(t.Rows, func(r []aggregate.Value) bool { return r[0].Text() == name }) {
			continue
		}
		row := []aggregate.Value{aggregate.Text(name), aggregate.Count(0)}
		for range s.g.measures {
			row = append(row, aggregate.Quantity(resource.Quantity{}))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// print draws the table once every context has seeded or ended, then, on
// a terminal, again at most every redrawInterval while it changes, until
// done is closed (every context has ended).
func (s *fleetGroups) print(done <-chan struct{}) error {
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
		err = s.g.draw()
	}
	close(s.drawn)
	s.mu.Unlock()
	if err != nil {
		return QuietPipe(err)
	}
	if !s.g.tty {
		<-done
		s.mu.Lock()
		defer s.mu.Unlock()
		return QuietPipe(s.g.out.Flush())
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
			err = s.g.draw()
			s.dirty = false
		}
		s.mu.Unlock()
		if err != nil || last {
			return QuietPipe(err)
		}
	}
}

// run is runGroups for one context of a fleet group watch: its synced
// objects go into the shared table, then its events, until ctx ends or its
// engine fails.
func (c *fleetGroupContext) run(ctx context.Context, w *targetWatch, eng engines.RunningEngine, queue *engine.Queue, names map[string]map[string]bool) error {
	feed := &groupWatch{keys: w.groupDefs, names: names, cfg: w.print}
	if err := c.shared.seed(c.name, feed, eng.Types()); err != nil {
		return err
	}
	engines.PrintSyncedFrom(w.errOut, w.eo.Engines, eng.Types())
	ctx, cancel := w.o.watchContext(ctx, eng)
	defer cancel()
	err := c.shared.follow(ctx, c.name, feed, queue)
	if failed := eng.Err(); failed != nil {
		return failed
	}
	return err
}
