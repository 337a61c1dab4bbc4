// Package offline is an engine.Source over objects held in memory: those of
// a dump read from files, or the state of a recording being replayed. Its
// REST mapper needs no discovery, its lists apply namespaces and selectors
// as the API server does, and its watches deliver the changes Apply makes.
// A dump opened with OpenDump is read a type at a time, as the types are
// asked.
package offline

import (
	"context"
	"fmt"
	goruntime "runtime"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/manifest"
)

// Source is an engine.Source over objects held in memory. Its feeds serve
// whole objects: typed (client-go's Go types) for the kinds client-go's
// scheme holds, as a live API server's feeds do, unstructured for the
// others. Lists apply the namespace, the label selector and the field
// selectors the API server supports for the type; watches stay open and
// idle until Apply changes an object they select, or they are stopped.
//
// Source is safe for concurrent use. Its resourceVersion starts at the
// highest numeric resourceVersion of the objects and only grows.
type Source struct {
	// mapper is the REST mapper users resolve types with: that of
	// discovered, or a dump's lazy one (dumpMapper).
	mapper meta.RESTMapper
	// discovered is what discovery lists of the types held.
	discovered atomic.Pointer[discovered]
	// dump is the dump whose files the source reads as types are asked,
	// nil when it holds all its objects from the start; learnMu
	// serialises its reads.
	dump    *manifest.Dump
	learnMu sync.Mutex
	kinds   *kindsSeen

	mu sync.RWMutex
	// objects holds the objects by kind, then by storage key.
	objects map[schema.GroupKind]map[string]*entry
	// rv is the source's resourceVersion: that of its last change.
	rv uint64
	// log holds the last changes, for watches that start from an earlier
	// resourceVersion than rv (a list made before a change).
	log []change
	// logFrom is the resourceVersion after which log holds every change.
	logFrom uint64
	watches map[*feedWatch]bool

	finishOnce sync.Once
	finished   chan struct{}

	// offered counts the events queued for watches, less those a stopped
	// watch dropped: see Offered.
	offered atomic.Int64
}

// entry is one object held, with what lists select it by.
type entry struct {
	// obj is a typed object where the scheme holds the kind, else an
	// *unstructured.Unstructured.
	obj  runtime.Object
	gvk  schema.GroupVersionKind
	ns   string
	name string
	// resourceVersion is the object's, as read.
	resourceVersion string
	labels          labels.Set
	// fields are the object's selectable fields, made on first use by
	// fieldsOnce for a typed object (they need its JSON-like content).
	fields     fields.Set
	fieldsOnce sync.Once
	// shared says obj may be handed out itself rather than copied: see
	// sharable.
	shared bool
}

// fieldSet returns e's selectable fields.
func (e *entry) fieldSet() fields.Set {
	if set, ok := typedFieldSet(e.obj, e.name, e.ns); ok {
		// Read from the Go type each time: cheaper than holding a set
		// per object.
		return set
	}
	e.fieldsOnce.Do(func() {
		if e.fields != nil {
			return
		}
		content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(e.obj)
		if err != nil {
			// A typed object always has JSON-like content.
			content = map[string]interface{}{}
		}
		u := &unstructured.Unstructured{Object: content}
		u.SetName(e.name)
		u.SetNamespace(e.ns)
		e.fields = fieldSet(e.gvk.GroupKind(), u)
	})
	return e.fields
}

// change is one change Apply made.
type change struct {
	rv       uint64
	t        watch.EventType
	gk       schema.GroupKind
	old, new *entry // old is nil for an add, new is the deleted object for a delete
}

// logSize is how many changes a source keeps for watches that start late.
const logSize = 4096

// NewSource returns a source holding copies of objects; see
// NewSourceOf. An object that does not convert to its kind's Go type is
// an error naming it.
func NewSource(objects []*unstructured.Unstructured, types []*meta.RESTMapping) (*Source, error) {
	held := make([]runtime.Object, len(objects))
	for i, obj := range objects {
		held[i] = obj
	}
	return newSource(held, types, false)
}

