package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	toolscache "k8s.io/client-go/tools/cache"

	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// RelationsKeeper is implemented by RelatedTypes whose one-shot commands
// share their relation indexes (a warm cache): StartRelations, without
// RelationsConfig.OnRelated, then asks KeptRelations for them instead of
// building them over the whole cache for each command.
type RelationsKeeper interface {
	// KeptRelations returns the relation indexes kept between commands
	// (nil keeps none) and the related types a kept set leases, which
	// outlive the command that built it.
	KeptRelations() (*KeptRelations, RelatedTypes)
}

// KeptRelationsUser is implemented by a RelationsKeeper whose commands
// follow the related types of the kept set they read (a warm cache prints
// their API warnings on the command's stderr, as the command's own lists
// would): UseRelated gets them when a command starts reading the set, and
// the func it returns is called when the command ends its use of it.
type KeptRelationsUser interface {
	UseRelated(related []*Type) (done func())
}

// UnwrapInformer is implemented by an informer that reads another one
// under other names (a warm cache's renamed indexes): KeptRelations tells
// informers apart by the one they wrap.
type UnwrapInformer interface {
	Unwrap() toolscache.SharedIndexInformer
}

// KeptRelations keeps the relation indexes of one-shot commands once one
// has asked for them, following every change from then on, so that later
// commands that ask for the same indexes over the same types read them
// directly. A kept set is built as a watch's relations are
// (StartRelations with following): each change of an indexed object
// refreshes its values, and each change of a related object (an owner, a
// node, a selecting object, a referred or referring object, an Event)
// refreshes the values of the objects it may change; its values are those
// a fresh build would compute from what the caches hold, once the
// informers' handlers have seen the changes.
//
// Sets are kept by the indexed types' informers and views, the relation
// index names, the namespaces and the selecting kinds selected-by reads.
// A set is built by the first command that asks for it (the others wait
// for it), is not kept when a related type could not be read (the next
// command tries again), and is shut down, ending its use of the related
// types, once it has had no command for the idle duration, when Drop
// names one of its informers, or at Shutdown; a set with owner-root is
// dropped as soon as an object gains a controller of a kind it does not
// cache (the next command builds afresh). Relations that read the
// pods of the namespace (selects), which do not follow the pods, are
// never kept.
//
// A KeptRelations is safe for concurrent use.
type KeptRelations struct {
	idle time.Duration

	mu     sync.Mutex
	kept   map[string]*keptRelations
	closed bool
}

// keptRelations is one kept set of relation indexes.
type keptRelations struct {
	key string
	// informers are the indexed types' informers, unwrapped.
	informers []toolscache.SharedIndexInformer
	// ready is closed once the set is built; r or err is set then.
	ready chan struct{}
	r     *Relations
	err   error

	// Guarded by KeptRelations.mu.
	users   int
	timer   *time.Timer
	dropped bool
}

// errNotKept says that a set was built but not kept; its waiters build
// their own.
var errNotKept = errors.New("relation indexes not kept")

// NewKeptRelations returns an empty KeptRelations whose sets are shut down
// after idle without a command; 0 keeps them until Drop or Shutdown.
func NewKeptRelations(idle time.Duration) *KeptRelations {
	return &KeptRelations{idle: idle, kept: map[string]*keptRelations{}}
}

// keptRelationsOf returns the KeptRelations cfg's related types keep, if
// the relations of a command with cfg may be kept: a one-shot command
// (no OnRelated).
func keptRelationsOf(cfg RelationsConfig) (*KeptRelations, RelatedTypes) {
	if cfg.OnRelated != nil {
		return nil, nil
	}
	keeper, ok := cfg.Related.(RelationsKeeper)
	if !ok {
		return nil, nil
	}
	return keeper.KeptRelations()
}

// startRelations builds r's relations for one command, without keeping
// them: what StartRelations does for a command that keeps none.
func startRelations(ctx context.Context, types []*Type, defs []index.Definition, needs map[index.Relation]bool, cfg RelationsConfig) (*Relations, error) {
	r := &Relations{defs: defs, given: types, types: types, onRelated: cfg.OnRelated}
	if err := r.start(ctx, types, defs, needs, cfg); err != nil {
		r.Shutdown()
		return nil, err
	}
	return r, nil
}

