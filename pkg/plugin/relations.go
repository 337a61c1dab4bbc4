package plugin

import (
	"context"
	"fmt"
	"io"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/kubectl-informer/kubectl-informer/pkg/cache"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// plainIndexes returns defs without the relationship indexes (owner-root, selected-by,
// selects, node.label:KEY, node.annotation:KEY), which are registered only after the caches
// they read have synced; see startRelations.
func plainIndexes(defs []index.Definition) []index.Definition {
	var plain []index.Definition
	for _, def := range defs {
		if def.Relation == index.NoRelation {
			plain = append(plain, def)
		}
	}
	return plain
}

// relations are the caches the relationship indexes of one command read; Shutdown ends them.
type relations struct {
	owners    *cache.Owners
	selectors *cache.Each
	// selectorSet is what selected-by reads of selectors; a watch keeps it current.
	selectorSet *index.SelectorSet
	nodes       *cache.Each
	pods        *cache.Each
}

// Shutdown stops the informers of the related types; a nil *relations has none.
func (r *relations) Shutdown() {
	if r == nil {
		return
	}
	if r.owners != nil {
		r.owners.Shutdown()
	}
	if r.selectors != nil {
		r.selectors.Shutdown()
	}
	if r.nodes != nil {
		r.nodes.Shutdown()
	}
	if r.pods != nil {
		r.pods.Shutdown()
	}
}

// relationOptions are what startRelations needs besides the types and their indexes.
type relationOptions struct {
	namespaces  []string // none for all
	syncTimeout time.Duration
	// selectors are the command's selectors, which say the selecting kinds selected-by needs.
	selectors []index.Selector
	// ownerKinds are owner kinds cached even when no object refers to them yet (watch).
	ownerKinds []schema.GroupKind
	// errOut gets the warnings about related types that cannot be read.
	errOut io.Writer
	// onRelated, when set, makes the relationship index values follow changes from then on,
	// of the objects, of their owners and of their nodes, and gets the objects whose values an
	// owner's or a node's change changed (see followOwners, followNodes). A watch sets it; a
	// one-shot query does not.
	onRelated func(t *cache.Type, cause string, changes []cache.RelationChange)
}

// controllerKinds are the kinds of the built-in controllers, cached for a watch of owner-root
// whose objects and owners may appear after it starts.
var controllerKinds = []schema.GroupKind{
	{Group: "apps", Kind: "ReplicaSet"}, {Group: "apps", Kind: "Deployment"},
	{Group: "apps", Kind: "StatefulSet"}, {Group: "apps", Kind: "DaemonSet"},
	{Group: "batch", Kind: "Job"}, {Group: "batch", Kind: "CronJob"},
}

// startRelations is the second phase of an engine whose indexes include relationship indexes.
// Once types have synced, it caches what those indexes read: for owner-root, the owner types the
// objects' controller references lead to (cache.StartOwners); for selected-by, the selecting
// kinds the selectors name (all of them for --group-by or a negated selector), whole objects;
// for node.label:KEY and node.annotation:KEY, the nodes, metadata-only; for selects, the pods
// of the namespace, metadata-only. It then holds the bound indexes of every type in joins
// (cache.Type.AddRelations), following changes when opts.onRelated is set, and says on errOut which
// related types it could not read. It returns defs with the relationship indexes
// bound, in the same order, and the related caches to shut down (nil when no index needed any).
func startRelations(ctx context.Context, source cache.Source, types []*cache.Type, defs []index.Definition, opts relationOptions) ([]index.Definition, *relations, error) {
	namespaces, syncTimeout, errOut := opts.namespaces, opts.syncTimeout, opts.errOut
	needs := map[index.Relation]bool{}
	for _, def := range defs {
		if def.Relation != index.NoRelation {
			needs[def.Relation] = true
		}
	}
	if len(needs) == 0 {
		return defs, nil, nil
	}
	r := &relations{}
	var related index.Relations
	if needs[index.OwnerRelation] {
		var seeds []interface{}
		for _, t := range types {
			objs, err := t.Lookup(nil)
			if err != nil {
				return nil, nil, err
			}
			seeds = append(seeds, objs...)
		}
		owners, err := cache.StartOwners(ctx, source, seeds, cache.OwnersConfig{Namespaces: namespaces, SyncTimeout: syncTimeout, Kinds: opts.ownerKinds})
		if err != nil {
			return nil, nil, err
		}
		r.owners = owners
		reportUnreadable(errOut, owners)
		related.Owners = owners
	}
	if needs[index.SelectorRelation] {
		set, each, err := startSelectors(ctx, source, namespaces, syncTimeout, opts.selectors, errOut)
		r.selectors, r.selectorSet = each, set
		if err != nil {
			r.Shutdown()
			return nil, nil, err
		}
		related.Selectors = set
	}
	if needs[index.NodeRelation] {
		graph, each, err := startNodes(ctx, source, syncTimeout, errOut)
		r.nodes = each
		if err != nil {
			r.Shutdown()
			return nil, nil, err
		}
		related.Nodes = graph
	}
	if needs[index.PodRelation] {
		graph, each, err := startPods(ctx, source, namespaces, syncTimeout, errOut)
		r.pods = each
		if err != nil {
			r.Shutdown()
			return nil, nil, err
		}
		related.Pods = graph
	}
	bound := make([]index.Definition, len(defs))
	var added []index.Definition
	for i, def := range defs {
		bound[i] = index.Bind(def, related)
		if def.Relation != index.NoRelation {
			added = append(added, bound[i])
		}
	}
	follow := opts.onRelated != nil
	for _, t := range types {
		if err := t.AddRelations(ctx, follow, added...); err != nil {
			r.Shutdown()
			return nil, nil, err
		}
	}
	if follow && r.owners != nil {
		if err := followOwners(r.owners, types, opts.onRelated); err != nil {
			r.Shutdown()
			return nil, nil, err
		}
	}
	if follow && r.nodes != nil && len(r.nodes.Types) > 0 {
		if err := followNodes(r.nodes.Types[0], types, opts.onRelated); err != nil {
			r.Shutdown()
			return nil, nil, err
		}
	}
	if follow && r.selectorSet != nil {
		if err := followSelectors(r.selectors.Types, r.selectorSet, types, opts.onRelated); err != nil {
			r.Shutdown()
			return nil, nil, err
		}
	}
	return bound, r, nil
}

// nodesGroupKind and podsGroupKind are the kinds the node join indexes and selects read.
var (
	nodesGroupKind = schema.GroupKind{Kind: "Node"}
	podsGroupKind  = schema.GroupKind{Kind: "Pod"}
)

// startPods caches the pods of namespaces (none: all), metadata-only, for the selects index. Pods the user
// may not read are reported on errOut, and the index then has no values.
func startPods(ctx context.Context, source cache.Source, namespaces []string, syncTimeout time.Duration, errOut io.Writer) (index.Pods, *cache.Each, error) {
	mapping, err := source.RESTMapper().RESTMapping(podsGroupKind)
	if err != nil {
		return nil, nil, fmt.Errorf("resolving pods: %w", err)
	}
	each, err := cache.StartEach(ctx, source, []*meta.RESTMapping{mapping}, cache.Config{Namespaces: namespaces, SyncTimeout: syncTimeout})
	if err != nil {
		return nil, each, err
	}
	for _, u := range each.Unreadable {
		fmt.Fprintf(errOut, "Warning: selects has no values: %s cannot be read: %v\n", u.Name, u.Err)
	}
	if len(each.Types) == 0 {
		return nil, each, nil
	}
	var indexers []toolscache.Indexer
	for _, informer := range each.Types[0].Informers {
		indexers = append(indexers, informer.GetIndexer())
	}
	return index.PodIndexer{Indexers: indexers}, each, nil
}

// startNodes caches the nodes, metadata-only, for the node join indexes. Nodes the user may not
// read are reported on errOut, and the indexes then have no values.
func startNodes(ctx context.Context, source cache.Source, syncTimeout time.Duration, errOut io.Writer) (index.Nodes, *cache.Each, error) {
	mapping, err := source.RESTMapper().RESTMapping(nodesGroupKind)
	if err != nil {
		return nil, nil, fmt.Errorf("resolving nodes: %w", err)
	}
	each, err := cache.StartEach(ctx, source, []*meta.RESTMapping{mapping}, cache.Config{SyncTimeout: syncTimeout})
	if err != nil {
		return nil, each, err
	}
	for _, u := range each.Unreadable {
		fmt.Fprintf(errOut, "Warning: node.label and node.annotation have no values: %s cannot be read: %v\n", u.Name, u.Err)
	}
	if len(each.Types) == 0 {
		return nil, each, nil
	}
	return index.NodeIndexer{Indexer: each.Types[0].Informers[0].GetIndexer()}, each, nil
}

// startSelectors caches the selecting kinds selected-by needs, whole, in namespaces, and returns
// their pod selectors. Only the kinds that selected-by=KIND/NAME or "selected-by in (...)"
// selectors name are cached; any other use (--group-by, !=, notin, exists) needs them all. A
// kind the user may not read, or that the server does not serve, is reported on errOut.
func startSelectors(ctx context.Context, source cache.Source, namespaces []string, syncTimeout time.Duration, selectors []index.Selector, errOut io.Writer) (*index.SelectorSet, *cache.Each, error) {
	kinds, err := selectorKinds(selectors)
	if err != nil {
		return nil, nil, err
	}
	var mappings []*meta.RESTMapping
	for _, gk := range kinds {
		mapping, err := source.RESTMapper().RESTMapping(gk)
		if err != nil {
			fmt.Fprintf(errOut, "Warning: selected-by does not read %s, which the server does not serve: %v\n", gk, err)
			continue
		}
		mappings = append(mappings, mapping)
	}
	each, err := cache.StartEach(ctx, source, mappings, cache.Config{Namespaces: namespaces, SyncTimeout: syncTimeout, FullObjects: true})
	if err != nil {
		return nil, each, err
	}
	for _, u := range each.Unreadable {
		fmt.Fprintf(errOut, "Warning: selected-by does not read %s, which cannot be read: %v\n", u.Name, u.Err)
	}
	var objs []interface{}
	for _, t := range each.Types {
		typeObjs, err := t.Lookup(nil)
		if err != nil {
			return nil, each, err
		}
		objs = append(objs, typeObjs...)
	}
	return index.NewSelectorSet(objs), each, nil
}

// selectorKinds returns the selecting kinds selectors name, or every selecting kind when a
// selector on selected-by is not = or in, or none is (--group-by selected-by).
func selectorKinds(selectors []index.Selector) ([]schema.GroupKind, error) {
	seen := map[schema.GroupKind]bool{}
	var kinds []schema.GroupKind
	named := false
	for _, s := range selectors {
		if s.Name != "selected-by" {
			continue
		}
		if s.Operator != index.Equals && s.Operator != index.In {
			return index.SelectorKinds(), nil
		}
		named = true
		for _, v := range s.Values {
			gk, err := index.SelectorKindOf(v)
			if err != nil {
				return nil, fmt.Errorf("--index %s: %w", s, err)
			}
			if !seen[gk] {
				seen[gk] = true
				kinds = append(kinds, gk)
			}
		}
	}
	if !named {
		return index.SelectorKinds(), nil
	}
	return kinds, nil
}

// reportUnreadable says on errOut which owner types could not be cached, and so where walks up
// the owners stop.
func reportUnreadable(errOut io.Writer, owners *cache.Owners) {
	for _, u := range owners.Unreadable() {
		fmt.Fprintf(errOut, "Warning: owners stop at %s, which cannot be read: %v\n", u.Name, u.Err)
	}
}

// validateRelations checks, without I/O, the values of selectors on relationship indexes.
func validateRelations(selectors []index.Selector) error {
	_, err := selectorKinds(selectors)
	return err
}

// startRelations caches what the relationship indexes of --where read, once the watched types
// have synced, and binds the --where clauses to them. The clauses are evaluated on each event
// from what the related caches hold then; when an owner's or a node's change alone changes the
// owner-root or node join values of watched objects, an event naming it is pushed to queue for
// each of them, so they enter or leave the query (see eventPrinter.classify). The caller shuts
// the returned relations down.
func (o *WatchOptions) startRelations(ctx context.Context, engine runningEngine, queue *cache.Queue) (*relations, error) {
	defs := make([]index.Definition, len(o.print.where), len(o.print.where)+len(o.groupBy))
	selectors := make([]index.Selector, len(o.print.where))
	for i, w := range o.print.where {
		defs[i], selectors[i] = w.def, w.sel
	}
	defs = append(defs, o.groupBy...)
	bound, related, err := startRelations(ctx, o.source, engine.Types(), defs, relationOptions{
		namespaces: o.namespaces, syncTimeout: o.SyncTimeout, selectors: selectors, ownerKinds: controllerKinds, errOut: o.ErrOut,
		onRelated: func(t *cache.Type, cause string, changes []cache.RelationChange) {
			for _, c := range changes {
				queue.Push(&cache.Event{Type: cache.Modified, Resource: t, Old: c.Object, New: c.Object, Key: c.Key, Related: c.Changes, Cause: cause})
			}
		},
	})
	if err != nil {
		return nil, err
	}
	for i := range o.print.where {
		o.print.where[i].def = bound[i]
	}
	copy(o.groupBy, bound[len(o.print.where):])
	return related, nil
}
