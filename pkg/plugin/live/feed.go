package live

import (
	"context"
	"fmt"
	"io"
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/kubectl-informer/kubectl-informer/pkg/aggregate"
	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/object"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
	"github.com/kubectl-informer/kubectl-informer/pkg/usage"
)

// Feed is one target's part of a Groups: the target's objects that count,
// grouped by its own index definitions, measured with its own usage
// samples.
type Feed struct {
	g    *Groups
	name string
	keys []index.Definition
	// counts reports whether an object counts; nil: every object.
	counts func(t *engine.Type, obj interface{}) (bool, error)
	// measures are the table's bound to the target's usage samples
	// (bind); nil for the table's own.
	measures []aggregate.Measure
}

// Feed returns target name's part of g: keys are the index definitions
// of the target's own --group-by keys (without context), and counts, if
// set, says whether an object counts (named, in the query); its error
// ends the target's watch.
func (g *Groups) Feed(name string, keys []index.Definition, counts func(t *engine.Type, obj interface{}) (bool, error)) *Feed {
	return &Feed{g: g, name: name, keys: keys, counts: counts}
}

// set adds or replaces an object of the feed's target in the table, or
// takes it out when it does not count, and returns what happened to it
// in the table (engine.Added, Modified, Deleted; "" when it is in none)
// and the groups that changed; g.mu is held.
func (f *Feed) set(t *engine.Type, key string, obj interface{}) (engine.EventType, []aggregate.GroupChange, error) {
	g := f.g
	member := f.name + "\x00" + t.Name() + "/" + key
	had := g.members[f.name][member]
	counted := obj != nil
	if counted && f.counts != nil {
		var err error
		if counted, err = f.counts(t, obj); err != nil {
			return "", nil, err
		}
	}
	if !counted {
		delete(g.members[f.name], member)
		if !had {
			return "", g.live.Delete(member), nil
		}
		return engine.Deleted, g.live.Delete(member), nil
	}
	values := make([][]string, len(f.keys))
	for i, def := range f.keys {
		values[i] = index.Values(def, obj)
	}
	measures := f.measures
	if measures == nil {
		measures = g.measures
	}
	changes, err := g.live.SetWith(member, obj, g.keyValues(f.name, values), measures)
	if err != nil {
		return "", nil, fmt.Errorf("--sum: %w", err)
	}
	if g.members[f.name] == nil {
		g.members[f.name] = map[string]bool{}
	}
	g.members[f.name][member] = true
	if had {
		return engine.Modified, changes, nil
	}
	return engine.Added, changes, nil
}

// setAll sets every cached object of types, and returns the groups that
// changed; g.mu is held.
func (f *Feed) setAll(types []*engine.Type) ([]aggregate.GroupChange, error) {
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
			_, c, err := f.set(t, key, obj)
			if err != nil {
				return nil, err
			}
			changes = append(changes, c...)
		}
	}
	return changes, nil
}

// Seed adds every cached object of types, synced, to the table, the
// target's usage samples read first (eo.ReadUsage) when a measure needs
// them; the first target to seed expands the table's glob measures
// against its objects. Then the target counts as seeded.
func (f *Feed) Seed(ctx context.Context, eo *engines.EngineOptions, types []*engine.Type, errOut io.Writer) error {
	if err := f.g.expandGlobs(types); err != nil {
		return err
	}
	if aggregate.NeedsUsage(f.g.measures) {
		pods, nodes := engines.UsageOf(mappings(types))
		s := eo.ReadUsage(ctx, errOut, pods, nodes)
		f.g.mu.Lock()
		err := f.bind(s)
		f.g.mu.Unlock()
		if err != nil {
			return err
		}
	}
	g := f.g
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, err := f.setAll(types); err != nil {
		return err
	}
	g.seeded[f.name] = true
	g.settle()
	return nil
}