// NewSourceOf returns a source holding objects themselves, which it
// takes: the caller must not use them afterwards. Each is typed (a Go
// type of client-go's scheme, with its kind and apiVersion set, as
// Typed makes them) or an *unstructured.Unstructured, which is converted
// to its Go type where the scheme holds its kind. types are types known
// beside those the objects imply (a recording's recorded types; nil for a
// dump). The REST mapper lists the built-in types with their short names,
// the custom resources the CRDs among objects define, types, and the
// other kinds objects have (their resource guessed from the kind). An
// object of a namespaced kind without a namespace is held in namespace
// "default".
func NewSourceOf(objects []runtime.Object, types []*meta.RESTMapping) (*Source, error) {
	return newSource(objects, types, true)
}

// Typed returns a new object of gvk's Go type where the source serves gvk
// typed, else nil: the manifest.Options.Typed that reads objects for
// NewSourceOf.
func Typed(gvk schema.GroupVersionKind) runtime.Object {
	if !servesTyped(gvk) {
		return nil
	}
	obj, err := scheme.Scheme.New(gvk)
	if err != nil {
		return nil
	}
	return obj
}

// newSource holds objects, or copies of those it changes unless own.
func newSource(objects []runtime.Object, types []*meta.RESTMapping, own bool) (*Source, error) {
	d := newDiscovery(objects, types)
	s := &Source{
		objects:  map[schema.GroupKind]map[string]*entry{},
		watches:  map[*feedWatch]bool{},
		finished: make(chan struct{}),
	}
	s.discovered.Store(newDiscovered(d))
	s.mapper = s.discovered.Load().mapper
	entries, err := s.newEntries(objects, own)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if rv, err := strconv.ParseUint(e.resourceVersion, 10, 64); err == nil && rv > s.rv {
			s.rv = rv
		}
		s.kind(e.gvk.GroupKind())[key(e.ns, e.name)] = e
	}
	s.logFrom = s.rv
	return s, nil
}

// newEntries makes the entries of objects on every CPU; the error is that
// of the first object, in order, that fails.
func (s *Source) newEntries(objects []runtime.Object, own bool) ([]*entry, error) {
	entries := make([]*entry, len(objects))
	errs := make([]error, len(objects))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range goruntime.GOMAXPROCS(0) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(objects) {
					return
				}
				entries[i], errs[i] = s.objectEntry(objects[i], own)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return entries, nil
}

// objectEntry makes the entry of obj, typed or unstructured.
func (s *Source) objectEntry(obj runtime.Object, own bool) (*entry, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		if own && u.GetNamespace() == "" && s.namespaced(u.GroupVersionKind()) {
			u.SetNamespace(metav1.NamespaceDefault)
		}
		e, err := newEntry(s.inNamespace(u))
		if err == nil && !own && e.obj == obj {
			// The caller's own object: lists hand out copies of it.
			e.shared = false
		}
		return e, err
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, err
	}
	gvk := obj.GetObjectKind().GroupVersionKind()
	if m.GetNamespace() == "" && s.namespaced(gvk) {
		if !own {
			obj = obj.DeepCopyObject()
			m, _ = meta.Accessor(obj)
		}
		m.SetNamespace(metav1.NamespaceDefault)
	}
	e := &entry{
		obj: obj, gvk: gvk, ns: m.GetNamespace(), name: m.GetName(), resourceVersion: m.GetResourceVersion(),
		labels: labels.Set(m.GetLabels()), shared: own && sharable(obj),
	}
	if _, ok := fieldsByKind[gvk.GroupKind()]; !ok {
		// Only metadata's fields: no need of the content.
		e.fields = fields.Set{"metadata.name": e.name}
		if e.ns != "" {
			e.fields["metadata.namespace"] = e.ns
		}
	}
	return e, nil
}

// namespaced reports whether the mapper knows gvk's kind as namespaced.
func (s *Source) namespaced(gvk schema.GroupVersionKind) bool {
	mapping, err := s.discovered.Load().mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	return err == nil && mapping.Scope.Name() == meta.RESTScopeNameNamespace
}

