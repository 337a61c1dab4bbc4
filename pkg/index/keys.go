package index

import (
	"fmt"
	"slices"

	"k8s.io/client-go/tools/cache"
)

// Keys returns the sorted storage keys of the objects in indexer that every selector selects (the
// selectors are ANDed); with no selector, every storage key. Each selector's index name must be
// registered in indexer, under the Func of its Definition.
//
// Keys reads the index, never the objects:
//   - Equals and In read the buckets of their values (IndexKeys), Exists the buckets of every
//     value of the index (ListIndexFuncValues, then IndexKeys), so they cost the size of the
//     buckets they read.
//   - NotEquals, NotIn and DoesNotExist read the same buckets as keys to exclude. With at least one
//     selector of the first kind, Keys only drops the excluded keys from the keys that selector
//     found. With none, it takes the complement against every storage key (ListKeys), which costs
//     time and memory linear in the number of cached objects.
//
// Each read of indexer is consistent by itself, but Keys makes several, so it does not see one
// snapshot: an object updated while Keys runs may be judged by its old or its new values. Callers
// that then read the objects with GetByKey must skip keys whose object is gone.
func Keys(indexer cache.Indexer, selectors []Selector) ([]string, error) {
	if len(selectors) == 0 {
		keys := indexer.ListKeys()
		slices.Sort(keys)
		return keys, nil
	}
	var (
		found    [][]string          // per positive selector, the keys it selects
		excluded map[string]struct{} // the keys some negative selector rejects
	)
	for _, sel := range selectors {
		// IndexKeys checks the name under the indexer's lock; GetIndexers
		// would return the indexers map unlocked, which an informer adding
		// indexes (the warm cache) writes at the same time.
		if _, err := indexer.IndexKeys(sel.Name, ""); err != nil {
			return nil, fmt.Errorf("selecting %s: index %q is not registered", sel, sel.Name)
		}
		var keys []string
		var err error
		switch sel.Operator {
		case Equals, In, NotEquals, NotIn:
			keys, err = bucketKeys(indexer, sel.Name, sel.Values)
		case Exists, DoesNotExist:
			keys, err = bucketKeys(indexer, sel.Name, indexer.ListIndexFuncValues(sel.Name))
		default:
			return nil, fmt.Errorf("selecting %s: unknown operator %q", sel, sel.Operator)
		}
		if err != nil {
			return nil, fmt.Errorf("selecting %s: %w", sel, err)
		}
		switch sel.Operator {
		case Equals, In, Exists:
			found = append(found, keys)
		default:
			if excluded == nil {
				excluded = make(map[string]struct{}, len(keys))
			}
			for _, k := range keys {
				excluded[k] = struct{}{}
			}
		}
	}

	var keys []string
	if len(found) == 0 {
		keys = indexer.ListKeys()
	} else {
		keys = intersect(found)
	}
	if len(excluded) > 0 {
		keys = slices.DeleteFunc(keys, func(k string) bool {
			_, ok := excluded[k]
			return ok
		})
	}
	slices.Sort(keys)
	return keys, nil
}

// bucketKeys returns the distinct storage keys of the objects that have any of values under the
// index indexName. The caller owns the slice: client-go's IndexKeys, like its ListKeys, builds a
// new one on each call.
func bucketKeys(indexer cache.Indexer, indexName string, values []string) ([]string, error) {
	if len(values) == 1 {
		return indexer.IndexKeys(indexName, values[0])
	}
	var keys []string
	seen := make(map[string]struct{})
	for _, v := range values {
		bucket, err := indexer.IndexKeys(indexName, v)
		if err != nil {
			return nil, err
		}
		for _, k := range bucket {
			if _, dup := seen[k]; !dup {
				seen[k] = struct{}{}
				keys = append(keys, k)
			}
		}
	}
	return keys, nil
}

// intersect returns the keys present in every one of sets, each a list of distinct keys. It starts
// from the smallest list, which it may reorder and reuse.
func intersect(sets [][]string) []string {
	slices.SortFunc(sets, func(a, b []string) int { return len(a) - len(b) })
	keys := sets[0]
	for _, other := range sets[1:] {
		if len(keys) == 0 {
			break
		}
		in := make(map[string]struct{}, len(other))
		for _, k := range other {
			in[k] = struct{}{}
		}
		keys = slices.DeleteFunc(keys, func(k string) bool {
			_, ok := in[k]
			return !ok
		})
	}
	return keys
}
