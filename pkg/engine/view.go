package engine

import (
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// view restricts a Type to the objects of some namespaces that a label
// selector selects: what the server would have sent an informer listing
// and watching those namespaces with that selector.
type view struct {
	// namespaces are the namespaces the view holds, sorted; nil for all.
	namespaces []string
	// selector selects the objects the view holds; nil for all.
	selector labels.Selector
}

// Restrict returns a view of t that holds only the objects of namespaces
// (all when empty; ignored for a cluster-scoped type) that selector selects
// (all when nil or empty), as if t's informers had listed and watched
// with those namespaces and that label selector: an informer of all
// namespaces and no label selector answers a narrower command.
//
// The view shares t's Mapping, Kind and Informers, and reads them live:
// Lookup, Count, Len and GetByKey see only the view's objects, and
// SendEvents sends only their events, turning an update that moves an
// object across the selector into the event a watch with the selector gets
// from the API server (see SendEvents). A namespace list reads the
// informers' namespace index rather than every object. Indexes added to t
// are the view's too. The view is not an engine's type: the engine reports
// watch errors and progress for t.
func (t *Type) Restrict(namespaces []string, selector labels.Selector) *Type {
	v := &view{}
	if len(namespaces) > 0 && t.Namespaced() {
		v.namespaces = slices.Sorted(slices.Values(namespaces))
		v.namespaces = slices.Compact(v.namespaces)
	}
	if selector != nil && !selector.Empty() {
		v.selector = selector
	}
	return &Type{Mapping: t.Mapping, Kind: t.Kind, Informers: t.Informers, view: v}
}

// holdsKey reports whether an object with storage key key may be in the
// view, by its namespace.
func (v *view) holdsKey(key string) bool {
	if v.namespaces == nil {
		return true
	}
	ns, _, err := toolscache.SplitMetaNamespaceKey(key)
	if err != nil {
		return false
	}
	_, found := slices.BinarySearch(v.namespaces, ns)
	return found
}

// selects reports whether the selector selects obj (always without one).
func (v *view) selects(obj interface{}) bool {
	if v.selector == nil {
		return true
	}
	a, err := meta.Accessor(obj)
	if err != nil {
		return false
	}
	return v.selector.Matches(labels.Set(a.GetLabels()))
}

// holds reports whether obj, cached under key, is in the view.
func (v *view) holds(key string, obj interface{}) bool {
	return v.holdsKey(key) && v.selects(obj)
}

// list returns the view's objects in indexer, reading the namespace index
// when the view has namespaces.
func (v *view) list(indexer toolscache.Indexer) ([]interface{}, error) {
	var objs []interface{}
	if v.namespaces == nil {
		objs = indexer.List()
	} else {
		for _, ns := range v.namespaces {
			inNamespace, err := indexer.ByIndex(toolscache.NamespaceIndex, ns)
			if err != nil {
				return nil, err
			}
			objs = append(objs, inNamespace...)
		}
	}
	if v.selector == nil {
		return objs, nil
	}
	return slices.DeleteFunc(objs, func(obj interface{}) bool { return !v.selects(obj) }), nil
}

// lookup returns the objects of indexer that selectors select (see
// index.Keys) and the view holds, in storage key order.
func (v *view) lookup(indexer toolscache.Indexer, selectors []index.Selector) ([]interface{}, error) {
	positive := slices.ContainsFunc(selectors, func(s index.Selector) bool {
		return s.Operator == index.Equals || s.Operator == index.In || s.Operator == index.Exists
	})
	if !positive && v.namespaces != nil {
		// Only exclusions: start from the view's namespaces rather than
		// from every key.
		selectors = append(slices.Clip(selectors), index.Selector{Name: toolscache.NamespaceIndex, Operator: index.In, Values: v.namespaces})
	}
	keys, err := index.Keys(indexer, selectors)
	if err != nil {
		return nil, err
	}
	var objs []interface{}
	for _, k := range keys {
		if !v.holdsKey(k) {
			continue
		}
		obj, exists, err := indexer.GetByKey(k)
		if err != nil {
			return nil, err
		}
		if exists && v.selects(obj) {
			objs = append(objs, obj)
		}
	}
	return objs, nil
}

// count returns how many of keys, storage keys of indexer, the view holds.
func (v *view) count(indexer toolscache.Indexer, keys []string) int {
	n := 0
	for _, k := range keys {
		if !v.holdsKey(k) {
			continue
		}
		if v.selector != nil {
			obj, exists, err := indexer.GetByKey(k)
			if err != nil || !exists || !v.selects(obj) {
				continue
			}
		}
		n++
	}
	return n
}

// len returns the number of the view's objects in indexer.
func (v *view) len(indexer toolscache.Indexer) int {
	if v.selector == nil {
		if v.namespaces == nil {
			return len(indexer.ListKeys())
		}
		n := 0
		for _, ns := range v.namespaces {
			keys, err := indexer.IndexKeys(toolscache.NamespaceIndex, ns)
			if err == nil {
				n += len(keys)
			}
		}
		return n
	}
	objs, err := v.list(indexer)
	if err != nil {
		return 0
	}
	return len(objs)
}

// events returns a push that sends on to push the events a watch of the
// view's namespaces with its selector would see, as the API server words
// them: an update that brings an object into the view is an Added event,
// one that takes it out a Deleted event whose object is the old state with
// the new resourceVersion (what kube-apiserver sends, from its watch cache
// or from etcd), and
// events of objects outside the view are dropped. The events name the
// view as their Resource.
func (v *view) events(t *Type, push func(*Event)) func(*Event) {
	return func(e *Event) {
		e.Resource = t
		switch e.Type {
		case Added:
			if v.holds(e.Key, e.New) {
				push(e)
			}
		case Deleted:
			if v.holds(e.Key, e.Old) {
				push(e)
			}
		case Modified:
			if e.Related != nil {
				if v.holds(e.Key, e.New) {
					push(e)
				}
				return
			}
			if !v.holdsKey(e.Key) {
				return
			}
			oldIn, newIn := v.selects(e.Old), v.selects(e.New)
			switch {
			case oldIn && newIn:
				push(e)
			case newIn:
				push(&Event{Type: Added, Resource: t, New: e.New, Key: e.Key})
			case oldIn:
				push(&Event{Type: Deleted, Resource: t, Old: withResourceVersionOf(e.Old, e.New), Key: e.Key})
			}
		}
	}
}

// withResourceVersionOf returns a copy of obj with the resourceVersion of
// other; obj itself, a cache's object, is not changed.
func withResourceVersionOf(obj, other interface{}) interface{} {
	ro, ok := obj.(runtime.Object)
	if !ok {
		return obj
	}
	o, err := meta.Accessor(other)
	if err != nil {
		return obj
	}
	cp := ro.DeepCopyObject()
	if a, err := meta.Accessor(cp); err == nil {
		a.SetResourceVersion(o.GetResourceVersion())
	}
	return cp
}
