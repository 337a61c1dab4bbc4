package server

import (
	"fmt"

	toolscache "k8s.io/client-go/tools/cache"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// This file holds how the pool serves --indexer (custom) indexes. Commands
// name them as they like: two commands may define "img" differently, and
// one expression may be "img" to one command and "image-of" to another. An
// informer holds one function per index name, so a custom index is
// registered under a name that identifies its definition
// (index.SharedName: "custom:jsonpath:{.spec.containers[*].image}"), once
// per entry however many commands define it, and each lease reads it under
// its command's name (index.RenamedIndexer).
//
// Why registered rather than computed per command (an index.Join over the
// lease's objects, as relationship indexes are): evaluating an expression
// over every object is what a direct query pays on top of its list, and
// computed per command a warm query would pay it every time; registered,
// the first command pays it once and later ones read an index. The price
// is memory: an entry keeps every distinct expression's index until it is
// evicted.
//
// A computed (CEL) index's values depend on the object alone, except with
// the variable now: such an index is not shared (NotSharedError). What a
// command reports of a CEL index's evaluations (objects it failed on, CEL's
// cost limit) is the command's own: the shared index records which keys
// failed, and Acquire evaluates those objects again with the command's own
// Definition, whose guard then counts them as the command's own index
// would have.

// NotSharedError is Acquire's error for what the pool does not share: the
// command is to answer it itself.
type NotSharedError struct {
	Reason string
}

func (e *NotSharedError) Error() string { return e.Reason }

// checkShareable returns a NotSharedError for the first of defs the pool
// cannot share.
func checkShareable(defs []index.Definition) error {
	for _, def := range defs {
		if index.ReadsNow(def) {
			return &NotSharedError{Reason: fmt.Sprintf("--indexer %s reads now, so its values depend on when each object was indexed", def.Name)}
		}
	}
	return nil
}

// resolveIndexes returns the Definitions of defs that e has not registered
// yet, custom ones under their SharedName, with the shared indexes they
// add, and the shared index of each custom def by the command's name; e.mu
// must be held.
func (e *entry) resolveIndexes(defs []index.Definition) (missing []index.Definition, added, byName map[string]*index.Shared, err error) {
	added, byName = map[string]*index.Shared{}, map[string]*index.Shared{}
	for _, def := range defs {
		name, custom := index.SharedName(def)
		if !custom {
			if _, ok := e.indexes[def.Name]; !ok && !containsIndex(missing, def.Name) {
				missing = append(missing, def)
			}
			continue
		}
		s := e.shared[name]
		if s == nil {
			s = added[name]
		}
		if s == nil {
			if s, err = index.NewShared(def); err != nil {
				return nil, nil, nil, err
			}
			added[name] = s
			missing = append(missing, s.Definition)
		}
		byName[def.Name] = s
	}
	return missing, added, byName, nil
}

// registered records that e's informers have missing, and the shared
// indexes among them; e.mu must be held.
func (e *entry) registered(missing []index.Definition, added map[string]*index.Shared) {
	for _, def := range missing {
		e.indexes[def.Name] = struct{}{}
	}
	for name, s := range added {
		e.shared[name] = s
	}
}

func containsIndex(defs []index.Definition, name string) bool {
	for _, d := range defs {
		if d.Name == name {
			return true
		}
	}
	return false
}

// renamed returns t read under the command's names of its shared indexes:
// a type of the same informers, whose indexers translate names as
// index.RenamedIndexer does.
func renamed(t *engine.Type, shared map[string]*index.Shared) *engine.Type {
	names := make(map[string]string, len(shared))
	for name, s := range shared {
		names[name] = s.Definition.Name
	}
	informers := make([]toolscache.SharedIndexInformer, len(t.Informers))
	for i, informer := range t.Informers {
		informers[i] = renamedInformer{SharedIndexInformer: informer,
			indexer: index.RenamedIndexer{Indexer: informer.GetIndexer(), Names: names}}
	}
	return &engine.Type{Mapping: t.Mapping, Kind: t.Kind, Informers: informers}
}

// renamedInformer is a shared informer whose indexer is read under other
// index names.
type renamedInformer struct {
	toolscache.SharedIndexInformer
	indexer toolscache.Indexer
}

func (i renamedInformer) GetIndexer() toolscache.Indexer { return i.indexer }

// Unwrap returns the informer i reads (engine.UnwrapInformer).
func (i renamedInformer) Unwrap() toolscache.SharedIndexInformer { return i.SharedIndexInformer }

// replayFailures makes the guards of defs' computed indexes count what
// they would have counted had they indexed t's objects themselves: the
// objects t holds whose latest evaluation in the shared index failed are
// evaluated again, in storage key order (the order of a list), with the
// command's own Definition. It returns a NotSharedError when a shared index
// hit CEL's cost limit: it holds no values since, and the command is to
// meet the limit itself.
func replayFailures(t *engine.Type, defs []index.Definition, shared map[string]*index.Shared) error {
	for _, def := range defs {
		s := shared[def.Name]
		if s == nil || def.Expr == nil {
			continue
		}
		if s.Broken() {
			return &NotSharedError{Reason: fmt.Sprintf("--indexer %s exceeded CEL's cost limit in the warm cache", def.Name)}
		}
		for _, key := range s.FailingKeys() {
			obj, exists, err := t.GetByKey(key)
			if err != nil || !exists {
				continue
			}
			_ = index.Values(def, obj)
		}
	}
	return nil
}
