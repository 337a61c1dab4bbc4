package live

import (
	"bufio"
	"context"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/cli-runtime/pkg/printers"

	"github.com/kubectl-informer/kubectl-informer/pkg/aggregate"
	"github.com/kubectl-informer/kubectl-informer/pkg/fleet"
)

// GroupsConfig is what a Groups counts and how it prints.
type GroupsConfig struct {
	// Keys are the --group-by index names, the built-in context index
	// among them where it is one: then each context's groups are kept
	// apart; otherwise a group's count and sums are those over the
	// targets.
	Keys []string
	// Measures are the --sum measures; a glob among them is expanded
	// against the objects of the first target that has synced, and the
	// table's columns are fixed from then on.
	Measures []aggregate.Measure
	// Contexts are the targets' names, in order.
	Contexts []string
	// Objects names what the table counts, in a frame's footer ("pods").
	Objects string
	// Lines makes the table printed off a terminal followed by a line per
	// changed group (changeLine), as each change comes; otherwise by the
	// rows of the groups that changed, at most every rowsInterval (a
	// group that emptied with a count of 0).
	Lines bool
	// Timestamps starts each change line with the time it was printed.
	Timestamps bool
	// NoHeaders leaves the table's header out.
	NoHeaders bool
	// Shape, if set, sorts and cuts the table, of measures (the globs
	// expanded), before it is printed.
	Shape func(t *aggregate.Table, measures []aggregate.Measure) error
	// Empty, if set, writes what a table without rows prints instead of
	// it, on a terminal.
	Empty func(io.Writer)
	// BeforeDraw, if set, runs once before the first draw.
	BeforeDraw func()
}

// rowsInterval is the shortest time between two batches of changed rows
// off a terminal.
const rowsInterval = time.Second

// Groups is the live grouped table (--group-by, --sum) of one target or
// several, by the rules of a query of several: a group's count and sums
// are the sums over the targets, unless context is a key; TOTAL adds up
// all targets. Each target feeds it (Feed): once synced it adds its
// objects, then its events change the table as they come. The table is
// printed when every target has synced or ended, so that it starts as the
// query's answer; then on a terminal it is redrawn in place (Screen,
// Follow), and otherwise its changes are printed (GroupsConfig.Lines). A
// target that fails is taken out of the table: it counts only targets
// that are watched. Its methods are safe for concurrent use.
type Groups struct {
	cfg GroupsConfig

	mu sync.Mutex
	// live holds every target's objects, each under its target's name and
	// its type and storage key; context is its key at contextAt (-1 if
	// not).
	live      *aggregate.Live
	contextAt int
	measures  []aggregate.Measure
	out       *bufio.Writer
	// screen is set on a terminal; tabs writes the changed rows off one.
	screen *Screen
	tabs   interface {
		io.Writer
		Flush() error
	}
	now func() time.Time
	// seeded are the targets whose objects are in the table, members the
	// table keys each added.
	seeded  map[string]bool
	members map[string]map[string]bool
	// waiting counts the targets not yet seeded nor ended; ready is
	// closed when it reaches 0, drawn once the table is first printed.
	waiting int
	ready   chan struct{}
	drawn   chan struct{}
	// changed is sent on when the table changed after its first print;
	// rows are the rows printed last off a terminal, by their key.
	changed chan struct{}
	rows    map[string][]string
}

// NewGroups returns the live table of cfg, printed to out.
func NewGroups(out io.Writer, cfg GroupsConfig) *Groups {
	buf := bufio.NewWriterSize(out, 64*1024)
	g := &Groups{
		cfg: cfg, live: aggregate.NewLive(cfg.Keys, cfg.Measures), contextAt: slices.Index(cfg.Keys, fleet.ContextIndex),
		measures: cfg.Measures, out: buf, tabs: printers.GetNewTabWriter(buf), now: time.Now,
		seeded: map[string]bool{}, members: map[string]map[string]bool{},
		waiting: len(cfg.Contexts), ready: make(chan struct{}), drawn: make(chan struct{}), changed: make(chan struct{}, 1),
	}
	if printers.IsTerminal(out) {
		g.screen = NewScreen(out)
	}
	if g.waiting == 0 {
		close(g.ready)
	}
	return g
}