// start returns the relations of one command: a kept set's, shared, whose
// Shutdown ends the command's use of the set, or the command's own when
// the set cannot be kept. A set is built over related, not cfg.Related.
func (k *KeptRelations) start(ctx context.Context, related RelatedTypes, types []*Type, defs []index.Definition, needs map[index.Relation]bool, cfg RelationsConfig) (*Relations, error) {
	if needs[index.PodRelation] {
		return startRelations(ctx, types, defs, needs, cfg)
	}
	key, err := keptKey(types, defs, needs, cfg)
	if err != nil {
		return nil, err
	}
	k.mu.Lock()
	if k.closed {
		k.mu.Unlock()
		return startRelations(ctx, types, defs, needs, cfg)
	}
	kr, ok := k.kept[key]
	build := !ok
	if build {
		kr = &keptRelations{key: key, informers: unwrappedInformers(types), ready: make(chan struct{})}
		k.kept[key] = kr
	}
	kr.users++
	if kr.timer != nil {
		kr.timer.Stop()
		kr.timer = nil
	}
	k.mu.Unlock()

	if build {
		following := cfg
		following.OnRelated = func(*Type, string, []RelationChange) {}
		following.Related = related
		r, err := startRelations(ctx, types, defs, needs, following)
		switch {
		case err != nil:
			kr.err = err
		case len(r.Unreadable()) > 0:
			// A fresh build would try the related types again.
			kr.err = errNotKept
		default:
			kr.r = r
			if err := k.watchOwnerKinds(kr); err != nil {
				r.Shutdown()
				kr.r, kr.err = nil, err
			}
		}
		if kr.err != nil {
			k.forget(kr)
		}
		close(kr.ready)
		if kr.err == errNotKept {
			// Built again as the command's own, over cfg.Related: the
			// command reads the related types as a command that keeps none.
			r.Shutdown()
			return startRelations(ctx, types, defs, needs, cfg)
		}
		if kr.err != nil {
			return nil, kr.err
		}
	} else {
		select {
		case <-kr.ready:
		case <-ctx.Done():
			k.release(kr)
			return nil, ctx.Err()
		}
		if kr.err != nil {
			return startRelations(ctx, types, defs, needs, cfg)
		}
	}
	release := func() { k.release(kr) }
	if user, ok := cfg.Related.(KeptRelationsUser); ok {
		done := user.UseRelated(kr.r.relatedTypes())
		release = func() {
			done()
			k.release(kr)
		}
	}
	return kr.borrow(types, defs, release), nil
}

// relatedTypes returns the related types r reads: the owner types, the
// selecting kinds, the nodes, the pods, the Events and the types of the
// reference indexes.
func (r *Relations) relatedTypes() []*Type {
	var out []*Type
	if r.owners != nil {
		out = append(out, r.owners.Types()...)
	}
	for _, each := range []*Each{r.selecting, r.nodes, r.pods, r.events} {
		if each != nil {
			out = append(out, each.Types...)
		}
	}
	if r.references != nil && r.references.each != nil {
		out = append(out, r.references.each.Types...)
	}
	return out
}

// watchOwnerKinds drops kr, for the next command to build afresh, when an
// indexed object or a cached owner gains a controller of a kind kr's
// owner-root does not cache: a fresh build would cache that kind too.
// The handlers are kr's relations', which its Shutdown removes.
func (k *KeptRelations) watchOwnerKinds(kr *keptRelations) error {
	r := kr.r
	if r.owners == nil {
		return nil
	}
	check := func(obj interface{}) {
		if gvk, ok := controllerKind(obj); ok && r.owners.Type(gvk.GroupKind()) == nil {
			k.invalidate(kr)
		}
	}
	h := toolscache.ResourceEventHandlerFuncs{
		AddFunc:    check,
		UpdateFunc: func(_, newObj interface{}) { check(newObj) },
	}
	for _, t := range append(append([]*Type{}, r.given...), r.owners.Types()...) {
		if err := r.addHandlers(t, h); err != nil {
			return err
		}
	}
	return nil
}

// invalidate takes kr out of k, for later commands to build afresh; it is
// shut down once no command uses it.
func (k *KeptRelations) invalidate(kr *keptRelations) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if kr.dropped {
		return
	}
	kr.dropped = true
	if k.kept[kr.key] == kr {
		delete(k.kept, kr.key)
	}
	if kr.timer != nil {
		kr.timer.Stop()
		kr.timer = nil
	}
	if kr.users == 0 {
		// Not on the handler's goroutine, whose handler Shutdown removes.
		go kr.shutdown()
	}
}

// forget takes kr, which failed or is not kept, out of k.
func (k *KeptRelations) forget(kr *keptRelations) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.kept[kr.key] == kr {
		delete(k.kept, kr.key)
	}
	kr.dropped = true
	kr.users = 0
}

// release ends one command's use of kr: the last one starts its idle
// clock, or shuts it down if it was dropped meanwhile.
func (k *KeptRelations) release(kr *keptRelations) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if kr.users == 0 {
		return
	}
	kr.users--
	if kr.users > 0 {
		return
	}
	if kr.dropped || k.closed {
		go kr.shutdown()
		return
	}
	if k.idle > 0 {
		kr.timer = time.AfterFunc(k.idle, func() { k.evictIdle(kr) })
	}
}

// evictIdle shuts kr down if it still has no command.
func (k *KeptRelations) evictIdle(kr *keptRelations) {
	k.mu.Lock()
	if kr.users > 0 || kr.dropped {
		k.mu.Unlock()
		return
	}
	kr.dropped = true
	if k.kept[kr.key] == kr {
		delete(k.kept, kr.key)
	}
	k.mu.Unlock()
	kr.shutdown()
}

// shutdown ends kr's following and its use of the related types.
func (kr *keptRelations) shutdown() {
	<-kr.ready
	kr.r.Shutdown()
}

