package engine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/object"
)

// Lookup returns the cached objects of t (of its view, see Restrict) that
// every selector selects (the selectors are ANDed, see index.Keys), in the
// order the API server lists them: by storage key (see sortObjects). With
// no selectors it returns every cached object. Each selector's index name
// must have been registered through Config.Indexes.
func (t *Type) Lookup(selectors []index.Selector) ([]interface{}, error) {
	objs, err := t.LookupUnordered(selectors)
	if err != nil {
		return nil, err
	}
	sortObjects(objs)
	return objs, nil
}

// LookupUnordered is Lookup in no particular order, for callers that group,
// count or sum what it returns: sorting every object of a big type by key
// costs more than looking them up.
func (t *Type) LookupUnordered(selectors []index.Selector) ([]interface{}, error) {
	var objs []interface{}
	for i := range t.Informers {
		indexer := t.indexer(i)
		if t.view != nil {
			viewed, err := t.view.lookup(indexer, selectors)
			if err != nil {
				return nil, fmt.Errorf("looking up %s: %w", t.Name(), err)
			}
			objs = append(objs, viewed...)
			continue
		}
		if len(selectors) == 0 {
			objs = append(objs, indexer.List()...)
			continue
		}
		keys, err := index.Keys(indexer, selectors)
		if err != nil {
			return nil, fmt.Errorf("looking up %s: %w", t.Name(), err)
		}
		for _, k := range keys {
			obj, exists, err := indexer.GetByKey(k)
			if err != nil {
				return nil, fmt.Errorf("reading %s %q from the cache: %w", t.Name(), k, err)
			}
			if exists {
				objs = append(objs, obj)
			}
		}
	}
	return objs, nil
}

// Count returns, for the registered index indexName, each indexed value of t
// with the number of cached objects that have it.
func (t *Type) Count(indexName string) (map[string]int, error) {
	counts := map[string]int{}
	for i := range t.Informers {
		indexer := t.indexer(i)
		for _, value := range indexer.ListIndexFuncValues(indexName) {
			keys, err := indexer.IndexKeys(indexName, value)
			if err != nil {
				return nil, fmt.Errorf("counting index %q in %s: %w", indexName, t.Name(), err)
			}
			n := len(keys)
			if t.view != nil {
				n = t.view.count(indexer, keys)
			}
			if n > 0 {
				counts[value] += n
			}
		}
	}
	return counts, nil
}

// Len returns the number of objects in t's cache (in its view, see
// Restrict).
func (t *Type) Len() int {
	n := 0
	for _, informer := range t.Informers {
		if t.view != nil {
			n += t.view.len(informer.GetIndexer())
			continue
		}
		n += len(informer.GetIndexer().ListKeys())
	}
	return n
}

// sortObjects sorts objs by storage key (object.Key), compared as byte
// strings: the order in which the API server lists them, and so the order
// kubectl get prints them in (kubectl keeps the list order).
//
// The API server lists from etcd, a range read that returns keys in
// ascending byte order, or from its watch cache, a B-tree ordered by the
// same key (k8s.io/apiserver pkg/storage/cacher/store: a.Key < b.Key). That
// key is the resource's prefix followed by the storage key: prefix+ns+"/"+name
// for a namespaced object, prefix+name for a cluster-scoped one
// (k8s.io/apiserver pkg/storage: NamespaceKeyFunc, NoNamespaceKeyFunc). So
// namespace "team-a" lists before "team" ('-' is below '/'), and a
// cluster-scoped type lists by name.
//
// Storage keys are unique within a type, so the sort need not be stable.
func sortObjects(objs []interface{}) {
	type keyed struct {
		key string
		obj interface{}
	}
	ks := make([]keyed, len(objs))
	for i, obj := range objs {
		key, _ := object.Key(obj)
		ks[i] = keyed{key: key, obj: obj}
	}
	slices.SortFunc(ks, func(a, b keyed) int { return strings.Compare(a.key, b.key) })
	for i := range ks {
		objs[i] = ks[i].obj
	}
}

// GetByKey returns the cached object of t whose storage key is key
// ("namespace/name", or "name" for a cluster-scoped type), as an informer's
// indexer does.
func (t *Type) GetByKey(key string) (obj interface{}, exists bool, err error) {
	if t.view != nil && !t.view.holdsKey(key) {
		return nil, false, nil
	}
	for _, informer := range t.Informers {
		if obj, exists, err = informer.GetIndexer().GetByKey(key); err != nil || exists {
			if exists && t.view != nil && !t.view.selects(obj) {
				return nil, false, nil
			}
			return obj, exists, err
		}
	}
	return nil, false, nil
}
