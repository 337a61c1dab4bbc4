package watch

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/kubectl-informer/kubectl-informer/pkg/aggregate"
	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/printing"
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
	return len(o.GroupBy) > 0 || len(o.Sums) > 0
}

// completeGroups looks up the indexes of groupBy (--group-by as the
// targets read it) and parses --sum, and returns indexDefs with the
// --group-by indexes added.
func (o *WatchOptions) completeGroups(groupBy []string, indexDefs []index.Definition) ([]index.Definition, error) {
	defs, measures, err := engines.ParseGroups(o.IndexSet, groupBy, o.Sums)
	if err != nil {
		return nil, err
	}
	o.groupDefs, o.measures = defs, measures
	for _, def := range defs {
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
	o.Config.ManagedFields = engine.DropManagedFields
	if engines.PodTransformSafe(o.measures, indexDefs, o.Filter != "") {
		o.Config.Transforms = map[schema.GroupResource]toolscache.TransformFunc{{Resource: "pods"}: aggregate.TransformPod}
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

// runGroups keeps the live grouped table of the synced caches until ctx
// ends (Ctrl-C, --timeout) or the engine fails: the watch's part of the
// table of several targets, or a table of its own, a merge of one.
func (w *targetWatch) runGroups(ctx context.Context, eng engines.RunningEngine, queue *engine.Queue, names map[string]map[string]bool) error {
	if w.groups != nil {
		return w.groups.run(ctx, w, eng, queue, names)
	}
	groups, err := newFleetGroups(w.o.groupTitle(), w.o.GroupBy, w.o.Sums, w.o.Timestamps, []string{""}, w.out)
	if err != nil {
		return err
	}
	one := &fleetGroupContext{shared: groups}
	return runGroupTargets(groups, func() error {
		err := one.run(ctx, w, eng, queue, names)
		groups.ended(one.name, err)
		return err
	})
}

// groupWatch keeps the live grouped table of a watch and prints it.
type groupWatch struct {
	live     *aggregate.Live
	keys     []index.Definition
	measures []aggregate.Measure
	names    map[string]map[string]bool
	cfg      WatchPrintConfig
	// title heads the table on a terminal: the command, as watch(1) does.
	title string
	// tty redraws the table in place instead of printing changed groups.
	tty bool
	out *bufio.Writer
	now func() time.Time
	// tableOf, if set, returns the table to draw instead of live's
	// (fleetGroups.table).
	tableOf func() aggregate.Table
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

// liveKey keeps objects of different types apart.
func liveKey(t *engine.Type, key string) string { return t.Name() + "/" + key }

// counts reports whether obj is in the table: named, if names were given,
// and in the query of --where and --filter.
func (g *groupWatch) counts(t *engine.Type, obj interface{}) bool {
	if set := g.names[t.Name()]; len(set) > 0 {
		if a, err := meta.Accessor(obj); err != nil || !set[a.GetName()] {
			return false
		}
	}
	return g.cfg.matches(obj)
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
	if err := printing.WriteTable(&buf, header, rows, false); err != nil {
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
	if g.cfg.Timestamps {
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