// expandGlobs expands the table's glob measures (requests.nvidia.com/*)
// against the resources the cached pods of types request, the first time
// a target has synced: the table's columns are fixed from then on.
func (g *Groups) expandGlobs(types []*engine.Type) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !slices.ContainsFunc(g.measures, aggregate.Measure.IsGlob) {
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
	g.measures, _ = aggregate.ExpandGlobsOver(g.measures, objs)
	g.live = aggregate.NewLive(g.cfg.Keys, g.measures)
	return nil
}

// mappings are the REST mappings of types.
func mappings(types []*engine.Type) []*meta.RESTMapping {
	out := make([]*meta.RESTMapping, len(types))
	for i, t := range types {
		out[i] = t.Mapping
	}
	return out
}

// Follow applies the events of q to the table, once it is printed, and
// each new usage sample when a measure reads usage (followUsage), until
// ctx ends; it returns the first error.
func (f *Feed) Follow(ctx context.Context, eo *engines.EngineOptions, types []*engine.Type, q *engine.Queue, errOut io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	usageDone := make(chan error, 1)
	usageDone <- nil
	if aggregate.NeedsUsage(f.g.measures) {
		if poller, err := eo.UsagePoller(engines.UsageOf(mappings(types))); err != nil {
			fmt.Fprintf(errOut, "warning: reading usage: %v; the usage sums stay as they were\n", err)
		} else {
			<-usageDone
			go func() { usageDone <- f.followUsage(ctx, poller, types, errOut) }()
		}
	}
	err := f.follow(ctx, q)
	cancel()
	if usageErr := <-usageDone; err == nil {
		err = usageErr
	}
	return err
}

// follow applies the events of q to the table, once it is printed, until
// ctx ends.
func (f *Feed) follow(ctx context.Context, q *engine.Queue) error {
	g := f.g
	select {
	case <-g.drawn:
	case <-ctx.Done():
		return nil
	}
	for {
		ev, ok := q.Pop(ctx)
		if !ok {
			return nil
		}
		g.mu.Lock()
		typ, changes, err := f.set(ev.Resource, ev.Key, ev.New)
		if err != nil {
			g.mu.Unlock()
			return err
		}
		if typ != "" && g.screen != nil {
			g.screen.Count(typ)
		}
		g.changes(changes)
		if pending, _ := q.Stats(); pending == 0 && g.screen == nil {
			err = g.out.Flush()
		}
		g.mu.Unlock()
		if err != nil {
			return err
		}
	}
}

// followUsage keeps the feed's usage measures (--sum usage.cpu) on the
// target's latest metrics API sample until ctx ends: poller reads the API
// at its resolution, and each new sample re-measures every object of types,
// the groups it changed printed or redrawn as an event's are. A failed
// reading is said once per error on errOut; the sums keep the last sample.
// It returns once poller's Run has.
func (f *Feed) followUsage(ctx context.Context, poller *usage.Poller, types []*engine.Type, errOut io.Writer) error {
	var err error
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	usage.Follow(ctx, poller, func(s *usage.Snapshot) {
		if err == nil {
			if err = f.remeasure(s, types); err != nil {
				cancel()
			}
		}
	}, func(readErr error) {
		fmt.Fprintf(errOut, "warning: reading usage: %v; the usage sums stay as they were\n", readErr)
	})
	return err
}

// bind binds the feed's usage measures to s (nil when the metrics API
// could not be read); the table of one target takes them too, so that its
// usage cells are blank while s is nil. g.mu is held.
func (f *Feed) bind(s *usage.Snapshot) error {
	f.measures = aggregate.BindUsage(f.g.measures, s)
	if len(f.g.cfg.Contexts) == 1 {
		return f.g.live.Rebind(f.measures)
	}
	return nil
}

// remeasure binds the feed's usage measures to s and sets every object of
// types again, printing the groups that changed.
func (f *Feed) remeasure(s *usage.Snapshot, types []*engine.Type) error {
	g := f.g
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := f.bind(s); err != nil {
		return err
	}
	changes, err := f.setAll(types)
	if err != nil {
		return err
	}
	g.changes(netChanges(changes))
	if g.screen == nil {
		return g.out.Flush()
	}
	return nil
}
