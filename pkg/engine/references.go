package engine

import (
	"context"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// references are the related types of the reference indexes (uses, used-by): the
// ServiceAccounts and claims uses reads through, and the referrers used-by inverts.
type references struct {
	each *Each
	// byKind are the related types by kind.
	byKind map[string]*Type
	// set holds who refers to what, for used-by; nil when no used-by index is asked for.
	set *index.ReferenceSet
}

// Referenced implements index.Referenced over the cached ServiceAccounts and claims.
func (rs *references) Referenced(kind, namespace, name string) interface{} {
	t := rs.byKind[kind]
	if t == nil {
		return nil
	}
	key := name
	if namespace != "" {
		key = namespace + "/" + name
	}
	for _, informer := range t.Informers {
		if obj, exists, err := informer.GetIndexer().GetByKey(key); err == nil && exists {
			return obj
		}
	}
	return nil
}

// startReferences caches, whole and in cfg.Namespaces (all namespaces when every indexed type
// is cluster-scoped), what the reference indexes of types
// read: for uses, the ServiceAccounts and claims (index.UsesKinds); for used-by, the kinds that
// may refer to the indexed ones (index.UserKinds), whose references it holds in an
// index.ReferenceSet.
func (r *Relations) startReferences(ctx context.Context, types []*Type, needs map[index.Relation]bool, cfg RelationsConfig) (*references, error) {
	var kinds []string
	for _, t := range types {
		kinds = append(kinds, t.Mapping.GroupVersionKind.Kind)
	}
	want := map[schema.GroupKind]bool{}
	if needs[index.UsesRelation] {
		for _, gk := range index.UsesKinds(kinds) {
			want[gk] = true
		}
	}
	if needs[index.UsedByRelation] {
		for _, gk := range index.UserKinds(kinds) {
			want[gk] = true
		}
	}
	rel := index.UsesRelation
	if needs[index.UsedByRelation] {
		rel = index.UsedByRelation
	}
	var mappings []*meta.RESTMapping
	for _, gk := range sortedGroupKinds(want) {
		mapping, err := cfg.Related.RESTMapper().RESTMapping(gk)
		if err != nil {
			r.unreadable = append(r.unreadable, UnreadableRelation{Relation: rel,
				UnreadableType: UnreadableType{Name: gk.String(), Unresolved: true, Err: err}})
			continue
		}
		mappings = append(mappings, mapping)
	}
	rs := &references{byKind: map[string]*Type{}}
	if len(mappings) == 0 {
		if needs[index.UsedByRelation] {
			rs.set = index.NewReferenceSet(rs, nil)
		}
		return rs, nil
	}
	each, err := cfg.Related.Start(ctx, mappings, Config{Namespaces: referenceNamespaces(types, cfg.Namespaces), SyncTimeout: cfg.SyncTimeout, FullObjects: true})
	rs.each = each
	if err != nil {
		return rs, err
	}
	r.addUnreadable(rel, each)
	for _, t := range each.Types {
		rs.byKind[t.Mapping.GroupVersionKind.Kind] = t
	}
	if needs[index.UsedByRelation] {
		var objs []interface{}
		for _, t := range each.Types {
			if !index.IsReferrer(t.Mapping.GroupVersionKind.Group, t.Mapping.GroupVersionKind.Kind) {
				continue
			}
			typeObjs, err := t.Lookup(nil)
			if err != nil {
				return rs, err
			}
			objs = append(objs, typeObjs...)
		}
		rs.set = index.NewReferenceSet(rs, objs)
	}
	return rs, nil
}

// referenceNamespaces returns the namespaces to cache the related types in: namespaces, unless
// every indexed type is cluster-scoped (StorageClasses, PersistentVolumes, ClusterRoles), whose
// users may be in any namespace: then all.
func referenceNamespaces(types []*Type, namespaces []string) []string {
	for _, t := range types {
		if t.Mapping.Scope == nil || t.Mapping.Scope.Name() == meta.RESTScopeNameNamespace {
			return namespaces
		}
	}
	return nil
}

// sortedGroupKinds returns the kinds of set sorted by group and kind.
func sortedGroupKinds(set map[schema.GroupKind]bool) []schema.GroupKind {
	kinds := make([]schema.GroupKind, 0, len(set))
	for gk := range set {
		kinds = append(kinds, gk)
	}
	for i := 1; i < len(kinds); i++ {
		for j := i; j > 0 && kinds[j].String() < kinds[j-1].String(); j-- {
			kinds[j], kinds[j-1] = kinds[j-1], kinds[j]
		}
	}
	return kinds
}

// Shutdown ends the use of the related types; it may be called on a nil *references.
func (rs *references) Shutdown() {
	if rs == nil {
		return
	}
	rs.each.Shutdown()
}

// followReferences makes the reference index values of r's types follow their related
// objects. When a ServiceAccount or claim is added, changes or is deleted, the uses values of
// the objects of its namespace are recomputed (through client-go's namespace index); when a
// referrer (pod, workload, Ingress, role binding, ServiceAccount, claim, volume) does, the
// ReferenceSet is updated and the used-by values of the objects whose users changed, and only
// those, are recomputed. onRelated gets the objects whose values changed, with the related
// object as the cause ("pod/web-5d9c7-x2x4z").
//
// It runs on each related informer's handler goroutine, after that cache holds the change, as
// followNodes does; registering the handlers replays every cached object as added, which
// catches a change made between the first values and the handlers.
func (r *Relations) followReferences(rs *references) error {
	for _, t := range rs.each.Types {
		gvk := t.Mapping.GroupVersionKind
		usesThrough := gvk.Group == "" && (gvk.Kind == "ServiceAccount" || gvk.Kind == "PersistentVolumeClaim")
		referrer := rs.set != nil && index.IsReferrer(gvk.Group, gvk.Kind)
		if !usesThrough && !referrer {
			continue
		}
		kind := gvk.Kind
		changed := func(obj interface{}, deleted bool) {
			m, err := meta.Accessor(obj)
			if err != nil {
				return
			}
			cause := strings.ToLower(kind) + "/" + m.GetName()
			if usesThrough && m.GetNamespace() != "" {
				r.refresh(index.UsesRelation, toolscache.NamespaceIndex, m.GetNamespace(), cause)
			}
			if !referrer {
				return
			}
			var targets []index.ReferenceKey
			if deleted {
				targets = rs.set.Delete(obj)
			} else {
				targets = rs.set.Set(obj)
			}
			r.refreshTargets(targets, cause)
		}
		err := r.addHandlers(t, toolscache.ResourceEventHandlerFuncs{
			AddFunc: func(obj interface{}) { changed(obj, false) },
			UpdateFunc: func(oldObj, newObj interface{}) {
				if !sameResourceVersion(oldObj, newObj) {
					changed(newObj, false)
				}
			},
			DeleteFunc: func(obj interface{}) {
				if tombstone, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
					obj = tombstone.Obj
				}
				changed(obj, true)
			},
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// refreshTargets recomputes the used-by values of the objects targets name among r's types of
// their kind, and hands those whose values changed to onRelated.
func (r *Relations) refreshTargets(targets []index.ReferenceKey, cause string) {
	if len(targets) == 0 {
		return
	}
	for i, t := range r.types {
		var keys []string
		kind := t.Mapping.GroupVersionKind.Kind
		for _, target := range targets {
			if target.Kind != kind {
				continue
			}
			key := target.Name
			if target.Namespace != "" {
				key = target.Namespace + "/" + target.Name
			}
			keys = append(keys, key)
		}
		if len(keys) == 0 {
			continue
		}
		changes := t.refreshKeys(index.UsedByRelation, keys)
		if len(changes) > 0 {
			r.onRelated(r.given[i], cause, changes)
		}
	}
}

// refreshKeys recomputes the values of the relation indexes of relation rel for the objects of
// keys, and returns those whose values changed and that are still cached, as refreshRelations
// does for the objects of an index value.
func (t *Type) refreshKeys(rel index.Relation, keys []string) []RelationChange {
	if t.relations == nil {
		return nil
	}
	var out []RelationChange
	for i, informer := range t.Informers {
		indexer := informer.GetIndexer()
		for _, key := range keys {
			if t.view != nil && !t.view.holdsKey(key) {
				continue
			}
			changes := t.relations[i].Refresh(key, rel)
			if len(changes) == 0 {
				continue
			}
			obj, exists, err := indexer.GetByKey(key)
			if err != nil || !exists || (t.view != nil && !t.view.selects(obj)) {
				continue
			}
			out = append(out, RelationChange{Key: key, Object: obj, Changes: changes})
		}
	}
	if len(out) > 0 {
		klog.V(4).InfoS("refreshed reference indexes", "type", t.Name(), "objects", len(out))
	}
	return out
}
