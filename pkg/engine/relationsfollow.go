package engine

import (
	"maps"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// nodeIndexName is the built-in index of pods by spec.nodeName, through which a node's change
// finds the pods whose node relation values it may change.
const nodeIndexName = "node"

// ownerUIDIndexName is the built-in index of objects by the UIDs of their owners, through
// which an owner's change finds the objects whose owner-root it may change.
const ownerUIDIndexName = "owner-uid"

// maxOwnerLevels bounds how many levels of dependents an owner's change is followed down, as
// index.OwnerChain bounds the walk up.
const maxOwnerLevels = 16

// refresh recomputes the values of the relation indexes of relation rel of r's types for the
// objects that have value under indexName, and hands those whose values changed to onRelated,
// with the type as StartRelations got it.
func (r *Relations) refresh(rel index.Relation, indexName, value, cause string) {
	for i, t := range r.types {
		changes, err := t.refreshRelations(rel, indexName, value)
		if err != nil {
			klog.V(1).InfoS("refreshing relation indexes", "cause", cause, "index", indexName, "value", value, "err", err)
			continue
		}
		if len(changes) > 0 {
			r.onRelated(r.given[i], cause, changes)
		}
	}
}

// followNodes makes the node relation values (node.label:KEY, node.annotation:KEY) of r's types
// follow their nodes: when a node is added, deleted, or its labels or annotations change, the
// values of the pods on it, and only those (found through the node index, which it registers
// where it is missing), are recomputed, and onRelated gets the pods whose values changed, with
// "node/NAME" as the cause.
//
// It runs on the node informer's handler goroutine, one node event at a time in the order the
// informer saw them, after the node cache holds the change; client-go buffers the node events
// while it works, and the informers themselves never wait for it. Registering the handler
// replays every cached node as added, which catches a change made between the relation
// indexes' first values and the handler. r.types must hold their relation indexes (with follow).
func (r *Relations) followNodes(nodes *Type) error {
	nodeIndex, err := (*index.Set)(nil).Lookup(nodeIndexName)
	if err != nil {
		return err
	}
	for _, t := range r.given {
		if err := t.EnsureIndexes(nodeIndex); err != nil {
			return err
		}
	}
	refresh := func(obj interface{}) {
		m, err := meta.Accessor(obj)
		if err != nil || m.GetName() == "" {
			return
		}
		r.refresh(index.NodeRelation, nodeIndexName, m.GetName(), "node/"+m.GetName())
	}
	return r.followChanges(nodes, nodeRelationChanged, refresh)
}

// followChanges calls refresh with each object of related that is added or deleted, and with
// the new object of each update for which changed reports true. refresh runs on the informers'
// handler goroutines. The handlers go to r.handlers, which Shutdown removes.
func (r *Relations) followChanges(related *Type, changed func(oldObj, newObj interface{}) bool, refresh func(obj interface{})) error {
	return r.addHandlers(related, toolscache.ResourceEventHandlerFuncs{
		AddFunc: refresh,
		UpdateFunc: func(oldObj, newObj interface{}) {
			if changed(oldObj, newObj) {
				refresh(newObj)
			}
		},
		DeleteFunc: func(obj interface{}) {
			if tombstone, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
				obj = tombstone.Obj
			}
			refresh(obj)
		},
	})
}

// addHandlers registers h on every informer of related, and keeps the registrations in
// r.handlers for Shutdown to remove.
func (r *Relations) addHandlers(related *Type, h toolscache.ResourceEventHandler) error {
	for _, informer := range related.Informers {
		registration, err := informer.AddEventHandler(h)
		if err != nil {
			return err
		}
		r.handlers = append(r.handlers, handler{informer: informer, registration: registration})
	}
	return nil
}

// nodeRelationChanged reports whether a node's update may change node relation values: its
// labels or annotations changed. Status updates (heartbeats) do not.
func nodeRelationChanged(oldObj, newObj interface{}) bool {
	o, err1 := meta.Accessor(oldObj)
	n, err2 := meta.Accessor(newObj)
	if err1 != nil || err2 != nil {
		return true
	}
	return !maps.Equal(o.GetLabels(), n.GetLabels()) || !maps.Equal(o.GetAnnotations(), n.GetAnnotations())
}

