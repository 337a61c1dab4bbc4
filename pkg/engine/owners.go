package engine

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// maxOwnerRounds bounds how many levels of owner types StartOwners discovers: Pod → ReplicaSet →
// Deployment is two, a CRD above a Deployment three.
const maxOwnerRounds = 8

// OwnersConfig says where StartOwners looks for owners and what it caches of them.
type OwnersConfig struct {
	// Namespaces are the namespaces of the dependents, none for all. Owners of namespaced
	// dependents are in the dependent's namespace (the API server does not let a reference cross
	// namespaces); cluster-scoped owner types are cached across the cluster.
	Namespaces []string
	// FullObjects caches whole owner objects (for status columns) instead of metadata only.
	FullObjects bool
	// SyncTimeout bounds each owner type's first sync; 0 means 60s.
	SyncTimeout time.Duration
	// Kinds are cached with the first level whether or not a seed refers to them, for a
	// long-running user (watch) whose dependents and owners appear later: e.g. ReplicaSet,
	// Deployment, Job, CronJob. Their owners are discovered from their objects like the others'.
	Kinds []schema.GroupKind
}

// UnreadableType is a type StartEach, StartOwners or a RelatedTypes could not cache: not
// served, or not readable by the user (RBAC). Walks up the owners stop at references to an owner
// type that is unreadable.
type UnreadableType struct {
	// Name is the resource ("replicasets.apps"), or, when the type did not resolve, the group
	// and kind ("PodDisruptionBudget.policy"), or for an owner type the apiVersion and kind of
	// the reference ("example.com/v1, Kind=Widget").
	Name string
	// Unresolved says the type did not resolve through the REST mapper: the source does not
	// serve it.
	Unresolved bool
	// Err says why.
	Err error
}

// Owners holds the caches of the types that own a set of objects, up to their top-most
// controllers, obtained through a RelatedTypes (with SourceTypes, each in an engine of its own,
// so that one unreadable type does not fail the others). It is the index.Owners of owner-root and index.OwnerChain, safe for concurrent use once
// StartOwners has returned; Shutdown ends the
// informers.
type Owners struct {
	held       []*Each
	indexers   index.OwnerIndexers
	types      map[schema.GroupKind]*Type
	unreadable []UnreadableType
}

// StartOwners discovers the owner types of seeds and caches them through related, level by
// level: the kinds of the seeds' controller references (and cfg.Kinds) (resolved through
// related.RESTMapper() from their apiVersion and kind, in the reference's version or else the
// preferred one), then the kinds of those owners'
// controller references, until no new kind appears or maxOwnerRounds levels are held. Each level's informers are created and started, and synced,
// before the next level is discovered from their objects, so every informer exists before it
// starts. Seeds are objects already cached (typed, unstructured or metadata-only).
//
// A type that does not resolve, or whose list fails (forbidden, not served, sync timeout), is
// reported in Unreadable and not followed; StartOwners fails only when ctx ends. Objects are
// cached metadata-only unless cfg.FullObjects, with no label or field selector: an owner is
// found whatever selected its dependents.
func StartOwners(ctx context.Context, related RelatedTypes, seeds []interface{}, cfg OwnersConfig) (*Owners, error) {
	o := &Owners{indexers: index.OwnerIndexers{}, types: map[schema.GroupKind]*Type{}}
	tried := map[schema.GroupKind]bool{}
	frontier := seeds
	for round := 0; round < maxOwnerRounds && (len(frontier) > 0 || round == 0); round++ {
		var mappings []*meta.RESTMapping
		kinds := controllerKinds(frontier)
		if round == 0 {
			for _, gk := range cfg.Kinds {
				kinds = append(kinds, gk.WithVersion(""))
			}
		}
		for _, gvk := range kinds {
			if tried[gvk.GroupKind()] {
				continue
			}
			tried[gvk.GroupKind()] = true
			mapping, err := related.RESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version)
			if err != nil {
				// A reference written in a version the server no longer serves
				// still names a kind it may serve in another.
				mapping, err = related.RESTMapper().RESTMapping(gvk.GroupKind())
			}
			if err != nil {
				o.unreadable = append(o.unreadable, UnreadableType{Name: gvk.String(), Unresolved: true, Err: fmt.Errorf("resolving owner type: %w", err)})
				continue
			}
			mappings = append(mappings, mapping)
		}
		if len(mappings) == 0 {
			break
		}
		started, err := o.startLevel(ctx, related, mappings, cfg)
		if err != nil {
			o.Shutdown()
			return nil, err
		}
		frontier = nil
		for _, t := range started {
			objs, err := t.Lookup(nil)
			if err != nil {
				o.Shutdown()
				return nil, err
			}
			frontier = append(frontier, objs...)
		}
	}
	sort.Slice(o.unreadable, func(i, j int) bool { return o.unreadable[i].Name < o.unreadable[j].Name })
	return o, nil
}

