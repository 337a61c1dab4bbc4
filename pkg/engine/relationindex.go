package engine

import (
	"context"
	"fmt"
	"sync"
	"time"

	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// handler is an event handler registered on an informer, which its user removes when done so
// that a shared informer does not keep it.
type handler struct {
	informer     toolscache.SharedIndexInformer
	registration toolscache.ResourceEventHandlerRegistration
}

// remove removes the handler from its informer.
func (h handler) remove() {
	if err := h.informer.RemoveEventHandler(h.registration); err != nil {
		klog.V(1).InfoS("removing an event handler", "err", err)
	}
}

// withRelations returns a Type that reads t's informers as t does (through t's view, see
// Restrict) and answers defs, bound relation indexes (see index.Bind), from one
// index.RelationIndex per informer, filled from what the informers hold now; its Lookup and
// Count read them like any other index. t itself is not changed: several users of one shared
// informer each hold their own relation indexes. They are not registered in the informers'
// indexers, whose IndexFuncs must depend on the object alone (see index.RelationIndex for why).
//
// With follow, each change of t's objects refreshes the object's values from then on, on the
// informer's handler goroutine, and refreshRelations can follow changes of the related objects:
// for a long-running user such as watch. Without it the values are those of the time of the
// call, which is what a one-shot query needs. Call it after t has synced; with follow it
// returns once the handlers have seen every cached object, or when ctx ends. The handlers it
// registered are returned, also with an error, for the caller to remove.
func (t *Type) withRelations(ctx context.Context, follow bool, defs ...index.Definition) (*Type, []handler, error) {
	if len(defs) == 0 {
		return t, nil, nil
	}
	relations := make([]*index.RelationIndex, len(t.Informers))
	var handlers []handler
	for i, informer := range t.Informers {
		indexer := informer.GetIndexer()
		ri := index.NewRelationIndex(indexer, defs...)
		for _, key := range t.viewKeys(indexer) {
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
			return nil, handlers, fmt.Errorf("following the relation indexes of %s: %w", t.Name(), err)
		}
		handlers = append(handlers, handler{informer: informer, registration: registration})
	}
	// The handlers first replay every cached object as added; wait for that, so that the values
	// are those of the caches' state at return, whatever changed since the first Refresh.
	for _, h := range handlers {
		for !h.registration.HasSynced() {
			select {
			case <-ctx.Done():
				return nil, handlers, ctx.Err()
			case <-time.After(5 * time.Millisecond):
			}
		}
	}
	return &Type{Mapping: t.Mapping, Kind: t.Kind, Informers: t.Informers, view: t.view, relations: relations}, handlers, nil
}

// viewKeys returns the storage keys of indexer that t may hold: every key, or for a view of some
// namespaces (see Restrict) the keys of those namespaces, read from the namespace index. A view
// of a shared informer of all namespaces computes the relation values of its own objects, not of
// every object the informer holds; its lookups never return the others.
func (t *Type) viewKeys(indexer toolscache.Indexer) []string {
	if t.view == nil || t.view.namespaces == nil {
		return indexer.ListKeys()
	}
	var keys []string
	for _, ns := range t.view.namespaces {
		inNamespace, err := indexer.IndexKeys(toolscache.NamespaceIndex, ns)
		if err != nil {
			return indexer.ListKeys()
		}
		keys = append(keys, inNamespace...)
	}
	return keys
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

// refreshRelations recomputes the values of the relation indexes of relation rel for the
// objects that have value under the registered index indexName (the pods of a node: "node", its
// name), and returns those whose values changed and that are still cached. Call it after the
// related object changed in its own cache, from one goroutine per related type (its informer's
// handler), so that the last refresh of a key reads the related object's last state. A type
// without relation indexes has no changes.
func (t *Type) refreshRelations(rel index.Relation, indexName, value string) ([]RelationChange, error) {
	if t.relations == nil {
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
			changes := t.relations[i].Refresh(key, rel)
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
// relation indexes of withRelations.
func (t *Type) indexer(i int) toolscache.Indexer {
	indexer := t.Informers[i].GetIndexer()
	if t.relations != nil {
		return index.RelationIndexer{Indexer: indexer, Relations: t.relations[i]}
	}
	return indexer
}

// indexesMu serialises adding indexes to running informers, and reading which indexes they
// have: client-go's indexer hands out its index functions unguarded while AddIndexers writes
// them. Adding an index is rare (once per command and index), so one lock for the process is
// enough.
var indexesMu sync.Mutex

// AddIndexes registers defs on t's informers; it may be called after Start. client-go indexes
// the objects already cached at once, under the informer's lock, then every later change. An
// index name t already has is an error. It is safe for concurrent use with AddIndexes and
// EnsureIndexes on any type, views and other users of the same informers included.
func (t *Type) AddIndexes(defs ...index.Definition) error {
	indexesMu.Lock()
	defer indexesMu.Unlock()
	indexers := toolscache.Indexers{}
	for _, def := range defs {
		indexers[def.Name] = def.Func
	}
	for _, informer := range t.Informers {
		if err := informer.AddIndexers(indexers); err != nil {
			return fmt.Errorf("adding indexes to %s: %w", t.Name(), err)
		}
	}
	return nil
}

// EnsureIndexes registers on t's informers those of defs they do not have yet, by index name,
// as AddIndexes does; a name an informer has already is kept as it is. It is how the relations
// add the indexes they find objects by (node, owner-uid) to informers other users may share, and
// is safe for concurrent use like AddIndexes.
func (t *Type) EnsureIndexes(defs ...index.Definition) error {
	indexesMu.Lock()
	defer indexesMu.Unlock()
	for _, informer := range t.Informers {
		has := informer.GetIndexer().GetIndexers()
		missing := toolscache.Indexers{}
		for _, def := range defs {
			if _, ok := has[def.Name]; !ok {
				missing[def.Name] = def.Func
			}
		}
		if len(missing) == 0 {
			continue
		}
		if err := informer.AddIndexers(missing); err != nil {
			return fmt.Errorf("adding indexes to %s: %w", t.Name(), err)
		}
	}
	return nil
}
