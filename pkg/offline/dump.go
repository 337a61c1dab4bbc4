package offline

import (
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-informer/kubectl-informer/pkg/manifest"
)

// discovered is what discovery lists at one moment: a lazy dump's grows as
// its files are read.
type discovered struct {
	mapper meta.RESTMapper
	// resources are the types served, as discovery lists them.
	resources []*metav1.APIResourceList
	// resourcesOf are the resources listed for each kind.
	resourcesOf map[schema.GroupKind][]schema.GroupResource
}

func newDiscovered(d *discovery) *discovered {
	out := &discovered{mapper: d.mapper(), resources: d.resourceLists(), resourcesOf: map[schema.GroupKind][]schema.GroupResource{}}
	for _, g := range d.groups {
		for _, resources := range g.VersionedResources {
			for _, r := range resources {
				gk := schema.GroupKind{Group: g.Group.Name, Kind: r.Kind}
				gr := schema.GroupResource{Group: g.Group.Name, Resource: r.Name}
				if !containsResource(out.resourcesOf[gk], gr) {
					out.resourcesOf[gk] = append(out.resourcesOf[gk], gr)
				}
			}
		}
	}
	return out
}

func containsResource(list []schema.GroupResource, gr schema.GroupResource) bool {
	for _, e := range list {
		if e == gr {
			return true
		}
	}
	return false
}

// OpenDump returns a source over the objects of paths, as NewSourceOf over
// opts.ReadObjects(paths) would hold them, that reads the files of a type
// only when the type is first asked: when its REST mapper resolves a name
// to it, or a feed of it is made (manifest.Options.OpenDump says which
// files can hold which types). Its REST mapper lists the types the unread
// files can hold beside those read; resolving one reads its files, then
// answers from what they hold; a name it cannot resolve reads, before it
// says so, the files that can hold types of the group it names (a group
// that name begins), or every file when it names no group. An error reading a file (its path and line) is
// returned by the mapper or the feed that needed it. opts.Typed is
// replaced by Typed. The source is finished: it holds no changes.
func OpenDump(paths []string, opts manifest.Options) (*Source, error) {
	opts.Typed = Typed
	d, err := opts.OpenDump(paths)
	if err != nil {
		return nil, err
	}
	s := &Source{
		objects:  map[schema.GroupKind]map[string]*entry{},
		watches:  map[*feedWatch]bool{},
		finished: make(chan struct{}),
		dump:     d,
		kinds:    newKindsSeen(),
	}
	s.mapper = dumpMapper{s: s}
	s.learnMu.Lock()
	err = s.hold(d.Read(nil, nil))
	s.learnMu.Unlock()
	if err != nil {
		return nil, err
	}
	s.logFrom = s.rv
	s.Finish()
	return s, nil
}

// Time returns when the dump the source reads was taken (Dump.Time);
// manifest.ErrNoDumpTime for a source made otherwise.
func (s *Source) Time() (manifest.DumpTime, error) {
	if s.dump == nil {
		return manifest.DumpTime{}, manifest.ErrNoDumpTime
	}
	return s.dump.Time()
}

// readFor reads the unread files of a dump that can hold resources or
// kinds, or the kinds' resources, and reports whether it read any; nothing
// for a source that is not a lazy dump's. Reads are serialised: when it
// returns, the files of those types are read and their objects held,
// whichever call read them.
func (s *Source) readFor(resources []schema.GroupResource, kinds []schema.GroupKind) (bool, error) {
	if s.dump == nil {
		return false, nil
	}
	s.learnMu.Lock()
	defer s.learnMu.Unlock()
	return s.readForLocked(resources, kinds)
}

// readUnanswered reads the unread files of a dump that can answer a
// question the types listed could not, and reports whether it read any:
// for a question that names a group, the files that can hold types of the
// groups it can match (those the name begins, as a short name's group
// may), with the CRDs that define them; otherwise, or when a list of CRDs
// is unread (it can define a type of any group), every file.
func (s *Source) readUnanswered(group string) (bool, error) {
	if s.dump == nil {
		return false, nil
	}
	s.learnMu.Lock()
	u := s.dump.Unread()
	if group == "" || u.CRDLists {
		s.learnMu.Unlock()
		return s.readAll()
	}
	defer s.learnMu.Unlock()
	resources, kinds := u.InGroups(group)
	return s.readForLocked(resources, kinds)
}