// inNamespace returns obj, or a copy of it in namespace "default" when its
// kind is namespaced and it names no namespace (a manifest written to be
// applied), as kubectl apply would create it.
func (s *Source) inNamespace(obj *unstructured.Unstructured) *unstructured.Unstructured {
	if obj.GetNamespace() != "" || !s.namespaced(obj.GroupVersionKind()) {
		return obj
	}
	obj = obj.DeepCopy()
	obj.SetNamespace(metav1.NamespaceDefault)
	return obj
}

// newEntry converts obj to the Go type of its kind where the scheme holds
// it.
func newEntry(obj *unstructured.Unstructured) (*entry, error) {
	gvk := obj.GroupVersionKind()
	e := &entry{
		obj: obj, gvk: gvk, ns: obj.GetNamespace(), name: obj.GetName(), resourceVersion: obj.GetResourceVersion(),
		labels: labels.Set(obj.GetLabels()), fields: fieldSet(gvk.GroupKind(), obj),
	}
	if typed, err := toTyped(obj, gvk); err != nil {
		return nil, fmt.Errorf("%s %s: %w", gvk.Kind, key(e.ns, obj.GetName()), err)
	} else if typed != nil {
		e.obj = typed
	}
	e.shared = sharable(e.obj)
	return e, nil
}

// sharable reports whether obj, which the source owns and never changes,
// may be handed out itself by every list and watch that serves it in its
// own form and version, rather than as a copy per list: it has no
// managedFields. The engine changes nothing else of an object it is given
// (its transform sets the apiVersion and kind, which such an object
// already has, and trims managedFields; other transforms build new
// objects), and informers' caches are read-only to their readers, so the
// source and the informers then hold one object between them.
func sharable(obj runtime.Object) bool {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		_, has, _ := unstructured.NestedFieldNoCopy(u.Object, "metadata", "managedFields")
		return !has
	}
	m, err := meta.Accessor(obj)
	return err == nil && m.GetManagedFields() == nil
}

// toTyped converts obj to gvk's Go type; nil when the scheme does not hold
// gvk.
func toTyped(obj *unstructured.Unstructured, gvk schema.GroupVersionKind) (runtime.Object, error) {
	if !servesTyped(gvk) {
		return nil, nil
	}
	typed, err := scheme.Scheme.New(gvk)
	if err != nil {
		return nil, err
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, typed); err != nil {
		return nil, err
	}
	typed.GetObjectKind().SetGroupVersionKind(gvk)
	return typed, nil
}

// servesTyped reports whether gvk and its list are Go types of the scheme,
// as the live source's typed client requires.
func servesTyped(gvk schema.GroupVersionKind) bool {
	return scheme.Scheme.Recognizes(gvk) && scheme.Scheme.Recognizes(gvk.GroupVersion().WithKind(gvk.Kind+"List"))
}

func key(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + "/" + name
}

// kind returns the objects of gk, creating the map; the caller holds mu
// for writing.
func (s *Source) kind(gk schema.GroupKind) map[string]*entry {
	m := s.objects[gk]
	if m == nil {
		m = map[string]*entry{}
		s.objects[gk] = m
	}
	return m
}

// RESTMapper resolves types as a discovery mapper of an API server that
// serves them would, short names included.
func (s *Source) RESTMapper() meta.RESTMapper { return s.mapper }

// Feed returns the list and watch of mapping's objects in namespace:
// whole objects whatever full says.
func (s *Source) Feed(mapping *meta.RESTMapping, namespace string, _ bool) (engine.Feed, error) {
	if _, err := s.readFor([]schema.GroupResource{mapping.Resource.GroupResource()}, []schema.GroupKind{mapping.GroupVersionKind.GroupKind()}); err != nil {
		return engine.Feed{}, err
	}
	f := &feed{source: s, mapping: mapping, namespace: namespace}
	if mapping.Scope != nil && mapping.Scope.Name() != meta.RESTScopeNameNamespace {
		f.namespace = ""
	}
	kind, example := engine.Dynamic, runtime.Object(&unstructured.Unstructured{})
	if servesTyped(mapping.GroupVersionKind) {
		typed, err := scheme.Scheme.New(mapping.GroupVersionKind)
		if err != nil {
			return engine.Feed{}, err
		}
		kind, example = engine.Typed, typed
		f.typed = true
	}
	return engine.Feed{
		ListerWatcherWithContext: f,
		Kind:                     kind,
		Example:                  example,
		NoWatchList:              true,
	}, nil
}

