package watch

import (
	"context"
	"time"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/printing"
)

// This file decides which events a watch prints, and as what.

// Classify decides whether ev is printed and as what: events of the initial
// list only with --initial, objects by name when names were given, and with
// --where or --filter an update that enters or leaves the query as ADDED or
// DELETED.
func (p *EventPrinter) Classify(ev *engine.Event) (rendered, bool) {
	if ev.Initial && !p.Cfg.Initial {
		return rendered{}, false
	}
	if !named(p.names, ev.Resource, ev.Object()) {
		return rendered{}, false
	}
	r := rendered{ev: ev, Typ: ev.Type}
	if ev.Related == nil && len(p.Cfg.Where) == 0 && p.Cfg.Filter == nil {
		return r, true
	}
	// A related object's change (a Modified event) is news only when the
	// object enters or leaves the query.
	oldIn, newIn := p.Cfg.matchesWith(ev.Old, ev.Related, false), p.Cfg.matchesWith(ev.New, ev.Related, true)
	cause := ""
	if ev.Related != nil {
		cause = ": " + ev.Cause + " changed"
	}
	switch {
	case ev.Related == nil && (ev.Type == engine.Added && newIn || ev.Type == engine.Deleted && oldIn || ev.Type == engine.Modified && oldIn && newIn):
	case ev.Type == engine.Modified && newIn && !oldIn:
		r.Typ, r.note = engine.Added, "entered query"+cause
	case ev.Type == engine.Modified && oldIn && !newIn:
		r.Typ, r.note = engine.Deleted, "left query"+cause
	default:
		return rendered{}, false
	}
	return r, true
}

// WhereClause is one --where selector, with the index it names.
type WhereClause struct {
	Sel index.Selector
	Def index.Definition
}

// Matches reports whether obj is in the query of --where and --filter; the
// filter is evaluated at the time of the call.
func (c WatchPrintConfig) Matches(obj interface{}) bool {
	return c.matchesWith(obj, nil, false)
}

// matchesWith is matches, with the values of the indexes in related taken from
// there instead of computed: their New values when current, else their Old
// ones. It judges an object before and after a related object's change.
func (c WatchPrintConfig) matchesWith(obj interface{}, related []index.Change, current bool) bool {
	if obj == nil {
		return false
	}
	for _, w := range c.Where {
		values, known := relatedValues(related, w.Def.Name, current)
		if !known {
			values = index.Values(w.Def, obj)
		}
		if !w.Sel.Matches(values) {
			return false
		}
	}
	return c.Filter == nil || c.Filter.Match(context.Background(), obj, time.Now())
}

// relatedValues returns the Old or (current) New values of index name in
// related, and whether related has it.
func relatedValues(related []index.Change, name string, current bool) ([]string, bool) {
	for _, c := range related {
		if c.Index == name {
			if current {
				return c.New, true
			}
			return c.Old, true
		}
	}
	return nil, false
}

// inWatch reports whether obj, of type t, is one the watch prints: named,
// when names were given, and in the query of --where and --filter.
func (p *EventPrinter) inWatch(t *engine.Type, obj interface{}) bool {
	return named(p.names, t, obj) && p.Cfg.Matches(obj)
}

// named reports whether obj, of type t, is one of the objects names names
// per resource: any object of a type none of whose names were given.
func named(names map[string]map[string]bool, t *engine.Type, obj interface{}) bool {
	set := names[t.Name()]
	return len(set) == 0 || set[printing.ObjectName(obj)]
}