// Notes is where the targets' warnings go on a terminal (Screen.Notes),
// nil off one or for a nil Groups.
func (g *Groups) Notes() io.Writer {
	if g == nil || g.screen == nil {
		return nil
	}
	return g.screen.Notes()
}

// keyValues are the table's key values of an object of target name whose
// values of the target's own keys are values.
func (g *Groups) keyValues(name string, values [][]string) [][]string {
	if g.contextAt < 0 {
		return values
	}
	out := make([][]string, 0, len(values)+1)
	out = append(out, values[:g.contextAt]...)
	out = append(out, []string{name})
	return append(out, values[g.contextAt:]...)
}

// settle counts one target less waiting; g.mu is held.
func (g *Groups) settle() {
	g.waiting--
	if g.waiting == 0 {
		close(g.ready)
	}
}

// Ended records that target name's watch ended with err: a target that
// never seeded no longer holds the first draw back, and a failed one's
// objects are taken out of the table.
func (g *Groups) Ended(name string, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.seeded[name] {
		g.settle()
	} else if err == nil {
		return
	}
	delete(g.seeded, name)
	members := make([]string, 0, len(g.members[name]))
	for m := range g.members[name] {
		members = append(members, m)
	}
	delete(g.members, name)
	slices.Sort(members)
	var changes []aggregate.GroupChange
	for _, m := range members {
		changes = append(changes, g.live.Delete(m)...)
	}
	g.changes(netChanges(changes))
	_ = g.out.Flush()
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

// changes prints the changes as lines, once the table is printed, or
// says that it is to be printed again; g.mu is held.
func (g *Groups) changes(changes []aggregate.GroupChange) {
	if len(changes) == 0 {
		return
	}
	select {
	case <-g.drawn:
	default:
		return
	}
	if g.screen != nil || !g.cfg.Lines {
		select {
		case g.changed <- struct{}{}:
		default:
		}
		return
	}
	for _, c := range changes {
		g.out.WriteString(g.changeLine(c))
	}
}

// table is the table as it stands, shaped. Grouped by context alone, a
// seeded context with no object has a row of zeros, as in a query of
// several. Without measures it has no TOTAL row.
func (g *Groups) table() (aggregate.Table, error) {
	t := g.live.Table()
	if len(g.measures) == 0 {
		t.Total = nil
	}
	if g.contextAt >= 0 && len(g.cfg.Keys) == 1 {
		for _, name := range g.cfg.Contexts {
			if !g.seeded[name] || slices.ContainsFunc(t.Rows, func(r []aggregate.Value) bool { return r[0].Text() == name }) {
				continue
			}
			row := []aggregate.Value{aggregate.Text(name), aggregate.Count(0)}
			for range g.measures {
				row = append(row, aggregate.Quantity(resource.Quantity{}))
			}
			t.Rows = append(t.Rows, row)
		}
	}
	if g.cfg.Shape != nil {
		return t, g.cfg.Shape(&t, g.measures)
	}
	return t, nil
}

// Run runs watch, the watches that feed g, while g prints the table; it
// returns watch's error, else the print's.
func (g *Groups) Run(watch func() error) error {
	done := make(chan struct{})
	printed := make(chan error, 1)
	go func() { printed <- g.Print(done) }()
	err := watch()
	close(done)
	if printErr := <-printed; err == nil {
		err = printErr
	}
	return err
}

// Print prints the table once every target has seeded or ended, then
// follows its changes until done is closed (every target has ended).
func (g *Groups) Print(done <-chan struct{}) error {
	select {
	case <-g.ready:
	case <-done:
	}
	g.mu.Lock()
	if g.cfg.BeforeDraw != nil {
		g.cfg.BeforeDraw()
	}
	var err error
	lines := g.screen == nil && g.cfg.Lines
	if lines && len(g.seeded) > 0 {
		err = g.draw()
	}
	close(g.drawn)
	g.mu.Unlock()
	if err != nil {
		return err
	}
	if lines {
		<-done
		g.mu.Lock()
		defer g.mu.Unlock()
		return g.out.Flush()
	}
	return Follow(context.Background(), done, g.changed, g.screen, rowsInterval, func() error {
		g.mu.Lock()
		defer g.mu.Unlock()
		if len(g.seeded) == 0 {
			return nil
		}
		return g.draw()
	})
}