// startLevel caches one level of owner types and adds them to o's indexers. It returns the types
// that synced, and an error only when ctx ended.
func (o *Owners) startLevel(ctx context.Context, related RelatedTypes, mappings []*meta.RESTMapping, cfg OwnersConfig) ([]*Type, error) {
	each, err := related.Start(ctx, mappings, Config{
		Namespaces:  cfg.Namespaces,
		FullObjects: cfg.FullObjects,
		SyncTimeout: cfg.SyncTimeout,
	})
	if each != nil {
		o.held = append(o.held, each)
	}
	if err != nil {
		return nil, err
	}
	o.unreadable = append(o.unreadable, each.Unreadable...)
	for _, t := range each.Types {
		gk := t.Mapping.GroupVersionKind.GroupKind()
		o.indexers[gk] = t
		o.types[gk] = t
	}
	return each.Types, nil
}

// Each is the result of StartEach, or of a RelatedTypes' Start: the types that synced, and
// those that could not be read. Shutdown ends the holder's use of the types.
type Each struct {
	// Types are the synced types, in the order of the mappings.
	Types []*Type
	// Unreadable are the types whose engine failed to start, in the order of the mappings.
	Unreadable []UnreadableType

	release  func()
	shutdown sync.Once
}

// NewEach returns the Each of types held by someone else (a warm cache's leases), whose
// Shutdown calls release once.
func NewEach(types []*Type, unreadable []UnreadableType, release func()) *Each {
	return &Each{Types: types, Unreadable: unreadable, release: release}
}

// Shutdown ends the use of e's types: StartEach's engines are stopped, a NewEach's release is
// called. It may be called more than once, and on a nil *Each.
func (e *Each) Shutdown() {
	if e == nil {
		return
	}
	e.shutdown.Do(func() {
		if e.release != nil {
			e.release()
		}
	})
}

// StartEach creates one engine per mapping with cfg, starts them concurrently and waits for
// each to sync or fail, so that a type the user may not read, or that is not served, is reported
// in Unreadable instead of failing the others. It returns an error only when ctx ends; the
// caller calls Shutdown on the result in every case.
func StartEach(ctx context.Context, source Source, mappings []*meta.RESTMapping, cfg Config) (*Each, error) {
	errs := make([]error, len(mappings))
	engines := make([]*Engine, len(mappings))
	var started []*Engine
	each := &Each{release: func() {
		for _, eng := range started {
			eng.Shutdown()
		}
	}}
	var wg sync.WaitGroup
	for i, mapping := range mappings {
		eng, err := New(source, []*meta.RESTMapping{mapping}, cfg)
		if err != nil {
			errs[i] = err
			continue
		}
		engines[i] = eng
		started = append(started, eng)
		wg.Go(func() { errs[i] = eng.Start(ctx) })
	}
	wg.Wait()
	if ctx.Err() != nil {
		return each, ctx.Err()
	}
	for i, mapping := range mappings {
		if errs[i] != nil {
			name := mapping.Resource.GroupResource().String()
			klog.V(1).InfoS("type unreadable", "type", name, "err", errs[i])
			each.Unreadable = append(each.Unreadable, UnreadableType{Name: name, Err: errs[i]})
			continue
		}
		each.Types = append(each.Types, engines[i].Types()[0])
	}
	return each, nil
}

// controllerKinds returns the distinct group-version-kinds of objs' controller references, in
// a stable order.
func controllerKinds(objs []interface{}) []schema.GroupVersionKind {
	seen := map[schema.GroupKind]schema.GroupVersionKind{}
	for _, obj := range objs {
		if d, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		gvk, ok := controllerKind(obj)
		if !ok {
			continue
		}
		if _, ok := seen[gvk.GroupKind()]; !ok {
			seen[gvk.GroupKind()] = gvk
		}
	}
	kinds := make([]schema.GroupVersionKind, 0, len(seen))
	for _, gvk := range seen {
		kinds = append(kinds, gvk)
	}
	sort.Slice(kinds, func(i, j int) bool { return kinds[i].String() < kinds[j].String() })
	return kinds
}

// controllerKind returns the kind of obj's controller (its ownerReference
// with controller set), and false when it has none or its apiVersion does
// not parse.
func controllerKind(obj interface{}) (schema.GroupVersionKind, bool) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return schema.GroupVersionKind{}, false
	}
	ref := metav1.GetControllerOfNoCopy(m)
	if ref == nil {
		return schema.GroupVersionKind{}, false
	}
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil {
		return schema.GroupVersionKind{}, false
	}
	return gv.WithKind(ref.Kind), true
}

// Owner implements index.Owners over the cached owner types.
func (o *Owners) Owner(namespace string, ref metav1.OwnerReference) (metav1.Object, bool) {
	return o.indexers.Owner(namespace, ref)
}

// Type returns the cached owner type of gk, or nil when it is not held.
func (o *Owners) Type(gk schema.GroupKind) *Type { return o.types[gk] }

// Types returns the cached owner types, in the order they were started.
func (o *Owners) Types() []*Type {
	var types []*Type
	for _, each := range o.held {
		for _, t := range each.Types {
			if o.types[t.Mapping.GroupVersionKind.GroupKind()] == t {
				types = append(types, t)
			}
		}
	}
	return types
}

// Unreadable returns the owner types that could not be cached, sorted by name.
func (o *Owners) Unreadable() []UnreadableType { return o.unreadable }

// Shutdown ends the use of every owner type (with SourceTypes, stops their informers and waits
// for them to end). It may be called on a nil *Owners.
func (o *Owners) Shutdown() {
	if o == nil {
		return
	}
	for _, each := range o.held {
		each.Shutdown()
	}
}
