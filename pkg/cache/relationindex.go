package cache

import (
	"context"
	"fmt"
	"time"

	toolscache "k8s.io/client-go/tools/cache"

	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// AddRelations holds defs, bound relation indexes (see index.Bind), for t in one index.RelationIndex per
// informer, filled from what the informers hold now; Lookup and Count read them like any other
// index. They are not registered in the informers' indexers, whose IndexFuncs must depend on the
// object alone (see index.RelationIndex for why).
//
// With follow, each of t's own changes refreshes the object's values from then on, on the
// informer's handler goroutine, and RefreshRelations can follow changes of the related objects: for
// a long-running user such as watch. Without it the values are those of the time of the call,
// which is what a one-shot query needs. Call AddRelations once, after t has synced and before any
// Lookup of defs; with follow it returns once the handlers have seen every cached object, or
// when ctx ends.
func (t *Type) AddRelations(ctx context.Context, follow bool, defs ...index.Definition) error {
	if len(defs) == 0 {
		return nil
	}
	relations := make([]*index.RelationIndex, len(t.Informers))
	var registrations []toolscache.ResourceEventHandlerRegistration
	for i, informer := range t.Informers {
		indexer := informer.GetIndexer()
		ri := index.NewRelationIndex(indexer, defs...)
		for _, key := range indexer.ListKeys() {
			ri.Refresh(key, index.NoRelation)
		}
		relations[i] = ri
		if !follow {
			continue
		}
		refresh := func(obj interface{}) {
			if key, err := toolscache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
				ri.Refresh(key, index.NoRelation)
			}
		}
		registration, err := informer.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
			AddFunc: refresh,
			UpdateFunc: func(oldObj, newObj interface{}) {
				if !sameResourceVersion(oldObj, newObj) {
					refresh(newObj)
				}
			},
			DeleteFunc: refresh,
		})
		if err != nil {
			return fmt.Errorf("following the relation indexes of %s: %w", t.Name(), err)
		}
		registrations = append(registrations, registration)
	}
	t.relations.Store(&relations)
	// The handlers first replay every cached object as added; wait for that, so that the values
	// are those of the caches' state at return, whatever changed since the first Refresh.
	for _, r := range registrations {
		for !r.HasSynced() {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(5 * time.Millisecond):
			}
		}
	}
	return nil
}

// HasIndex reports whether index name is registered in t's informers' indexers.
func (t *Type) HasIndex(name string) bool {
	if len(t.Informers) == 0 {
		return false
	}
	_, ok := t.Informers[0].GetIndexer().GetIndexers()[name]
	return ok
}

// RelationChange is how a change of a related object (a node) changed the relation index values
// of one of t's objects.
type RelationChange struct {
	// Key is the object's storage key.
	Key string
	// Object is the cache's object, read after the refresh: do not mutate it.
	Object interface{}
	// Changes are the indexes whose values changed, with their old and new values.
	Changes []index.Change
}

// RefreshRelations recomputes the values of the relation indexes of relation rel for the objects
// that have value under the registered index indexName (the pods of a node: "node", its name),
// and returns those whose values changed and that are still cached. Call it after the related
// object changed in its own cache, from one goroutine per related type (its informer's handler),
// so that the last refresh of a key reads the related object's last state. A type without relation indexes
// has no changes.
func (t *Type) RefreshRelations(rel index.Relation, indexName, value string) ([]RelationChange, error) {
	relations := t.relations.Load()
	if relations == nil {
		return nil, nil
	}
	var out []RelationChange
	for i, informer := range t.Informers {
		indexer := informer.GetIndexer()
		keys, err := indexer.IndexKeys(indexName, value)
		if err != nil {
			return nil, fmt.Errorf("finding the %s of %s %q: %w", t.Name(), indexName, value, err)
		}
		for _, key := range keys {
			if t.view != nil && !t.view.holdsKey(key) {
				continue
			}
			changes := (*relations)[i].Refresh(key, rel)
			if len(changes) == 0 {
				continue
			}
			if obj, exists, err := indexer.GetByKey(key); err == nil && exists && (t.view == nil || t.view.selects(obj)) {
				out = append(out, RelationChange{Key: key, Object: obj, Changes: changes})
			}
		}
	}
	return out, nil
}

// indexer returns the indexer of t's informer i as Lookup and Count read it: with the
// relation indexes of AddRelations.
func (t *Type) indexer(i int) toolscache.Indexer {
	indexer := t.Informers[i].GetIndexer()
	if relations := t.relations.Load(); relations != nil {
		return index.RelationIndexer{Indexer: indexer, Relations: (*relations)[i]}
	}
	return indexer
}