// readForLocked is readFor with learnMu held.
func (s *Source) readForLocked(resources []schema.GroupResource, kinds []schema.GroupKind) (bool, error) {
	d := s.discovered.Load()
	for _, gk := range kinds {
		for _, gr := range d.resourcesOf[gk] {
			if !containsResource(resources, gr) {
				resources = append(resources, gr)
			}
		}
	}
	if !s.dump.Unread().Holds(resources, kinds) {
		return false, nil
	}
	objects, err := s.dump.Read(resources, kinds)
	if err != nil {
		return true, err
	}
	// A kind neither built in nor defined by a CRD takes the name of the
	// one resource of its group the layout named for it (a CRD's name
	// comes first where there is one).
	for _, obj := range objects {
		gk := obj.GetObjectKind().GroupVersionKind().GroupKind()
		if _, ok := s.kinds.resources[gk]; ok || isBuiltinKind(gk) {
			continue
		}
		var named []schema.GroupResource
		for _, gr := range resources {
			if gr.Group == gk.Group {
				named = append(named, gr)
			}
		}
		if len(named) == 1 {
			s.kinds.resources[gk] = named[0].Resource
		}
	}
	return true, s.hold(objects, nil)
}

func isBuiltinKind(gk schema.GroupKind) bool {
	for _, b := range builtins {
		if b.group == gk.Group && b.kind == gk.Kind {
			return true
		}
	}
	return false
}

// readAll reads every unread file of a dump, and reports whether there
// was any.
func (s *Source) readAll() (bool, error) {
	if s.dump == nil {
		return false, nil
	}
	s.learnMu.Lock()
	defer s.learnMu.Unlock()
	if s.dump.Unread().Empty() {
		return false, nil
	}
	return true, s.hold(s.dump.ReadAll())
}

// hold adds objects, read from the dump, to the source, and lists their
// types; the caller holds learnMu.
func (s *Source) hold(objects []runtime.Object, err error) error {
	if err != nil {
		return err
	}
	for _, obj := range objects {
		s.kinds.add(obj)
	}
	s.discovered.Store(newDiscovered(s.kinds.discovery(nil, unreadResources(s.dump.Unread()))))
	entries, err := s.newEntries(objects, true)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range entries {
		if rv, err := strconv.ParseUint(e.resourceVersion, 10, 64); err == nil && rv > s.rv {
			s.rv = rv
		}
		s.kind(e.gvk.GroupKind())[key(e.ns, e.name)] = e
	}
	return nil
}

// unreadResources lists what unread files can hold, for the mapper to
// resolve before they are read: the resources a layout names, with a kind
// guessed from the resource's name, and the kinds scanned files hold.
func unreadResources(u manifest.Unread) []extraResource {
	var extra []extraResource
	add := func(gr schema.GroupResource, namespaced bool) {
		if gr.Group == "" || isBuiltinResource(gr) {
			return
		}
		extra = append(extra, extraResource{
			gvk:      schema.GroupVersionKind{Group: gr.Group, Version: "v1", Kind: guessKind(gr.Resource)},
			resource: gr.Resource, namespaced: namespaced,
		})
	}
	for _, gr := range sortedResources(u.Resources) {
		add(gr, u.Resources[gr])
	}
	for _, gr := range u.Defined {
		add(gr, true)
	}
	for _, gk := range sortedKinds(u.Kinds) {
		for _, v := range u.Kinds[gk] {
			plural, _ := meta.UnsafeGuessKindToResource(gk.WithVersion(v))
			extra = append(extra, extraResource{gvk: gk.WithVersion(v), resource: plural.Resource, namespaced: true})
		}
	}
	return extra
}

func isBuiltinResource(gr schema.GroupResource) bool {
	for _, b := range builtins {
		if b.group == gr.Group && b.resource == gr.Resource {
			return true
		}
	}
	return false
}

// guessKind guesses a kind from a resource's plural name: routes Route,
// policies Policy. Only a placeholder: reading the files gives the kind.
func guessKind(resource string) string {
	singular := resource
	switch {
	case strings.HasSuffix(singular, "ies"):
		singular = strings.TrimSuffix(singular, "ies") + "y"
	case strings.HasSuffix(singular, "sses"), strings.HasSuffix(singular, "xes"):
		singular = strings.TrimSuffix(singular, "es")
	case strings.HasSuffix(singular, "s"):
		singular = strings.TrimSuffix(singular, "s")
	}
	if singular == "" {
		return resource
	}
	return strings.ToUpper(singular[:1]) + singular[1:]
}

