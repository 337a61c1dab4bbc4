package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// RelatedTypes is where the relations get the caches of the types they read besides the indexed
// ones: owner types (owner-root), selecting kinds (selected-by), nodes (node.label:KEY,
// node.annotation:KEY) and pods (selects). SourceTypes starts an engine of its own per type; a
// warm cache leases the types from its pool, shared with other commands.
//
// Implementations must be safe for concurrent use.
type RelatedTypes interface {
	// RESTMapper resolves the related kinds: the kinds of owner references, Node, Pod and the
	// selecting kinds.
	RESTMapper() meta.RESTMapper
	// Start returns synced caches of mappings: Types, one per mapping that could be read, in
	// the order of mappings, and Unreadable, the others (forbidden, not served, sync timeout),
	// so that one unreadable type does not fail the rest. Of cfg only Namespaces (none for all;
	// ignored for cluster-scoped types), FullObjects and SyncTimeout are set. The types may be
	// shared with other users, may be views of wider caches (see Type.Restrict), and may hold
	// whole objects where cfg asks for metadata only; the relations never mutate them: they
	// only add indexes with EnsureIndexes and event handlers, which they remove before Shutdown.
	// Start returns an error only when ctx ends or nothing could be started; the *Each it
	// returns, with or without an error, if not nil, is shut down by the caller, which ends its
	// use of the types.
	Start(ctx context.Context, mappings []*meta.RESTMapping, cfg Config) (*Each, error)
}

// SourceTypes are the RelatedTypes of a command without a warm cache: each related type in an
// engine of its own, fed by Source (StartEach), stopped by the Each's Shutdown.
type SourceTypes struct {
	// Source feeds the related types' engines.
	Source Source
}

// RESTMapper implements RelatedTypes.
func (s SourceTypes) RESTMapper() meta.RESTMapper { return s.Source.RESTMapper() }

// Start implements RelatedTypes with StartEach.
func (s SourceTypes) Start(ctx context.Context, mappings []*meta.RESTMapping, cfg Config) (*Each, error) {
	return StartEach(ctx, s.Source, mappings, cfg)
}

// RelationsConfig says where StartRelations gets the related types and what it follows.
type RelationsConfig struct {
	// Related gives the caches of the related types.
	Related RelatedTypes
	// Namespaces are the namespaces of the indexed types, none for all: owners, selecting
	// objects and pods are cached there (cluster-scoped types everywhere).
	Namespaces []string
	// SyncTimeout bounds each related type's first sync; 0 means 60s.
	SyncTimeout time.Duration
	// Selectors are the command's selectors (--index, --where). They say which selecting kinds
	// selected-by reads: only those that selected-by=KIND/NAME or "selected-by in (...)" name;
	// every selecting kind for any other use (--group-by, !=, notin, exists).
	Selectors []index.Selector
	// OnRelated, when set, makes the relation index values follow changes from then on, of the
	// indexed objects, of their owners, of their nodes and of the selecting objects, and gets the
	// objects whose values a related object's change changed: t is the type as passed to
	// StartRelations, cause the related object as kind/name ("node/n1",
	// "replicaset/web-5d9c7", "service/web"). A watch sets it; a one-shot query does not.
	// Following also caches the built-in controller kinds (ReplicaSet, Deployment,
	// StatefulSet, DaemonSet, Job, CronJob) whether or not an object refers to them yet, since
	// objects and their owners may appear later.
	//
	// It is called from the related informers' handler goroutines, one related event at a time
	// per related type, after that cache holds the change; it must return quickly (hand the
	// changes to a queue).
	OnRelated func(t *Type, cause string, changes []RelationChange)
	// Events, when set, has the Events cached (see Relations.Events) even when no index of defs
	// reads them: for query's events column.
	Events bool
}

// UnreadableRelation is a related type a relation could not read; the relation's indexes then
// have no values from it (owner-root stops below it).
type UnreadableRelation struct {
	// Relation is the relation that reads the type.
	Relation index.Relation
	UnreadableType
}

