package server

import (
	"sort"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/watch"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
)

// This file holds what a rolling recording records of the pool: each type
// once, from the pool's synced entry of that type with the widest view
// (all namespaces, no label or field selector) when there is one — of
// those, the one that keeps the most of managedFields — and otherwise from
// every synced entry of the type, the union of what they hold.

// recSource is one pool entry's informers as the recorder reads them.
type recSource struct {
	// id is what makes two plans' sources the same: the pool's entry.
	id       interface{}
	resource string // the GroupVersionResource, as a string
	mapping  *meta.RESTMapping
	// list returns the objects the source holds now.
	list func() []interface{}
	// subscribe registers push for the source's later events (not its
	// initial list) and returns what removes it.
	subscribe func(push func(watch.EventType, interface{})) (remove func(), err error)
}

// recType is one recorded type and the sources it is recorded from.
type recType struct {
	mapping *meta.RESTMapping
	sources []*recSource
}

// samePlan reports whether a and b record the same types from the same
// sources.
func samePlan(a, b []recType) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].mapping.Resource != b[i].mapping.Resource || len(a[i].sources) != len(b[i].sources) {
			return false
		}
		for j := range a[i].sources {
			if a[i].sources[j].id != b[i].sources[j].id {
				return false
			}
		}
	}
	return true
}

// managedFieldsRank orders managedFields modes by how much of them an
// entry keeps.
var managedFieldsRank = map[engine.ManagedFields]int{
	engine.DropManagedFields:      0,
	engine.SummarizeManagedFields: 1,
	engine.InternManagedFields:    2,
	engine.KeepManagedFields:      3,
}

// recordPlan returns what a rolling recording of the pool records now,
// sorted by resource; see the file comment.
func (p *Pool) recordPlan() []recType {
	p.mu.Lock()
	byResource := map[string][]*entry{}
	for _, e := range p.entries {
		if e.removed || !e.synced() {
			continue
		}
		byResource[e.key.resource] = append(byResource[e.key.resource], e)
	}
	p.mu.Unlock()
	var plan []recType
	for _, entries := range byResource {
		sort.Slice(entries, func(i, j int) bool { return entryOrder(entries[i].key, entries[j].key) })
		var wide *entry
		for _, e := range entries {
			if e.key.namespaces == "" && e.key.labelSelector == "" && e.key.fieldSelector == "" &&
				(wide == nil || managedFieldsRank[e.key.managedFields] > managedFieldsRank[wide.key.managedFields]) {
				wide = e
			}
		}
		if wide != nil {
			entries = []*entry{wide}
		}
		rt := recType{}
		for _, e := range entries {
			src := entrySource(e)
			rt.mapping = src.mapping
			rt.sources = append(rt.sources, src)
		}
		plan = append(plan, rt)
	}
	sort.Slice(plan, func(i, j int) bool {
		return plan[i].mapping.Resource.String() < plan[j].mapping.Resource.String()
	})
	return plan
}

// entryOrder is a fixed order of entry keys.
func entryOrder(a, b entryKey) bool {
	if a.namespaces != b.namespaces {
		return a.namespaces < b.namespaces
	}
	if a.labelSelector != b.labelSelector {
		return a.labelSelector < b.labelSelector
	}
	if a.fieldSelector != b.fieldSelector {
		return a.fieldSelector < b.fieldSelector
	}
	if a.managedFields != b.managedFields {
		return a.managedFields > b.managedFields
	}
	return !a.requireWatch && b.requireWatch
}

// entrySource returns the recorder's source of e's informers.
func entrySource(e *entry) *recSource {
	t := e.eng.Types()[0]
	return &recSource{
		id:       e,
		resource: t.Mapping.Resource.String(),
		mapping:  t.Mapping,
		list: func() []interface{} {
			var objs []interface{}
			for _, informer := range t.Informers {
				objs = append(objs, informer.GetStore().List()...)
			}
			return objs
		},
		subscribe: func(push func(watch.EventType, interface{})) (func(), error) {
			return subscribeType(t, push)
		},
	}
}

// subscribeType registers push on t's informers for every event after
// their initial list: client-go hands a handler added to a running
// informer its cached objects as initial adds, which the recorder does
// not need, since it lists the informers when it starts a segment.
func subscribeType(t *engine.Type, push func(watch.EventType, interface{})) (func(), error) {
	var regs []toolscache.ResourceEventHandlerRegistration
	remove := func() {
		for i, reg := range regs {
			_ = t.Informers[i].RemoveEventHandler(reg)
		}
	}
	for _, informer := range t.Informers {
		reg, err := informer.AddEventHandler(toolscache.ResourceEventHandlerDetailedFuncs{
			AddFunc: func(obj interface{}, isInInitialList bool) {
				if !isInInitialList {
					push(watch.Added, obj)
				}
			},
			UpdateFunc: func(oldObj, newObj interface{}) { push(watch.Modified, newObj) },
			DeleteFunc: func(obj interface{}) { push(watch.Deleted, obj) },
		})
		if err != nil {
			remove()
			return nil, err
		}
		regs = append(regs, reg)
	}
	return remove, nil
}