// dumpMapper is the REST mapper of a lazy dump: it answers from what is
// listed, reads the files of the types the answer names, and answers
// again from what they hold; a question it cannot answer reads the files
// that can answer it first.
type dumpMapper struct {
	s *Source
}

// named are the resources and kinds an answer names.
type named struct {
	resources []schema.GroupResource
	kinds     []schema.GroupKind
}

// ask runs f, a question about group ("" when it names none), over the
// mapper of what is listed until it has answered from what is listed once
// the files of the types its answer names are read; an error reads the
// files that can answer it first (readUnanswered).
func (m dumpMapper) ask(group string, f func(meta.RESTMapper) (named, error)) error {
	for {
		listed := m.s.discovered.Load()
		n, err := f(listed.mapper)
		var read bool
		var readErr error
		if err != nil {
			read, readErr = m.s.readUnanswered(group)
		} else {
			read, readErr = m.s.readFor(n.resources, n.kinds)
		}
		if readErr != nil {
			return readErr
		}
		if !read && m.s.discovered.Load() == listed {
			return err
		}
	}
}

func (m dumpMapper) KindFor(r schema.GroupVersionResource) (gvk schema.GroupVersionKind, err error) {
	err = m.ask(r.Group, func(inner meta.RESTMapper) (named, error) {
		var err error
		gvk, err = inner.KindFor(r)
		return named{kinds: []schema.GroupKind{gvk.GroupKind()}}, err
	})
	return gvk, err
}

func (m dumpMapper) KindsFor(r schema.GroupVersionResource) (gvks []schema.GroupVersionKind, err error) {
	err = m.ask(r.Group, func(inner meta.RESTMapper) (named, error) {
		var err error
		gvks, err = inner.KindsFor(r)
		var n named
		for _, gvk := range gvks {
			n.kinds = append(n.kinds, gvk.GroupKind())
		}
		return n, err
	})
	return gvks, err
}

func (m dumpMapper) ResourceFor(r schema.GroupVersionResource) (gvr schema.GroupVersionResource, err error) {
	err = m.ask(r.Group, func(inner meta.RESTMapper) (named, error) {
		var err error
		gvr, err = inner.ResourceFor(r)
		return named{resources: []schema.GroupResource{gvr.GroupResource()}}, err
	})
	return gvr, err
}

func (m dumpMapper) ResourcesFor(r schema.GroupVersionResource) (gvrs []schema.GroupVersionResource, err error) {
	err = m.ask(r.Group, func(inner meta.RESTMapper) (named, error) {
		var err error
		gvrs, err = inner.ResourcesFor(r)
		var n named
		for _, gvr := range gvrs {
			n.resources = append(n.resources, gvr.GroupResource())
		}
		return n, err
	})
	return gvrs, err
}

func (m dumpMapper) RESTMapping(gk schema.GroupKind, versions ...string) (mapping *meta.RESTMapping, err error) {
	err = m.ask(gk.Group, func(inner meta.RESTMapper) (named, error) {
		var err error
		mapping, err = inner.RESTMapping(gk, versions...)
		n := named{kinds: []schema.GroupKind{gk}}
		if err == nil {
			n.resources = append(n.resources, mapping.Resource.GroupResource())
		}
		return n, err
	})
	return mapping, err
}

func (m dumpMapper) RESTMappings(gk schema.GroupKind, versions ...string) (mappings []*meta.RESTMapping, err error) {
	err = m.ask(gk.Group, func(inner meta.RESTMapper) (named, error) {
		var err error
		mappings, err = inner.RESTMappings(gk, versions...)
		n := named{kinds: []schema.GroupKind{gk}}
		for _, mapping := range mappings {
			n.resources = append(n.resources, mapping.Resource.GroupResource())
		}
		return n, err
	})
	return mappings, err
}

func (m dumpMapper) ResourceSingularizer(resource string) (singular string, err error) {
	err = m.ask("", func(inner meta.RESTMapper) (named, error) {
		var err error
		singular, err = inner.ResourceSingularizer(resource)
		return named{}, err
	})
	return singular, err
}

func sortedResources(m map[schema.GroupResource]bool) []schema.GroupResource {
	out := make([]schema.GroupResource, 0, len(m))
	for gr := range m {
		out = append(out, gr)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

func sortedKinds(m map[schema.GroupKind][]string) []schema.GroupKind {
	out := make([]schema.GroupKind, 0, len(m))
	for gk := range m {
		out = append(out, gk)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}