// Finish says no more changes will come; Finished is closed then. It may
// be called more than once.
func (s *Source) Finish() { s.finishOnce.Do(func() { close(s.finished) }) }

// Finished is closed once Finish is called: a dump is finished as soon as
// it is read, a replay at its last change.
func (s *Source) Finished() <-chan struct{} { return s.finished }

// Offered returns how many ADDED, MODIFIED and DELETED events the source's
// watches have been given to deliver so far, less those a watch stopped
// before its reader took them: each of the others reaches its watch's
// reader. A reader that has received Offered events (and the items of its
// lists) after Finished is closed has received everything.
func (s *Source) Offered() int64 { return s.offered.Load() }

// Apply changes the object obj names (Added and Modified store it,
// Deleted removes it) and sends the change to every open watch that
// selects it before or after, as the API server does: an object that
// stops matching a watch's selectors is DELETED there, one that starts
// matching is ADDED. The change gets the next resourceVersion: obj's own
// when it is a number above the source's, else the source's plus one,
// which is then written into obj. Apply takes obj; the caller must not
// change it afterwards.
func (s *Source) Apply(t watch.EventType, obj *unstructured.Unstructured) error {
	switch t {
	case watch.Added, watch.Modified, watch.Deleted:
	default:
		return fmt.Errorf("applying a %s event: only ADDED, MODIFIED and DELETED change objects", t)
	}
	obj = s.inNamespace(obj)
	s.mu.Lock()
	defer s.mu.Unlock()
	rv := s.rv + 1
	if own, err := strconv.ParseUint(obj.GetResourceVersion(), 10, 64); err == nil && own > s.rv {
		rv = own
	} else {
		obj.SetResourceVersion(strconv.FormatUint(rv, 10))
	}
	e, err := newEntry(obj)
	if err != nil {
		return err
	}
	gk := e.gvk.GroupKind()
	k := key(e.ns, obj.GetName())
	objects := s.kind(gk)
	old := objects[k]
	if t == watch.Deleted {
		if old == nil {
			return fmt.Errorf("deleting %s %s: no such object", e.gvk.Kind, k)
		}
		delete(objects, k)
	} else {
		objects[k] = e
		if old == nil {
			t = watch.Added
		} else {
			t = watch.Modified
		}
	}
	s.rv = rv
	c := change{rv: rv, t: t, gk: gk, old: old, new: e}
	s.log = append(s.log, c)
	if len(s.log) > logSize {
		drop := len(s.log) - logSize
		s.logFrom = s.log[drop-1].rv
		s.log = append(s.log[:0:0], s.log[drop:]...)
	}
	for w := range s.watches {
		w.offer(c)
	}
	return nil
}

// feed is one Feed's list and watch.
type feed struct {
	source    *Source
	mapping   *meta.RESTMapping
	namespace string
	typed     bool
}

// selection is what one list or watch selects.
type selection struct {
	gk        schema.GroupKind
	namespace string
	labels    labels.Selector
	fields    fields.Selector
}

func (sel selection) matches(e *entry) bool {
	return e != nil && (sel.namespace == "" || e.ns == sel.namespace) && sel.labels.Matches(e.labels) && (sel.fields.Empty() || sel.fields.Matches(e.fieldSet()))
}

// selection parses opts' selectors, refusing those the API server would
// refuse, with its words.
func (f *feed) selection(opts metav1.ListOptions) (selection, error) {
	gk := f.mapping.GroupVersionKind.GroupKind()
	ls, err := labels.Parse(opts.LabelSelector)
	if err != nil {
		return selection{}, apierrors.NewBadRequest(err.Error())
	}
	fs, err := parseFieldSelector(gk, opts.FieldSelector)
	if err != nil {
		return selection{}, apierrors.NewBadRequest(err.Error())
	}
	return selection{gk: gk, namespace: f.namespace, labels: ls, fields: fs}, nil
}

