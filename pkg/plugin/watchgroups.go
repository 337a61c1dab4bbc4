package plugin

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/printers"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/kubectl-informer/kubectl-informer/pkg/aggregate"
	"github.com/kubectl-informer/kubectl-informer/pkg/cache"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/terminal"
)

// This file holds watch --group-by … --sum …: a grouped table kept up to
// date from the watch's events, redrawn in place on a terminal and printed
// as one line per changed group otherwise.

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

// grouped reports whether the watch keeps a grouped table (--group-by or
// --sum) instead of printing events.
func (o *WatchOptions) grouped() bool {
	return len(o.GroupBy) > 0 || len(o.Sums) > 0 || o.fleetGroups != nil
}

// completeGroups looks up --group-by and parses --sum, and returns indexDefs
// with the --group-by indexes added.
func (o *WatchOptions) completeGroups(indexDefs []index.Definition) ([]index.Definition, error) {
	groupBy, measures, err := parseGroups(o.indexSet, o.GroupBy, o.Sums)
	if err != nil {
		return nil, err
	}
	o.groupBy, o.measures = groupBy, measures
	for _, def := range groupBy {
		if !slices.ContainsFunc(indexDefs, func(d index.Definition) bool { return d.Name == def.Name }) {
			indexDefs = append(indexDefs, def)
		}
	}
	return indexDefs, nil
}

// completeGroupEngine sets what the engine of a grouped watch caches: no
// managedFields (nothing is diffed), and stripped pods when every index and
// measure reads only what aggregate.TransformPod keeps.
func (o *WatchOptions) completeGroupEngine(indexDefs []index.Definition) {
	o.config.ManagedFields = cache.DropManagedFields
	if podTransformSafe(o.measures, indexDefs, o.Filter != "") {
		o.config.Transforms = map[schema.GroupResource]toolscache.TransformFunc{{Resource: "pods"}: aggregate.TransformPod}
	}
}

// validateGroups refuses, with --group-by or --sum, the flags that shape
// printed events, which a grouped watch does not print.
func (o *WatchOptions) validateGroups() error {
	if !o.grouped() {
		return nil
	}
	for _, f := range []struct {
		name string
		set  bool
	}{
		{"-o/--output", o.Output != "text"}, {"--diff", o.Diff != "compact"}, {"--ignore", len(o.Ignore) > 0},
		{"--only", len(o.Only) > 0}, {"--initial", o.Initial}, {"--until", o.Until != ""}, {"--until-all", o.UntilAll != ""},
		{"--max-events", o.MaxEvents > 0}, {"--show-secret-values", o.ShowSecretValues},
	} {
		if f.set {
			return fmt.Errorf("--group-by and --sum keep a table of groups instead of printing events; they cannot be combined with %s", f.name)
		}
	}
	return nil
}

// runGroups prints the live grouped table of the synced caches until ctx
// ends (Ctrl-C, --timeout) or the engine fails.
func (o *WatchOptions) runGroups(ctx context.Context, engine runningEngine, queue *cache.Queue, names map[string]map[string]bool) error {
	if o.fleetGroups != nil {
		return o.fleetGroups.run(ctx, o, engine, queue, names)
	}
	g := o.newGroupWatch(names, o.Out)
	if err := g.seed(engine.Types()); err != nil {
		return err
	}
	printSyncedFrom(o.ErrOut, o.engines, engine.Types())
	ctx, cancel := o.watchContext(ctx, engine)
	defer cancel()
	err := g.run(ctx, queue)
	if failed := engine.Err(); failed != nil {
		return failed
	}
	return err
}

// groupWatch keeps the live grouped table of a watch and prints it.
type groupWatch struct {
	live     *aggregate.Live
	keys     []index.Definition
	measures []aggregate.Measure
	names    map[string]map[string]bool
	cfg      watchPrintConfig
	// title heads the table on a terminal: the command, as watch(1) does.
	title string
	// tty redraws the table in place instead of printing changed groups.
	tty bool
	out *bufio.Writer
	now func() time.Time
	// tableOf, if set, returns the table to draw instead of live's
	// (fleetwatchgroups.go).
	tableOf func() aggregate.Table
}

// newGroupWatch returns the group watch of o, writing to out.
func (o *WatchOptions) newGroupWatch(names map[string]map[string]bool, out io.Writer) *groupWatch {
	keys := make([]string, len(o.groupBy))
	for i, def := range o.groupBy {
		keys[i] = def.Name
	}
	return &groupWatch{
		live: aggregate.NewLive(keys, o.measures), keys: o.groupBy, measures: o.measures, names: names, cfg: o.print,
		title: o.groupTitle(), tty: printers.IsTerminal(out), out: bufio.NewWriterSize(out, 64*1024), now: time.Now,
	}
}

// groupTitle is "pods by node, label:app; sum of requests.cpu".
func (o *WatchOptions) groupTitle() string {
	title := strings.Join(o.typeArgs, ",")
	if len(o.GroupBy) > 0 {
		title += " by " + strings.Join(o.GroupBy, ", ")
	}
	if len(o.Sums) > 0 {
		title += "; sum of " + strings.Join(o.Sums, ", ")
	}
	return title
}

