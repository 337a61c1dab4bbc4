package index

import (
	"fmt"

	"k8s.io/client-go/tools/cache"
)

// JoinedIndexer is an informer's indexer whose relationship indexes are answered by a Join: the
// index names Join holds are read from it, every other name and every object from Indexer. It
// is what Keys and the counts of a type read. Index, with a Join's index name, is not supported.
type JoinedIndexer struct {
	cache.Indexer
	Join *Join
}

// GetIndexers returns Indexer's index functions and those of Join's Definitions.
func (x JoinedIndexer) GetIndexers() cache.Indexers {
	indexers := cache.Indexers{}
	for name, fn := range x.Indexer.GetIndexers() {
		indexers[name] = fn
	}
	for _, def := range x.Join.Definitions() {
		indexers[def.Name] = def.Func
	}
	return indexers
}

// IndexKeys implements cache.Indexer.
func (x JoinedIndexer) IndexKeys(indexName, indexedValue string) ([]string, error) {
	if x.Join.Has(indexName) {
		return x.Join.IndexKeys(indexName, indexedValue), nil
	}
	return x.Indexer.IndexKeys(indexName, indexedValue)
}

// ListIndexFuncValues implements cache.Indexer.
func (x JoinedIndexer) ListIndexFuncValues(indexName string) []string {
	if x.Join.Has(indexName) {
		return x.Join.ListValues(indexName)
	}
	return x.Indexer.ListIndexFuncValues(indexName)
}

// ByIndex implements cache.Indexer; keys whose object has left the cache since are skipped.
func (x JoinedIndexer) ByIndex(indexName, indexedValue string) ([]interface{}, error) {
	if !x.Join.Has(indexName) {
		return x.Indexer.ByIndex(indexName, indexedValue)
	}
	keys := x.Join.IndexKeys(indexName, indexedValue)
	objs := make([]interface{}, 0, len(keys))
	for _, k := range keys {
		obj, exists, err := x.Indexer.GetByKey(k)
		if err != nil {
			return nil, fmt.Errorf("reading %q: %w", k, err)
		}
		if exists {
			objs = append(objs, obj)
		}
	}
	return objs, nil
}