// Drop shuts down the sets that index an object of informers (an engine
// that stops): at once when no command uses them, else when the last one
// ends.
func (k *KeptRelations) Drop(informers []toolscache.SharedIndexInformer) {
	var idle []*keptRelations
	k.mu.Lock()
	for key, kr := range k.kept {
		if !slices.ContainsFunc(kr.informers, func(i toolscache.SharedIndexInformer) bool {
			return slices.Contains(informers, i)
		}) {
			continue
		}
		if k.dropLocked(key, kr) {
			idle = append(idle, kr)
		}
	}
	k.mu.Unlock()
	for _, kr := range idle {
		kr.shutdown()
	}
}

// dropLocked stops keeping kr (under key) for later commands and reports
// whether no command uses it, so that the caller shuts it down once k.mu is
// released; k.mu is held.
func (k *KeptRelations) dropLocked(key string, kr *keptRelations) bool {
	delete(k.kept, key)
	kr.dropped = true
	if kr.timer != nil {
		kr.timer.Stop()
		kr.timer = nil
	}
	return kr.users == 0
}

// Len returns how many sets of relation indexes k keeps.
func (k *KeptRelations) Len() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.kept)
}

// Shutdown shuts down every set no command uses, and the others when their
// last command ends; later commands keep none.
func (k *KeptRelations) Shutdown() {
	k.mu.Lock()
	k.closed = true
	var idle []*keptRelations
	for key, kr := range k.kept {
		if k.dropLocked(key, kr) {
			idle = append(idle, kr)
		}
	}
	k.mu.Unlock()
	for _, kr := range idle {
		kr.shutdown()
	}
}

// borrow returns the relations of one command over kr's set: its types are
// types (the command's, read as the command reads them) answering kr's
// relation indexes, its Definitions defs with the relation indexes bound
// as kr's are, and its Shutdown calls release once.
func (kr *keptRelations) borrow(types []*Type, defs []index.Definition, release func()) *Relations {
	bound := map[string]index.Definition{}
	for _, def := range kr.r.defs {
		if def.Relation != index.NoRelation {
			bound[def.Name] = def
		}
	}
	out := make([]index.Definition, len(defs))
	for i, def := range defs {
		out[i] = def
		if b, ok := bound[def.Name]; ok && def.Relation != index.NoRelation {
			out[i] = b
		}
	}
	withRelations := make([]*Type, len(types))
	for i, t := range types {
		withRelations[i] = &Type{Mapping: t.Mapping, Kind: t.Kind, Informers: t.Informers, view: t.view, relations: kr.r.types[i].relations}
	}
	return &Relations{defs: out, given: types, types: withRelations, eventsIndex: kr.r.eventsIndex, release: sync.OnceFunc(release)}
}

// unwrappedInformers returns the informers of types, each unwrapped (see
// UnwrapInformer).
func unwrappedInformers(types []*Type) []toolscache.SharedIndexInformer {
	var out []toolscache.SharedIndexInformer
	for _, t := range types {
		for _, informer := range t.Informers {
			out = append(out, unwrapInformer(informer))
		}
	}
	return out
}

// unwrapInformer returns the informer informer wraps, if it wraps one.
func unwrapInformer(informer toolscache.SharedIndexInformer) toolscache.SharedIndexInformer {
	for {
		w, ok := informer.(UnwrapInformer)
		if !ok {
			return informer
		}
		informer = w.Unwrap()
	}
}

// keptKey is what tells two commands' relation indexes apart: the indexed
// types (their informers and views), the relation index names, the
// namespaces the related types are cached in, the selecting kinds
// selected-by reads and whether the Events are cached.
func keptKey(types []*Type, defs []index.Definition, needs map[index.Relation]bool, cfg RelationsConfig) (string, error) {
	var b strings.Builder
	for _, t := range types {
		fmt.Fprintf(&b, "type %s", t.Mapping.Resource)
		for _, informer := range t.Informers {
			fmt.Fprintf(&b, " %p", unwrapInformer(informer))
		}
		if t.view != nil {
			fmt.Fprintf(&b, " view %q", strings.Join(t.view.namespaces, ","))
			if t.view.selector != nil {
				fmt.Fprintf(&b, " %q", t.view.selector.String())
			}
		}
		b.WriteString("\n")
	}
	var names []string
	for _, def := range defs {
		if def.Relation != index.NoRelation {
			names = append(names, def.Name)
		}
	}
	fmt.Fprintf(&b, "indexes %q\n", slices.Compact(slices.Sorted(slices.Values(names))))
	fmt.Fprintf(&b, "namespaces %q\n", slices.Compact(slices.Sorted(slices.Values(cfg.Namespaces))))
	if needs[index.SelectorRelation] {
		kinds, err := index.SelectingKinds(cfg.Selectors)
		if err != nil {
			return "", err
		}
		var ks []string
		for _, gk := range kinds {
			ks = append(ks, gk.String())
		}
		fmt.Fprintf(&b, "selecting %q\n", slices.Compact(slices.Sorted(slices.Values(ks))))
	}
	fmt.Fprintf(&b, "events %t\n", needs[index.EventRelation])
	return b.String(), nil
}
