package tree

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/tree"
)

// refsReferrerKinds are the kinds tree --refs caches whole: those whose spec names other objects
// (index.References reads them).
var refsReferrerKinds = []schema.GroupKind{
	{Kind: "Pod"}, {Kind: "ReplicationController"}, {Kind: "ServiceAccount"},
	{Kind: "PersistentVolumeClaim"}, {Kind: "PersistentVolume"},
	{Group: "apps", Kind: "Deployment"}, {Group: "apps", Kind: "ReplicaSet"},
	{Group: "apps", Kind: "StatefulSet"}, {Group: "apps", Kind: "DaemonSet"},
	{Group: "batch", Kind: "Job"}, {Group: "batch", Kind: "CronJob"},
	{Group: "networking.k8s.io", Kind: "Ingress"},
	{Group: "rbac.authorization.k8s.io", Kind: "RoleBinding"}, {Group: "rbac.authorization.k8s.io", Kind: "ClusterRoleBinding"},
}

// refsTargetKinds are the kinds tree --refs caches metadata-only: those only referred to. A
// Secret's data is never read.
var refsTargetKinds = []schema.GroupKind{
	{Kind: "ConfigMap"}, {Kind: "Secret"}, {Kind: "Service"},
	{Group: "rbac.authorization.k8s.io", Kind: "Role"}, {Group: "rbac.authorization.k8s.io", Kind: "ClusterRole"},
	{Group: "scheduling.k8s.io", Kind: "PriorityClass"}, {Group: "node.k8s.io", Kind: "RuntimeClass"},
	{Group: "storage.k8s.io", Kind: "StorageClass"},
}

// refsTrees caches the kinds that refer to others, whole, and the kinds only referred to,
// metadata-only, in the command's namespaces (all of them when a root is cluster-scoped;
// cluster-scoped kinds everywhere), through the
// related types (a warm cache's pool when there is one), and returns each root's references
// tree (tree.RefsTree). A kind that cannot be read is reported and left out.
func (c *treeTarget) refsTrees(ctx context.Context, roots []tree.Object) ([]*tree.Node, error) {
	related := c.Engines.Related(c.Source)
	// A cluster-scoped root's users may be in any namespace.
	namespaces := c.Namespaces
	for _, r := range roots {
		if r.Namespace == "" {
			namespaces = nil
		}
	}
	resolve := func(kinds []schema.GroupKind) []*meta.RESTMapping {
		var mappings []*meta.RESTMapping
		for _, gk := range kinds {
			m, err := related.RESTMapper().RESTMapping(gk)
			if err != nil {
				klog.V(1).InfoS("tree --refs does not read a kind the server does not serve", "kind", gk.String(), "err", err)
				continue
			}
			mappings = append(mappings, m)
		}
		return mappings
	}
	referrers, err := related.Start(ctx, resolve(refsReferrerKinds), engine.Config{Namespaces: namespaces, SyncTimeout: c.SyncTimeout, FullObjects: true})
	defer referrers.Shutdown()
	if err != nil {
		return nil, err
	}
	targets, err := related.Start(ctx, resolve(refsTargetKinds), engine.Config{Namespaces: namespaces, SyncTimeout: c.SyncTimeout})
	defer targets.Shutdown()
	if err != nil {
		return nil, err
	}
	refs := cacheRefs{byKind: map[string]*engine.Type{}}
	var objs []interface{}
	for _, each := range []*engine.Each{referrers, targets} {
		for _, u := range each.Unreadable {
			fmt.Fprintf(c.errOut, "Warning: the tree does not follow references of %s, which cannot be read: %v\n", u.Name, u.Err)
		}
		for _, t := range each.Types {
			refs.byKind[t.Mapping.GroupVersionKind.Kind] = t
		}
	}
	for _, t := range referrers.Types {
		typeObjs, err := t.Lookup(nil)
		if err != nil {
			return nil, err
		}
		objs = append(objs, typeObjs...)
	}
	refs.set = index.NewReferenceSet(nil, objs)
	trees := make([]*tree.Node, 0, len(roots))
	for _, r := range roots {
		n, err := tree.RefsTree(r, refs)
		if err != nil {
			return nil, err
		}
		trees = append(trees, n)
	}
	return trees, nil
}

// cacheRefs are the tree.Refs of cached objects: what an object's spec names
// (index.References), and who names it (an index.ReferenceSet of every cached referrer).
type cacheRefs struct {
	byKind map[string]*engine.Type
	set    *index.ReferenceSet
}

// Uses implements tree.Refs.
func (c cacheRefs) Uses(obj tree.Object) ([]tree.Edge, error) {
	if obj.Obj == nil {
		return nil, nil
	}
	var edges []tree.Edge
	for _, r := range index.References(obj.Obj) {
		o, err := c.object(r.Kind, r.Namespace, r.Name)
		if err != nil {
			return nil, err
		}
		edges = append(edges, tree.Edge{Object: o, Field: r.Field})
	}
	return edges, nil
}

// UsedBy implements tree.Refs.
func (c cacheRefs) UsedBy(obj tree.Object) ([]tree.Edge, error) {
	var edges []tree.Edge
	for _, u := range c.set.Users(index.ReferenceKey{Kind: obj.Kind, Namespace: obj.Namespace, Name: obj.Name}) {
		o, err := c.object(u.Kind, u.Namespace, u.Name)
		if err != nil {
			return nil, err
		}
		edges = append(edges, tree.Edge{Object: o, Field: u.Field})
	}
	return edges, nil
}

// object returns the cached object of kind, or the object known only by its name when its kind
// is not cached or it does not exist (a missing ConfigMap a pod names; a User).
func (c cacheRefs) object(kind, namespace, name string) (tree.Object, error) {
	t := c.byKind[kind]
	if t == nil {
		return tree.Object{Kind: kind, Namespace: namespace, Name: name}, nil
	}
	key := name
	if t.Namespaced() {
		key = namespace + "/" + name
	}
	obj, exists, err := t.GetByKey(key)
	if err != nil {
		return tree.Object{}, fmt.Errorf("reading %s %q from the cache: %w", t.Name(), key, err)
	}
	if !exists {
		return tree.Object{Resource: t.Mapping.Resource.GroupResource(), Kind: kind, Namespace: namespace, Name: name}, nil
	}
	return typeObject(t, obj), nil
}