// ListWithContext lists the objects selected, sorted by storage key as
// the API server lists them. The caller may keep them but must not change
// them: objects without managedFields are the source's own (see sharable).
func (f *feed) ListWithContext(_ context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	sel, err := f.selection(opts)
	if err != nil {
		return nil, err
	}
	f.source.mu.RLock()
	rv := strconv.FormatUint(f.source.rv, 10)
	var keys []string
	objects := f.source.objects[sel.gk]
	for k, e := range objects {
		if sel.matches(e) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	items := make([]runtime.Object, 0, len(keys))
	for _, k := range keys {
		obj, err := f.output(objects[k])
		if err != nil {
			f.source.mu.RUnlock()
			return nil, err
		}
		items = append(items, obj)
	}
	f.source.mu.RUnlock()

	if !f.typed {
		list := &unstructured.UnstructuredList{Object: map[string]interface{}{
			"apiVersion": f.mapping.GroupVersionKind.GroupVersion().String(),
			"kind":       f.mapping.GroupVersionKind.Kind + "List",
		}}
		list.SetResourceVersion(rv)
		for _, obj := range items {
			list.Items = append(list.Items, *obj.(*unstructured.Unstructured))
		}
		return list, nil
	}
	list, err := scheme.Scheme.New(f.mapping.GroupVersionKind.GroupVersion().WithKind(f.mapping.GroupVersionKind.Kind + "List"))
	if err != nil {
		return nil, err
	}
	if err := meta.SetList(list, items); err != nil {
		return nil, err
	}
	listMeta, err := meta.ListAccessor(list)
	if err != nil {
		return nil, err
	}
	listMeta.SetResourceVersion(rv)
	return list, nil
}

// output returns e's object in the feed's form: typed in the mapping's
// version, or unstructured; a copy unless the object is shared and already
// in that form (its readers must not change it).
func (f *feed) output(e *entry) (runtime.Object, error) {
	want := f.mapping.GroupVersionKind
	switch obj := e.obj.(type) {
	case *unstructured.Unstructured:
		if !f.typed && e.shared && e.gvk == want {
			return obj, nil
		}
		if !f.typed {
			// Another served version of a custom resource is the same
			// object under another apiVersion, as a CRD without a
			// conversion webhook serves it.
			out := obj.DeepCopy()
			if e.gvk != want {
				out.SetGroupVersionKind(want)
			}
			return out, nil
		}
		typed, err := toTyped(obj, want)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", want.Kind, key(e.ns, obj.GetName()), err)
		}
		return typed, nil
	default:
		if f.typed && e.gvk == want {
			if e.shared {
				return obj, nil
			}
			return obj.DeepCopyObject(), nil
		}
		// Another version of the kind, or a typed object a dynamic feed
		// serves: through its JSON-like content.
		content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			return nil, err
		}
		u := &unstructured.Unstructured{Object: content}
		u.SetGroupVersionKind(want)
		if !f.typed {
			return u, nil
		}
		return toTyped(u, want)
	}
}

// WatchWithContext watches the objects selected from opts.ResourceVersion:
// the changes made since (when the source still has them; a watch from
// further back fails with 410 Gone, and the informer lists again), then
// each change as Apply makes it. The watch ends only when stopped.
func (f *feed) WatchWithContext(_ context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	sel, err := f.selection(opts)
	if err != nil {
		return nil, err
	}
	s := f.source
	s.mu.Lock()
	defer s.mu.Unlock()
	from := s.rv
	if opts.ResourceVersion != "" && opts.ResourceVersion != "0" {
		from, err = strconv.ParseUint(opts.ResourceVersion, 10, 64)
		if err != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("invalid resourceVersion %q", opts.ResourceVersion))
		}
	}
	w := newFeedWatch(f, sel)
	if from < s.rv {
		if from < s.logFrom {
			return nil, apierrors.NewResourceExpired(fmt.Sprintf("too old resource version: %d (%d)", from, s.rv))
		}
		for _, c := range s.log {
			if c.rv > from {
				w.offer(c)
			}
		}
	}
	s.watches[w] = true
	go w.run()
	return w, nil
}

// var checks.
var (
	_ engine.Source                       = (*Source)(nil)
	_ toolscache.ListerWatcherWithContext = (*feed)(nil)
)
