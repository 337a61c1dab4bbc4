package engine

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// This file holds the join of Kubernetes Events (the Event objects of the API, not the cache's
// watch events of Event) onto the objects they are about, for the event relation indexes
// (event.reason, event.type, event.message) and the events column of query.

// eventAPIs are the Event kinds the event relations read, in order of preference. Both APIs
// serve the same stored events (an Event written through one is listed by the other), so the
// relations read one: core/v1, which every API server serves and which `kubectl get events` and
// `kubectl describe` read, and events.k8s.io/v1 only when core/v1 cannot be read (a dump or
// recording that holds only events.k8s.io Events). Reading both would count each event twice.
var eventAPIs = []schema.GroupKind{{Kind: "Event"}, {Group: "events.k8s.io", Kind: "Event"}}

// eventAPIVersions are the versions of eventAPIs read.
var eventAPIVersions = []string{"v1", "v1"}

// startEvents caches the Events the event relation indexes read, whole, for types: those of
// cfg.Namespaces when every type is namespaced (an object's events are in its namespace), of every
// namespace when one is cluster-scoped (a node's events are in "default"). It tries the APIs of
// eventAPIs in order and keeps the first it can read; when none can be read, the relations have
// no values and Unreadable says why. It registers the indexes EventIndexer reads.
func (r *Relations) startEvents(ctx context.Context, types []*Type, cfg RelationsConfig) (index.KubeEvents, error) {
	namespaces := cfg.Namespaces
	for _, t := range types {
		if !t.Namespaced() {
			namespaces = nil
		}
	}
	var tried []UnreadableType
	for i, gk := range eventAPIs {
		mapping, err := cfg.Related.RESTMapper().RESTMapping(gk, eventAPIVersions[i])
		if err != nil {
			tried = append(tried, UnreadableType{Name: gk.String(), Unresolved: true, Err: err})
			continue
		}
		each, err := cfg.Related.Start(ctx, []*meta.RESTMapping{mapping}, Config{Namespaces: namespaces, SyncTimeout: cfg.SyncTimeout, FullObjects: true})
		if err != nil {
			each.Shutdown()
			return nil, err
		}
		if len(each.Types) == 0 {
			tried = append(tried, each.Unreadable...)
			each.Shutdown()
			continue
		}
		r.events = each
		t := each.Types[0]
		if err := t.EnsureIndexes(index.EventRegardingIndexes()...); err != nil {
			return nil, fmt.Errorf("indexing events: %w", err)
		}
		var indexers []toolscache.Indexer
		for _, informer := range t.Informers {
			indexers = append(indexers, informer.GetIndexer())
		}
		r.eventsIndex = index.EventIndexer{Indexers: indexers}
		return r.eventsIndex, nil
	}
	// Only the last API tried is reported: the first could not be read either, for the reason
	// the last gives in most clusters (both are refused by the same RBAC rule).
	if len(tried) > 0 {
		r.unreadable = append(r.unreadable, UnreadableRelation{Relation: index.EventRelation, UnreadableType: tried[len(tried)-1]})
	}
	return nil, nil
}

// Events returns the cached Events the event relation indexes read (see index.KubeEvents), for
// the events column of a table; nil when the relations read none (no event relation index and
// RelationsConfig.Events unset) or none could be read.
func (r *Relations) Events() index.KubeEvents {
	if r == nil || r.eventsIndex == nil {
		return nil
	}
	return r.eventsIndex
}

// followEvents makes the event relation values of r's types follow the Events: when an Event is
// added, deleted (the API server deletes it after its --event-ttl) or updated (a series or count
// incremented), the values of the object it is about, and only those, are recomputed (by the
// object's storage key, in each of r's types), and onRelated gets the objects whose values
// changed, with "event/NAME" as the cause.
//
// It runs on the Events informer's handler goroutine, one event at a time, after the Events cache
// holds the change, as followNodes does. Registering the handler replays every cached Event as
// added; followEvents returns once that replay is done (or ctx ends), so the causes given to
// onRelated from then on are Events that changed after it returned.
func (r *Relations) followEvents(ctx context.Context, events *Type) error {
	refresh := func(obj interface{}) {
		key, ok := index.RegardingKey(obj)
		if !ok {
			return
		}
		m, err := meta.Accessor(index.Unwrap(obj))
		if err != nil {
			return
		}
		cause := "event/" + m.GetName()
		for i, t := range r.types {
			if changes := t.refreshRelationKey(index.EventRelation, key); len(changes) > 0 {
				r.onRelated(r.given[i], cause, changes)
			}
		}
	}
	registered := len(r.handlers)
	err := r.addHandlers(events, toolscache.ResourceEventHandlerFuncs{
		AddFunc: refresh,
		UpdateFunc: func(oldObj, newObj interface{}) {
			if sameResourceVersion(oldObj, newObj) {
				return
			}
			oldKey, _ := index.RegardingKey(oldObj)
			if newKey, _ := index.RegardingKey(newObj); oldKey != newKey {
				refresh(oldObj)
			}
			refresh(newObj)
		},
		DeleteFunc: refresh,
	})
	if err != nil {
		return err
	}
	for _, h := range r.handlers[registered:] {
		for !h.registration.HasSynced() {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(5 * time.Millisecond):
			}
		}
	}
	return nil
}

// refreshRelationKey recomputes the values of the relation indexes of relation rel of the object
// of storage key key, and returns how they changed if the object is still cached (and in t's
// view); none when t has no relation indexes or does not hold key. Call it as refreshRelations.
func (t *Type) refreshRelationKey(rel index.Relation, key string) []RelationChange {
	if t.relations == nil || (t.view != nil && !t.view.holdsKey(key)) {
		return nil
	}
	var out []RelationChange
	for i, informer := range t.Informers {
		changes := t.relations[i].Refresh(key, rel)
		if len(changes) == 0 {
			continue
		}
		if obj, exists, err := informer.GetIndexer().GetByKey(key); err == nil && exists && (t.view == nil || t.view.selects(obj)) {
			out = append(out, RelationChange{Key: key, Object: obj, Changes: changes})
		}
	}
	return out
}
