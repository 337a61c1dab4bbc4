package index

import (
	"fmt"

	"k8s.io/client-go/tools/cache"
)

// RelationIndexer is an informer's indexer whose relation indexes are answered by a RelationIndex: the
// index names RelationIndex holds are read from it, every other name and every object from Indexer. It
// is what Keys and the counts of a type read. Index, with a RelationIndex's index name, is not supported.
type RelationIndexer struct {
	cache.Indexer
	Relations *RelationIndex
}

// GetIndexers returns Indexer's index functions and those of Relations' Definitions.
func (x RelationIndexer) GetIndexers() cache.Indexers {
	indexers := cache.Indexers{}
	for name, fn := range x.Indexer.GetIndexers() {
		indexers[name] = fn
	}
	for _, def := range x.Relations.Definitions() {
		indexers[def.Name] = def.Func
	}
	return indexers
}

// IndexKeys implements cache.Indexer.
func (x RelationIndexer) IndexKeys(indexName, indexedValue string) ([]string, error) {
	if x.Relations.Has(indexName) {
		return x.Relations.IndexKeys(indexName, indexedValue), nil
	}
	return x.Indexer.IndexKeys(indexName, indexedValue)
}

// ListIndexFuncValues implements cache.Indexer.
func (x RelationIndexer) ListIndexFuncValues(indexName string) []string {
	if x.Relations.Has(indexName) {
		return x.Relations.ListValues(indexName)
	}
	return x.Indexer.ListIndexFuncValues(indexName)
}

// ByIndex implements cache.Indexer; keys whose object has left the cache since are skipped.
func (x RelationIndexer) ByIndex(indexName, indexedValue string) ([]interface{}, error) {
	if !x.Relations.Has(indexName) {
		return x.Indexer.ByIndex(indexName, indexedValue)
	}
	keys := x.Relations.IndexKeys(indexName, indexedValue)
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