// seed adds every cached object of types, before any event: the table
// starts from the synced state. Events of the initial list that follow set
// the same objects again, which changes nothing.
func (g *groupWatch) seed(types []*cache.Type) error {
	for _, t := range types {
		objs, err := t.Lookup(nil)
		if err != nil {
			return err
		}
		for _, obj := range objs {
			a, err := meta.Accessor(obj)
			if err != nil {
				continue
			}
			key := a.GetName()
			if ns := a.GetNamespace(); ns != "" {
				key = ns + "/" + key
			}
			if _, err := g.set(t, key, obj); err != nil {
				return err
			}
		}
	}
	return nil
}

// apply applies one event to the table and returns the groups it changed.
// An object counts while it is named (when names were given) and in the
// query of --where and --filter.
func (g *groupWatch) apply(ev *cache.Event) ([]aggregate.GroupChange, error) {
	if ev.New == nil {
		return g.live.Delete(liveKey(ev.Resource, ev.Key)), nil
	}
	return g.set(ev.Resource, ev.Key, ev.New)
}

func (g *groupWatch) set(t *cache.Type, key string, obj interface{}) ([]aggregate.GroupChange, error) {
	if !g.counts(t, obj) {
		return g.live.Delete(liveKey(t, key)), nil
	}
	keyValues := make([][]string, len(g.keys))
	for i, def := range g.keys {
		keyValues[i] = index.Values(def, obj)
	}
	changes, err := g.live.Set(liveKey(t, key), obj, keyValues)
	if err != nil {
		return nil, fmt.Errorf("--sum: %w", err)
	}
	return changes, nil
}

// counts reports whether obj is in the table: named, if names were given,
// and in the query of --where and --filter.
func (g *groupWatch) counts(t *cache.Type, obj interface{}) bool {
	if set := g.names[t.Name()]; len(set) > 0 {
		if a, err := meta.Accessor(obj); err != nil || !set[a.GetName()] {
			return false
		}
	}
	return g.cfg.matches(obj)
}

// liveKey keeps objects of different types apart.
func liveKey(t *cache.Type, key string) string { return t.Name() + "/" + key }

// run prints the table, then follows the events until ctx ends: on a
// terminal it redraws the table at most every redrawInterval; otherwise it
// prints one line per group each event changed.
func (g *groupWatch) run(ctx context.Context, q *cache.Queue) error {
	defer g.out.Flush()
	lastDraw := g.now()
	if err := g.draw(); err != nil {
		return quietPipe(err)
	}
	dirty := false
	for {
		ev, ok := q.Pop(ctx)
		if !ok {
			return quietPipe(g.out.Flush())
		}
		changes, err := g.apply(ev)
		if err != nil {
			return err
		}
		if !g.tty {
			for _, c := range changes {
				g.out.WriteString(g.changeLine(c))
			}
		} else if len(changes) > 0 {
			dirty = true
		}
		if pending, _ := q.Stats(); pending > 0 && (!g.tty || g.now().Sub(lastDraw) < redrawInterval) {
			continue
		}
		if g.tty && dirty {
			if wait := redrawInterval - g.now().Sub(lastDraw); wait > 0 {
				// Drawn a moment ago: wait, then take in what came meanwhile.
				select {
				case <-ctx.Done():
				case <-time.After(wait):
				}
				if pending, _ := q.Stats(); pending > 0 {
					continue
				}
			}
			if err := g.draw(); err != nil {
				return quietPipe(err)
			}
			lastDraw, dirty = g.now(), false
		}
		if err := g.out.Flush(); err != nil {
			return quietPipe(err)
		}
	}
}

// draw prints the whole table: on a terminal in place of the last one,
// under a title line with the time.
func (g *groupWatch) draw() error {
	table := g.live.Table()
	if g.tableOf != nil {
		table = g.tableOf()
	}
	if len(g.measures) == 0 {
		table.Total = nil
	}
	header, rows := table.Strings()
	var buf bytes.Buffer
	if g.tty {
		fmt.Fprintf(&buf, "%s — %d objects — %s\n\n", terminal.SanitizeText(g.title), g.live.Len(), g.now().Format("15:04:05"))
	}
	if err := writeTable(&buf, header, rows, false); err != nil {
		return err
	}
	out := buf.Bytes()
	if g.tty {
		out = append([]byte(cursorHome), bytes.ReplaceAll(out, []byte("\n"), []byte(eraseLine+"\n"))...)
		out = append(out, eraseBelow...)
	}
	if _, err := g.out.Write(out); err != nil {
		return err
	}
	return g.out.Flush()
}

// changeLine is one changed group as a line: its key values, then its count
// and each sum, "before → after" where they changed:
//
//	node=worker-1 label:app=web: count 2 → 3, requests.cpu 500m → 750m
func (g *groupWatch) changeLine(c aggregate.GroupChange) string {
	var line strings.Builder
	if g.cfg.timestamps {
		line.WriteString(g.now().Format("15:04:05.000 "))
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
		line.WriteString(terminal.SanitizeText(g.keys[i].Name + "=" + v))
	}
	line.WriteString(": count ")
	line.WriteString(fromTo(fmt.Sprint(c.Before.Count), fmt.Sprint(c.After.Count)))
	for i, m := range g.measures {
		line.WriteString(", " + m.Name + " ")
		line.WriteString(fromTo(sumString(c.Before, i), sumString(c.After, i)))
	}
	line.WriteByte('\n')
	return line.String()
}

// sumString is the i-th sum of s, "0" for a group that was not there.
func sumString(s aggregate.GroupState, i int) string {
	if i >= len(s.Sums) {
		return "0"
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