// Relations are the relation indexes of one user's types, bound to the caches of their related
// types: StartRelations builds them, Shutdown ends them. Its methods are safe for concurrent
// use once StartRelations has returned.
type Relations struct {
	defs []index.Definition
	// given are the types as passed to StartRelations; types, the same with the relation
	// indexes (withRelations), in the same order.
	given, types []*Type
	onRelated    func(t *Type, cause string, changes []RelationChange)

	owners      *Owners
	selecting   *Each
	selectorSet *index.SelectorSet
	nodes       *Each
	pods        *Each
	events      *Each
	eventsIndex index.KubeEvents
	references  *references
	handlers    []handler
	unreadable  []UnreadableRelation
	// release, on a command's share of kept relations (see KeptRelations),
	// ends the command's use of them: what its Shutdown does.
	release func()
}

// builtinControllerKinds are the kinds of the built-in controllers, cached for a following user
// of owner-root whose objects and owners may appear after it starts.
var builtinControllerKinds = []schema.GroupKind{
	{Group: "apps", Kind: "ReplicaSet"}, {Group: "apps", Kind: "Deployment"},
	{Group: "apps", Kind: "StatefulSet"}, {Group: "apps", Kind: "DaemonSet"},
	{Group: "batch", Kind: "Job"}, {Group: "batch", Kind: "CronJob"},
}

// nodesGroupKind and podsGroupKind are the kinds the node relation indexes and selects read.
var (
	nodesGroupKind = schema.GroupKind{Kind: "Node"}
	podsGroupKind  = schema.GroupKind{Kind: "Pod"}
)

// StartRelations is the second phase of a command whose indexes include relation indexes
// (Definitions with a Relation). Once types have synced, it caches through cfg.Related what those
// indexes read: for owner-root, the owner types the objects' controller references lead to
// (StartOwners); for selected-by, the selecting kinds cfg.Selectors need, whole objects; for
// node.label:KEY and node.annotation:KEY, the nodes, metadata-only; for selects, the pods of
// cfg.Namespaces, metadata-only; for event.reason, event.type and event.message (or with
// cfg.Events), the Kubernetes Events, whole (startEvents). It then binds the relation indexes of defs to those caches and
// holds their values for each type (see Relations.Types), following changes when cfg.OnRelated
// is set.
//
// A related type that cannot be read does not fail it: Unreadable reports it. It fails when ctx
// ends, when a selector on selected-by names no selecting kind, or when the Node or Pod kind does
// not resolve; it has then released everything it started. With no relation index in defs it
// starts nothing and its Types are types. When cfg.Related keeps relations (RelationsKeeper) and
// cfg.OnRelated is unset, they are the set kept for the same types and indexes (KeptRelations).
func StartRelations(ctx context.Context, types []*Type, defs []index.Definition, cfg RelationsConfig) (*Relations, error) {
	r := &Relations{defs: defs, given: types, types: types, onRelated: cfg.OnRelated}
	needs := map[index.Relation]bool{}
	for _, def := range defs {
		if def.Relation != index.NoRelation {
			needs[def.Relation] = true
		}
	}
	if cfg.Events {
		needs[index.EventRelation] = true
	}
	if len(needs) == 0 {
		return r, nil
	}
	if cfg.Related == nil {
		return nil, errors.New("starting relation indexes: no related types")
	}
	if kept, related := keptRelationsOf(cfg); kept != nil {
		return kept.start(ctx, related, types, defs, needs, cfg)
	}
	if err := r.start(ctx, types, defs, needs, cfg); err != nil {
		r.Shutdown()
		return nil, err
	}
	return r, nil
}

