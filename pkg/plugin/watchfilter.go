package plugin

import (
	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/kubectl-informer/kubectl-informer/pkg/cache"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// This file decides which events a watch prints, and as what.

// classify decides whether ev is printed and as what: events of the initial
// list only with --initial, objects by name when names were given, and with
// --where an update that enters or leaves the query as ADDED or DELETED.
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
	if len(p.cfg.where) > 0 {
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

// matches reports whether obj is in the --where query.
func (c watchPrintConfig) matches(obj interface{}) bool {
	if obj == nil {
		return false
	}
	for _, w := range c.where {
		if !w.sel.Matches(index.Values(w.def, obj)) {
			return false
		}
	}
	return true
}
