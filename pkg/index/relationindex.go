package index

import (
	"slices"
	"sync"
)

// RelationIndex holds the values of relation indexes (Definitions with a Relation: owner-root,
// selected-by, selects, node.label:KEY, node.annotation:KEY) for the objects of one cache, by
// storage key, and the storage keys of each value.
//
// Why not client-go's indexer: client-go stores an object's keys under the values its IndexFunc
// returns, and when the object changes or leaves the cache it calls the IndexFunc again on the
// stored object to find the values to remove the key from. An IndexFunc that reads another cache
// (the pod's node) gives other values by then if that object changed (the node was relabelled),
// so the key stays behind under the old value, naming a pod that is no longer there or no longer
// has it. And client-go recomputes values only when the object itself changes; a key cannot be
// re-indexed from outside without writing the informer's store, which races the informer. A RelationIndex
// stores the values it computed, removes exactly those, and recomputes one key on demand (Refresh)
// from what the caches hold then.
//
// A RelationIndex is safe for concurrent use. Each Refresh reads the dependent's current object from its
// cache and the related caches, under the RelationIndex's lock, so calling Refresh for a key after every
// change of the object or of an object its values read leaves the values current.
type RelationIndex struct {
	store KeyGetter
	defs  []Definition

	mu      sync.RWMutex
	values  map[string]map[string][]string            // index name → storage key → values
	buckets map[string]map[string]map[string]struct{} // index name → value → storage keys
}

// Change is how one relation index's values of one object changed.
type Change struct {
	// Index is the index name, e.g. "node.label:topology.kubernetes.io/zone".
	Index string
	// Old and New are the values before and after; either may be empty.
	Old, New []string
}

// NewRelationIndex returns a RelationIndex of defs (bound relationship Definitions) over store, the dependents'
// cache, with no values: Refresh each key of store to fill it.
func NewRelationIndex(store KeyGetter, defs ...Definition) *RelationIndex {
	j := &RelationIndex{
		store:   store,
		defs:    defs,
		values:  make(map[string]map[string][]string, len(defs)),
		buckets: make(map[string]map[string]map[string]struct{}, len(defs)),
	}
	for _, def := range defs {
		j.values[def.Name] = map[string][]string{}
		j.buckets[def.Name] = map[string]map[string]struct{}{}
	}
	return j
}

// Definitions returns the Definitions j holds. The caller must not change the slice.
func (j *RelationIndex) Definitions() []Definition { return j.defs }

// Has reports whether j holds the index name.
func (j *RelationIndex) Has(name string) bool {
	_, ok := j.values[name]
	return ok
}

// Refresh recomputes the values of key, of the indexes whose Relation is rel (every index when
// rel is NoRelation), from the object store holds now; a key store does not hold has no values.
// It returns the indexes whose values changed, in the order of the Definitions.
func (j *RelationIndex) Refresh(key string, rel Relation) []Change {
	// The object is read under the lock: two Refreshes of one key, one from before a change of
	// the object and one from after, must not store the older read last.
	j.mu.Lock()
	defer j.mu.Unlock()
	obj, exists, err := j.store.GetByKey(key)
	if err != nil {
		exists = false
	}
	var changes []Change
	for _, def := range j.defs {
		if rel != NoRelation && def.Relation != rel {
			continue
		}
		var values []string
		if exists {
			values = distinct(Values(def, obj))
		}
		old := j.values[def.Name][key]
		if slices.Equal(old, values) {
			continue
		}
		j.set(def.Name, key, old, values)
		changes = append(changes, Change{Index: def.Name, Old: old, New: values})
	}
	return changes
}

// set moves key from the buckets of old to those of values under index name. j.mu is held.
func (j *RelationIndex) set(name, key string, old, values []string) {
	buckets := j.buckets[name]
	for _, v := range old {
		delete(buckets[v], key)
		if len(buckets[v]) == 0 {
			delete(buckets, v)
		}
	}
	for _, v := range values {
		if buckets[v] == nil {
			buckets[v] = map[string]struct{}{}
		}
		buckets[v][key] = struct{}{}
	}
	if len(values) == 0 {
		delete(j.values[name], key)
	} else {
		j.values[name][key] = values
	}
}

// Values returns the values of key under index name, as last computed. The caller must not
// change the slice.
func (j *RelationIndex) Values(name, key string) []string {
	j.mu.RLock()
	defer j.mu.RUnlock()
	return j.values[name][key]
}

// IndexKeys returns the storage keys that have value under index name, in no particular order;
// the caller owns the slice.
func (j *RelationIndex) IndexKeys(name, value string) []string {
	j.mu.RLock()
	defer j.mu.RUnlock()
	bucket := j.buckets[name][value]
	keys := make([]string, 0, len(bucket))
	for k := range bucket {
		keys = append(keys, k)
	}
	return keys
}

// ListValues returns the values under index name that at least one key has, in no particular
// order; the caller owns the slice.
func (j *RelationIndex) ListValues(name string) []string {
	j.mu.RLock()
	defer j.mu.RUnlock()
	buckets := j.buckets[name]
	values := make([]string, 0, len(buckets))
	for v := range buckets {
		values = append(values, v)
	}
	return values
}

// distinct returns values without repeats, in their first order; nil for none.
func distinct(values []string) []string {
	if len(values) < 2 {
		if len(values) == 0 {
			return nil
		}
		return values
	}
	out := make([]string, 0, len(values))
	for _, v := range values {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}