// followOwners makes the owner-root values of r's types follow their owners: when an owner is
// added or deleted, or its controller reference changes (a ReplicaSet orphaned when its
// Deployment is deleted with --cascade=orphan, or adopted), the values of the objects below it,
// and only those, are recomputed: its dependents among r's types, and those of its dependents
// among the cached owners, level by level (found through the owner-uid index, which it
// registers where it is missing). onRelated gets the objects whose values changed, with the
// owner as the cause ("replicaset/web-5d9c7").
//
// It runs on each owner informer's handler goroutine, after the owner cache holds the change,
// as followNodes does; registering the handlers replays every cached owner as added.
func (r *Relations) followOwners() error {
	ownerTypes := r.owners.Types()
	ownerUID, err := (*index.Set)(nil).Lookup(ownerUIDIndexName)
	if err != nil {
		return err
	}
	for _, t := range append(append([]*Type{}, r.given...), ownerTypes...) {
		if err := t.EnsureIndexes(ownerUID); err != nil {
			return err
		}
	}
	refresh := func(obj interface{}) {
		m, err := meta.Accessor(obj)
		if err != nil {
			return
		}
		cause := strings.ToLower(kindOf(obj)) + "/" + m.GetName()
		for _, uid := range descendants(ownerTypes, string(m.GetUID())) {
			r.refresh(index.OwnerRelation, ownerUIDIndexName, uid, cause)
		}
	}
	for _, ot := range ownerTypes {
		if err := r.followChanges(ot, controllerChanged, refresh); err != nil {
			return err
		}
	}
	return nil
}

// descendants returns uid and the UIDs of the cached owners below it, level by level, at most
// maxOwnerLevels deep: the owners whose dependents' owner-root may follow uid's.
func descendants(ownerTypes []*Type, uid string) []string {
	all := []string{uid}
	seen := map[string]bool{uid: true}
	frontier := []string{uid}
	for level := 0; level < maxOwnerLevels && len(frontier) > 0; level++ {
		var next []string
		for _, u := range frontier {
			for _, ot := range ownerTypes {
				objs, err := ot.Lookup([]index.Selector{{Name: ownerUIDIndexName, Operator: index.Equals, Values: []string{u}}})
				if err != nil {
					continue
				}
				for _, obj := range objs {
					if m, err := meta.Accessor(obj); err == nil && !seen[string(m.GetUID())] {
						seen[string(m.GetUID())] = true
						next = append(next, string(m.GetUID()))
					}
				}
			}
		}
		all = append(all, next...)
		frontier = next
	}
	return all
}

// controllerChanged reports whether an owner's update may change owner-root values below it:
// its controller reference changed.
func controllerChanged(oldObj, newObj interface{}) bool {
	o, err1 := meta.Accessor(oldObj)
	n, err2 := meta.Accessor(newObj)
	if err1 != nil || err2 != nil {
		return true
	}
	oldRef, newRef := metav1.GetControllerOfNoCopy(o), metav1.GetControllerOfNoCopy(n)
	if oldRef == nil || newRef == nil {
		return oldRef != newRef
	}
	return oldRef.UID != newRef.UID
}

// kindOf is obj's kind as its type meta says (the engine sets it on typed and metadata-only
// objects), or "object".
func kindOf(obj interface{}) string {
	if t, err := meta.TypeAccessor(obj); err == nil && t.GetKind() != "" {
		return t.GetKind()
	}
	return "object"
}

// followSelectors makes the selected-by values of r's types follow the selecting objects
// (Services, workloads, PodDisruptionBudgets, NetworkPolicies) cached in r.selecting: when one
// is added or deleted, or its selector changes, r.selectorSet is updated and the values of the
// objects of its namespace, and only those (through client-go's namespace index, which every
// informer of the engine has), are recomputed; onRelated gets the objects whose values changed,
// with the selecting object as the cause ("service/web"). An update that leaves the selector as
// it was (status, replicas, annotations) recomputes nothing.
//
// It runs on each selecting informer's handler goroutine, after that cache holds the change,
// as followNodes does; registering the handlers replays every cached object as added, which
// catches a selector changed between the set's first contents and the handler.
func (r *Relations) followSelectors() error {
	set := r.selectorSet
	refresh := func(sel index.PodSelector, changed bool) {
		if !changed {
			return
		}
		r.refresh(index.SelectorRelation, toolscache.NamespaceIndex, sel.Namespace, strings.ToLower(sel.Kind)+"/"+sel.Name)
	}
	for _, st := range r.selecting.Types {
		err := r.addHandlers(st, toolscache.ResourceEventHandlerFuncs{
			AddFunc:    func(obj interface{}) { refresh(set.Set(obj)) },
			UpdateFunc: func(_, newObj interface{}) { refresh(set.Set(newObj)) },
			DeleteFunc: func(obj interface{}) {
				if tombstone, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
					obj = tombstone.Obj
				}
				refresh(set.Delete(obj))
			},
		})
		if err != nil {
			return err
		}
	}
	return nil
}
