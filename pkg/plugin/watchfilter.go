package plugin

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/kubectl-informer/kubectl-informer/pkg/cache"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// This file decides which events a watch prints, and as what.

// classify decides whether ev is printed and as what: events of the initial
// list only with --initial, objects by name when names were given, and with
// --where or --filter an update that enters or leaves the query as ADDED or
// DELETED.
func (p *eventPrinter) classify(ev *cache.Event) (rendered, bool) {
	if ev.Initial && !p.cfg.initial {
		return rendered{}, false
	}
	if set := p.names[ev.Resource.Name()]; len(set) > 0 {
		if a, err := meta.Accessor(ev.Object()); err != nil || !set[a.GetName()] {
			return rendered{}, false
		}
	}
	r := rendered{ev: ev, typ: ev.Type}
	if len(p.cfg.where) > 0 || p.cfg.filter != nil {
		oldIn, newIn := p.cfg.matches(ev.Old), p.cfg.matches(ev.New)
		switch {
		case ev.Type == cache.Added && newIn, ev.Type == cache.Deleted && oldIn:
		case ev.Type == cache.Modified && oldIn && newIn:
		case ev.Type == cache.Modified && newIn:
			r.typ, r.note = cache.Added, "entered query"
		case ev.Type == cache.Modified && oldIn:
			r.typ, r.note = cache.Deleted, "left query"
		default:
			return rendered{}, false
		}
	}
	return r, true
}

// whereClause is one --where selector, with the index it names.
type whereClause struct {
	sel index.Selector
	def index.Definition
}

// matches reports whether obj is in the query of --where and --filter; the
// filter is evaluated at the time of the call.
func (c watchPrintConfig) matches(obj interface{}) bool {
	if obj == nil {
		return false
	}
	for _, w := range c.where {
		if !w.sel.Matches(index.Values(w.def, obj)) {
			return false
		}
	}
	return c.filter == nil || c.filter.Match(context.Background(), obj, time.Now())
}

// inWatch reports whether obj, of type t, is one the watch prints: named,
// when names were given, and in the query of --where and --filter.
func (p *eventPrinter) inWatch(t *cache.Type, obj interface{}) bool {
	if set := p.names[t.Name()]; len(set) > 0 && !set[objectName(obj)] {
		return false
	}
	return p.cfg.matches(obj)
}
