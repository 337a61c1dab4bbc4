package plugin

import (
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/kubectl-informer/kubectl-informer/pkg/cache"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// ownerUIDIndexName is the built-in index of objects by the UIDs of their owners, through
// which an owner's change finds the objects whose owner-root it may change.
const ownerUIDIndexName = "owner-uid"

// maxOwnerLevels bounds how many levels of dependents an owner's change is followed down, as
// index.OwnerChain bounds the walk up.
const maxOwnerLevels = 16

// followOwners makes the owner-root values of the objects of types follow their owners: when
// an owner is added or deleted, or its controller reference changes (a ReplicaSet orphaned when
// its Deployment is deleted with --cascade=orphan, or adopted), the values of the objects below
// it, and only those, are recomputed: its dependents among types, and those of its dependents
// among the cached owners, level by level (found through the owner-uid index, which it
// registers where it is missing). onChange gets the objects whose values changed, with the
// owner as the cause ("replicaset/web-5d9c7").
//
// It runs on each owner informer's handler goroutine, after the owner cache holds the change,
// as followNodes does; registering the handlers replays every cached owner as added. The
// types' joins must exist (AddRelations with follow) before it is called.
func followOwners(owners *cache.Owners, types []*cache.Type, onChange func(t *cache.Type, cause string, changes []cache.RelationChange)) error {
	ownerTypes := owners.Types()
	ownerUID, err := (*index.Set)(nil).Lookup(ownerUIDIndexName)
	if err != nil {
		return err
	}
	for _, t := range append(append([]*cache.Type{}, types...), ownerTypes...) {
		if !t.HasIndex(ownerUIDIndexName) {
			if err := t.AddIndexes(ownerUID); err != nil {
				return err
			}
		}
	}
	refresh := func(obj interface{}) {
		m, err := meta.Accessor(obj)
		if err != nil {
			return
		}
		cause := strings.ToLower(kindOf(obj)) + "/" + m.GetName()
		for _, uid := range descendants(ownerTypes, string(m.GetUID())) {
			for _, t := range types {
				changes, err := t.RefreshRelations(index.OwnerRelation, ownerUIDIndexName, uid)
				if err != nil {
					klog.V(1).InfoS("refreshing owner joins", "owner", cause, "err", err)
					continue
				}
				if len(changes) > 0 {
					onChange(t, cause, changes)
				}
			}
		}
	}
	for _, ot := range ownerTypes {
		if err := followChanges(ot, controllerChanged, refresh); err != nil {
			return err
		}
	}
	return nil
}

// descendants returns uid and the UIDs of the cached owners below it, level by level, at most
// maxOwnerLevels deep: the owners whose dependents' owner-root may follow uid's.
func descendants(ownerTypes []*cache.Type, uid string) []string {
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
