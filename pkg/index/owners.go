package index

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// ownerRootIndexName is the index name of the owner-root index.
const ownerRootIndexName = "owner-root"

// maxOwnerDepth bounds a walk up controller references: a chain longer than this (or a cycle,
// which the API server does not prevent for objects created with hand-made references) ends
// there.
const maxOwnerDepth = 16

// Owners is what owner-root (OwnerRelation) reads of the owner types' caches: the engine that
// holds the owner types' informers provides it (pkg/engine.Owners), and tests provide fakes over
// cache.NewIndexer. Implementations must be safe for concurrent use.
type Owners interface {
	// Owner returns the cached object ref names, for a dependent in namespace (cluster-scoped
	// owners are looked up without it), and whether the cache of ref's group and kind is held at
	// all. The object is nil when the kind is not held, when no object of that name is cached, or
	// when the cached object's UID is not ref.UID (a new object with an old owner's name).
	Owner(namespace string, ref metav1.OwnerReference) (owner metav1.Object, held bool)
}

// OwnerKinds returns the group and kind of ref, from its apiVersion ("apps/v1") and kind.
func OwnerKinds(ref metav1.OwnerReference) schema.GroupKind {
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil {
		return schema.GroupKind{Kind: ref.Kind}
	}
	return schema.GroupKind{Group: gv.Group, Kind: ref.Kind}
}

// OwnerChain returns the controller references from obj up to the top-most controller reached
// through owners, nearest first: obj's controller reference, then its controller's, and so on.
// The walk stops at a reference whose owner is not cached (its kind is not held, the object is
// gone, or its UID differs), at an owner with no controller reference, after maxOwnerDepth steps,
// or at a cycle; the reference it stops at is still in the chain, since the dependent names it.
// An object with no controller reference has an empty chain. A nil owners follows nothing beyond
// obj's own controller reference.
func OwnerChain(obj interface{}, owners Owners) []metav1.OwnerReference {
	m, err := accessor(obj)
	if err != nil {
		return nil
	}
	var chain []metav1.OwnerReference
	seen := map[string]bool{string(m.GetUID()): true}
	for cur := m; len(chain) < maxOwnerDepth; {
		ref := controllerOf(cur)
		if ref == nil || (ref.UID != "" && seen[string(ref.UID)]) {
			break
		}
		chain = append(chain, *ref)
		seen[string(ref.UID)] = true
		if owners == nil {
			break
		}
		owner, _ := owners.Owner(cur.GetNamespace(), *ref)
		if owner == nil {
			break
		}
		cur = owner
	}
	return chain
}

// controllerOf returns the owner reference of m marked controller, or nil.
func controllerOf(m metav1.Object) *metav1.OwnerReference {
	refs := m.GetOwnerReferences()
	for i := range refs {
		if refs[i].Controller != nil && *refs[i].Controller {
			return &refs[i]
		}
	}
	return nil
}

// OwnerRoot returns the owner-root index over owners: the KIND/NAME of the top-most controller
// that OwnerChain reaches from the object, e.g. "Deployment/web" for a pod of a Deployment's
// ReplicaSet, "CronJob/backup" for a pod of a CronJob's Job. An object with no controller
// reference has no value; where the walk stops early (an owner type the user may not read), the
// value is the last controller reached, e.g. "ReplicaSet/web-5d9c7".
//
// The value is computed when the object enters or changes in its cache, from what owners holds
// then: register it only once owners's caches have synced. A later change of an owner alone
// (a ReplicaSet adopted by another Deployment) does not recompute its dependents' values.
func OwnerRoot(owners Owners) Definition {
	return Definition{
		Name:         ownerRootIndexName,
		Description:  ownerRootDescription,
		MetadataOnly: true,
		Relation:     OwnerRelation,
		Func: func(obj interface{}) ([]string, error) {
			if _, err := accessor(obj); err != nil {
				return nil, err
			}
			chain := OwnerChain(obj, owners)
			if len(chain) == 0 {
				return nil, nil
			}
			root := chain[len(chain)-1]
			return []string{root.Kind + "/" + root.Name}, nil
		},
	}
}

const ownerRootDescription = "KIND/NAME of the top-most controller, following controller owner references, e.g. Deployment/web"

// unboundOwnerRoot is the owner-root Definition Set.Lookup returns: no owners, no value.
func unboundOwnerRoot() Definition {
	def := OwnerRoot(nil)
	def.Func = func(obj interface{}) ([]string, error) {
		if _, err := accessor(obj); err != nil {
			return nil, err
		}
		return nil, nil
	}
	return def
}

// KeyGetter reads objects by storage key, as an informer's indexer does.
type KeyGetter interface {
	GetByKey(key string) (item interface{}, exists bool, err error)
}

// OwnerIndexers is an Owners over one cache per owner group and kind, each holding objects
// under cache.MetaNamespaceKeyFunc keys ("ns/name", or "name" for cluster-scoped objects), as
// an informer's indexer holds them. It must not be changed once in use.
type OwnerIndexers map[schema.GroupKind]KeyGetter

// Owner implements Owners.
func (g OwnerIndexers) Owner(namespace string, ref metav1.OwnerReference) (metav1.Object, bool) {
	indexer, ok := g[OwnerKinds(ref)]
	if !ok {
		return nil, false
	}
	key := ref.Name
	if namespace != "" {
		key = namespace + "/" + ref.Name
	}
	obj, exists, err := indexer.GetByKey(key)
	if err != nil || !exists {
		// A cluster-scoped owner of a namespaced dependent is stored without a namespace.
		if obj, exists, err = indexer.GetByKey(ref.Name); err != nil || !exists {
			return nil, true
		}
	}
	m, err := accessor(obj)
	if err != nil || (ref.UID != "" && m.GetUID() != ref.UID) {
		return nil, true
	}
	return m, true
}