// start is StartRelations once it knows which relations defs need; the caller shuts r down
// when it fails.
func (r *Relations) start(ctx context.Context, types []*Type, defs []index.Definition, needs map[index.Relation]bool, cfg RelationsConfig) error {
	var related index.Relations
	if needs[index.OwnerRelation] {
		if err := r.startOwners(ctx, types, cfg); err != nil {
			return err
		}
		related.Owners = r.owners
	}
	if needs[index.SelectorRelation] {
		if err := r.startSelecting(ctx, cfg); err != nil {
			return err
		}
		related.Selectors = r.selectorSet
	}
	if needs[index.NodeRelation] {
		nodes, err := r.startNodes(ctx, cfg)
		if err != nil {
			return err
		}
		related.Nodes = nodes
	}
	if needs[index.PodRelation] {
		pods, err := r.startPods(ctx, cfg)
		if err != nil {
			return err
		}
		related.Pods = pods
	}
	if needs[index.EventRelation] {
		events, err := r.startEvents(ctx, types, cfg)
		if err != nil {
			return err
		}
		related.Events = events
	}
	if needs[index.UsesRelation] || needs[index.UsedByRelation] {
		rs, err := r.startReferences(ctx, types, needs, cfg)
		r.references = rs
		if err != nil {
			return err
		}
		related.Referenced = rs
		if rs.set != nil {
			related.Users = rs.set
		}
	}
	bound := make([]index.Definition, len(defs))
	var added []index.Definition
	for i, def := range defs {
		bound[i] = index.Bind(def, related)
		if def.Relation != index.NoRelation {
			added = append(added, bound[i])
		}
	}
	r.defs = bound
	follow := cfg.OnRelated != nil
	r.types = make([]*Type, len(types))
	for i, t := range types {
		withRelations, handlers, err := t.withRelations(ctx, follow, added...)
		r.handlers = append(r.handlers, handlers...)
		if err != nil {
			return err
		}
		r.types[i] = withRelations
	}
	if !follow {
		return nil
	}
	if r.owners != nil {
		if err := r.followOwners(); err != nil {
			return err
		}
	}
	if r.nodes != nil && len(r.nodes.Types) > 0 {
		if err := r.followNodes(r.nodes.Types[0]); err != nil {
			return err
		}
	}
	if r.selectorSet != nil {
		if err := r.followSelectors(); err != nil {
			return err
		}
	}
	if r.events != nil && len(r.events.Types) > 0 {
		if err := r.followEvents(ctx, r.events.Types[0]); err != nil {
			return err
		}
	}
	if r.references != nil && r.references.each != nil {
		if err := r.followReferences(r.references); err != nil {
			return err
		}
	}
	return nil
}

// startOwners caches the owner types of the objects of types (StartOwners).
func (r *Relations) startOwners(ctx context.Context, types []*Type, cfg RelationsConfig) error {
	var seeds []interface{}
	for _, t := range types {
		objs, err := t.Lookup(nil)
		if err != nil {
			return err
		}
		seeds = append(seeds, objs...)
	}
	var kinds []schema.GroupKind
	if cfg.OnRelated != nil {
		kinds = builtinControllerKinds
	}
	owners, err := StartOwners(ctx, cfg.Related, seeds, OwnersConfig{Namespaces: cfg.Namespaces, SyncTimeout: cfg.SyncTimeout, Kinds: kinds})
	if err != nil {
		return err
	}
	r.owners = owners
	for _, u := range owners.Unreadable() {
		r.unreadable = append(r.unreadable, UnreadableRelation{Relation: index.OwnerRelation, UnreadableType: u})
	}
	return nil
}

// startSelecting caches the selecting kinds selected-by needs, whole, in cfg.Namespaces, and
// holds their pod selectors in r.selectorSet.
func (r *Relations) startSelecting(ctx context.Context, cfg RelationsConfig) error {
	kinds, err := index.SelectingKinds(cfg.Selectors)
	if err != nil {
		return err
	}
	var mappings []*meta.RESTMapping
	for _, gk := range kinds {
		mapping, err := cfg.Related.RESTMapper().RESTMapping(gk)
		if err != nil {
			r.unreadable = append(r.unreadable, UnreadableRelation{Relation: index.SelectorRelation,
				UnreadableType: UnreadableType{Name: gk.String(), Unresolved: true, Err: err}})
			continue
		}
		mappings = append(mappings, mapping)
	}
	each, err := cfg.Related.Start(ctx, mappings, Config{Namespaces: cfg.Namespaces, SyncTimeout: cfg.SyncTimeout, FullObjects: true})
	r.selecting = each
	if err != nil {
		return err
	}
	r.addUnreadable(index.SelectorRelation, each)
	var objs []interface{}
	for _, t := range each.Types {
		typeObjs, err := t.Lookup(nil)
		if err != nil {
			return err
		}
		objs = append(objs, typeObjs...)
	}
	r.selectorSet = index.NewSelectorSet(objs)
	return nil
}

// startNodes caches the nodes, metadata-only, for the node relation indexes; nil when they
// cannot be read.
func (r *Relations) startNodes(ctx context.Context, cfg RelationsConfig) (index.Nodes, error) {
	mapping, err := cfg.Related.RESTMapper().RESTMapping(nodesGroupKind)
	if err != nil {
		return nil, fmt.Errorf("resolving nodes: %w", err)
	}
	each, err := cfg.Related.Start(ctx, []*meta.RESTMapping{mapping}, Config{SyncTimeout: cfg.SyncTimeout})
	r.nodes = each
	if err != nil {
		return nil, err
	}
	r.addUnreadable(index.NodeRelation, each)
	if len(each.Types) == 0 {
		return nil, nil
	}
	return index.NodeIndexer{Indexer: each.Types[0].Informers[0].GetIndexer()}, nil
}

// startPods caches the pods of cfg.Namespaces (none: all), metadata-only, for the selects
// index; nil when they cannot be read.
func (r *Relations) startPods(ctx context.Context, cfg RelationsConfig) (index.Pods, error) {
	mapping, err := cfg.Related.RESTMapper().RESTMapping(podsGroupKind)
	if err != nil {
		return nil, fmt.Errorf("resolving pods: %w", err)
	}
	each, err := cfg.Related.Start(ctx, []*meta.RESTMapping{mapping}, Config{Namespaces: cfg.Namespaces, SyncTimeout: cfg.SyncTimeout})
	r.pods = each
	if err != nil {
		return nil, err
	}
	r.addUnreadable(index.PodRelation, each)
	if len(each.Types) == 0 {
		return nil, nil
	}
	var indexers []toolscache.Indexer
	for _, informer := range each.Types[0].Informers {
		indexers = append(indexers, informer.GetIndexer())
	}
	return index.PodIndexer{Indexers: indexers}, nil
}

// addUnreadable records each's unreadable types as unreadable by rel.
func (r *Relations) addUnreadable(rel index.Relation, each *Each) {
	for _, u := range each.Unreadable {
		r.unreadable = append(r.unreadable, UnreadableRelation{Relation: rel, UnreadableType: u})
	}
}

// Definitions returns the defs StartRelations got, in the same order, with the relation indexes
// bound to the related caches (see index.Bind): what a watch evaluates on each event, and
// what a grouping reads. The caller must not change the slice.
func (r *Relations) Definitions() []index.Definition { return r.defs }

// Types returns the types StartRelations got, in the same order, each with the relation
// indexes of defs: their Lookup and Count answer them. They share the informers of the types
// given, which are not changed: another user of those informers has relation indexes of its
// own. The caller must not change the slice.
func (r *Relations) Types() []*Type { return r.types }

// Unreadable returns the related types that could not be read: the owner types (sorted by
// name), then the selecting kinds, the nodes, the pods and the Events (in the order they were
// tried).
func (r *Relations) Unreadable() []UnreadableRelation { return r.unreadable }

// Shutdown removes every event handler the relations registered, on the indexed types' and the
// related types' informers, then ends the use of the related types (with SourceTypes, stops
// their informers). Indexes added to informers stay. OnRelated is not called once Shutdown
// has returned, except by a handler that was already running. It may be called on a nil
// *Relations.
func (r *Relations) Shutdown() {
	if r == nil {
		return
	}
	if r.release != nil {
		r.release()
		return
	}
	for _, h := range r.handlers {
		h.remove()
	}
	r.handlers = nil
	r.owners.Shutdown()
	r.selecting.Shutdown()
	r.nodes.Shutdown()
	r.pods.Shutdown()
	r.events.Shutdown()
	r.references.Shutdown()
}
