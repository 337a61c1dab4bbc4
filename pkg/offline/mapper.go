package offline

import (
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/restmapper"
)

// crdGroupKind is the kind of a custom resource definition.
var crdGroupKind = schema.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}

// discovery is what an API server's discovery would list for a source: the
// groups in priority order, each with its versions and resources.
type discovery struct {
	groups []*restmapper.APIGroupResources
	byName map[string]*restmapper.APIGroupResources
	// known are the kinds listed, by group, kind and version;
	// knownResource the resources listed.
	known         map[schema.GroupVersionKind]bool
	knownResource map[schema.GroupResource]bool
}

// newDiscovery lists the built-in types, the custom resources the CRDs
// among objects define, the types given, and the other kinds of objects
// (their resource guessed from the kind).
func newDiscovery(objects []runtime.Object, types []*meta.RESTMapping) *discovery {
	k := newKindsSeen()
	for _, obj := range objects {
		k.add(obj)
	}
	return k.discovery(types, nil)
}

// kindsSeen is what discovery needs of the objects held: the versions of
// each kind, in the order read, which kinds have namespaced objects, and
// the CRDs.
type kindsSeen struct {
	seen       map[schema.GroupKind][]string
	namespaced map[schema.GroupKind]bool
	kinds      []schema.GroupKind
	crds       []*unstructured.Unstructured
	// resources are the resources of kinds neither built in nor defined
	// by a CRD, where a dump's layout names them.
	resources map[schema.GroupKind]string
}

func newKindsSeen() *kindsSeen {
	return &kindsSeen{seen: map[schema.GroupKind][]string{}, namespaced: map[schema.GroupKind]bool{}, resources: map[schema.GroupKind]string{}}
}

// add notes obj's kind, version and scope, and keeps it if it is a CRD.
func (k *kindsSeen) add(obj runtime.Object) {
	gvk := obj.GetObjectKind().GroupVersionKind()
	gk := gvk.GroupKind()
	if _, ok := k.seen[gk]; !ok {
		k.kinds = append(k.kinds, gk)
	}
	if !contains(k.seen[gk], gvk.Version) {
		k.seen[gk] = append(k.seen[gk], gvk.Version)
	}
	if m, err := meta.Accessor(obj); err == nil && m.GetNamespace() != "" {
		k.namespaced[gk] = true
	}
	if gk != crdGroupKind {
		return
	}
	crd, ok := obj.(*unstructured.Unstructured)
	if !ok {
		content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			return
		}
		crd = &unstructured.Unstructured{Object: content}
	}
	k.crds = append(k.crds, crd)
}

// discovery lists the built-in types, the custom resources of the CRDs
// seen, types, the other kinds seen, and then the resources of extra not
// listed yet (a lazy dump's types not read yet).
func (k *kindsSeen) discovery(types []*meta.RESTMapping, extra []extraResource) *discovery {
	d := &discovery{byName: map[string]*restmapper.APIGroupResources{}, known: map[schema.GroupVersionKind]bool{}, knownResource: map[schema.GroupResource]bool{}}
	seen, namespaced := k.seen, k.namespaced

	for _, b := range builtins {
		gk := schema.GroupKind{Group: b.group, Kind: b.kind}
		versions := seen[gk]
		if len(versions) == 0 {
			v := preferredVersion(gk)
			if v == "" {
				continue
			}
			versions = []string{v}
		}
		for _, v := range versions {
			d.add(b.group, v, metav1.APIResource{
				Name: b.resource, SingularName: strings.ToLower(b.kind), Namespaced: !b.clusterScoped,
				Kind: b.kind, ShortNames: b.shortNames,
			})
		}
	}

	for _, crd := range k.crds {
		d.addCRD(crd, seen)
	}

	for _, m := range types {
		if d.known[m.GroupVersionKind] {
			continue
		}
		d.add(m.Resource.Group, m.Resource.Version, metav1.APIResource{
			Name: m.Resource.Resource, SingularName: strings.ToLower(m.GroupVersionKind.Kind),
			Namespaced: m.Scope.Name() == meta.RESTScopeNameNamespace, Kind: m.GroupVersionKind.Kind,
		})
	}

	for _, gk := range k.kinds {
		for _, v := range seen[gk] {
			gvk := gk.WithVersion(v)
			if d.known[gvk] {
				continue
			}
			plural, singular := meta.UnsafeGuessKindToResource(gvk)
			if r, ok := k.resources[gk]; ok {
				plural.Resource = r
			}
			d.add(gk.Group, v, metav1.APIResource{
				Name: plural.Resource, SingularName: singular.Resource, Namespaced: namespaced[gk], Kind: gk.Kind,
			})
		}
	}

	for _, e := range extra {
		if d.known[e.gvk] || d.knownResource[schema.GroupResource{Group: e.gvk.Group, Resource: e.resource}] {
			continue
		}
		singular := strings.ToLower(e.gvk.Kind)
		d.add(e.gvk.Group, e.gvk.Version, metav1.APIResource{
			Name: e.resource, SingularName: singular, Namespaced: e.namespaced, Kind: e.gvk.Kind,
		})
	}
	return d
}

// extraResource is a resource listed after the others unless its kind or
// resource is listed already.
type extraResource struct {
	gvk        schema.GroupVersionKind
	resource   string
	namespaced bool
}

// preferredVersion is the version of gk an API server prefers, as far as
// client-go's scheme holds gk: its highest version in Kubernetes' order (v2
// before v1 before v1beta1), or "" if the scheme does not hold gk.
func preferredVersion(gk schema.GroupKind) string {
	best := ""
	for _, gv := range scheme.Scheme.PrioritizedVersionsForGroup(gk.Group) {
		if scheme.Scheme.Recognizes(gv.WithKind(gk.Kind)) && (best == "" || version.CompareKubeAwareVersionStrings(gv.Version, best) > 0) {
			best = gv.Version
		}
	}
	if best == "" {
		return builtinVersions[gk.Group]
	}
	return best
}

// addCRD lists the custom resource a CRD defines in each version it
// serves (a version objects carry is listed even if not served).
func (d *discovery) addCRD(crd *unstructured.Unstructured, seen map[schema.GroupKind][]string) {
	group, _, _ := unstructured.NestedString(crd.Object, "spec", "group")
	plural, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "plural")
	singular, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "singular")
	kind, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "kind")
	shortNames, _, _ := unstructured.NestedStringSlice(crd.Object, "spec", "names", "shortNames")
	scope, _, _ := unstructured.NestedString(crd.Object, "spec", "scope")
	if group == "" || plural == "" || kind == "" {
		return
	}
	if singular == "" {
		singular = strings.ToLower(kind)
	}
	var versions []string
	list, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	for _, v := range list {
		m, ok := v.(map[string]interface{})
		if !ok {
			continue
		}
		name, _ := m["name"].(string)
		served, _ := m["served"].(bool)
		if name != "" && served {
			versions = append(versions, name)
		}
	}
	if v, _, _ := unstructured.NestedString(crd.Object, "spec", "version"); v != "" && len(list) == 0 {
		versions = append(versions, v)
	}
	for _, v := range seen[schema.GroupKind{Group: group, Kind: kind}] {
		if !contains(versions, v) {
			versions = append(versions, v)
		}
	}
	sort.SliceStable(versions, func(i, j int) bool {
		return version.CompareKubeAwareVersionStrings(versions[i], versions[j]) > 0
	})
	for _, v := range versions {
		if d.known[schema.GroupVersionKind{Group: group, Version: v, Kind: kind}] {
			continue
		}
		d.add(group, v, metav1.APIResource{
			Name: plural, SingularName: singular, Namespaced: scope != "Cluster", Kind: kind, ShortNames: shortNames,
		})
	}
}

// add lists r in group and version, after the group's versions listed so
// far.
func (d *discovery) add(group, version string, r metav1.APIResource) {
	g := d.byName[group]
	if g == nil {
		g = &restmapper.APIGroupResources{
			Group:              metav1.APIGroup{Name: group},
			VersionedResources: map[string][]metav1.APIResource{},
		}
		d.byName[group] = g
		d.groups = append(d.groups, g)
	}
	gv := schema.GroupVersion{Group: group, Version: version}
	if _, ok := g.VersionedResources[version]; !ok {
		gvd := metav1.GroupVersionForDiscovery{GroupVersion: gv.String(), Version: version}
		g.Group.Versions = append(g.Group.Versions, gvd)
		if len(g.Group.Versions) == 1 {
			g.Group.PreferredVersion = gvd
		}
	}
	r.Verbs = metav1.Verbs{"get", "list", "watch"}
	g.VersionedResources[version] = append(g.VersionedResources[version], r)
	d.known[gv.WithKind(r.Kind)] = true
	d.knownResource[schema.GroupResource{Group: group, Resource: r.Name}] = true
}

// mapper returns the REST mapper of d: kubectl's discovery mapper with its
// short names expanded, as kubectl builds it from an API server.
func (d *discovery) mapper() meta.RESTMapper {
	return shortNameMapper{RESTMapper: restmapper.NewDiscoveryRESTMapper(d.groups), d: d}
}

// shortNameMapper expands short names as client-go's shortcut expander
// does (restmapper.NewShortcutExpander), over d instead of a discovery
// client: a name that is a resource's plural or singular name stays; else
// the first resource, in discovery's order, that has it as a short name.
type shortNameMapper struct {
	meta.RESTMapper
	d *discovery
}

func (m shortNameMapper) KindFor(r schema.GroupVersionResource) (schema.GroupVersionKind, error) {
	return m.RESTMapper.KindFor(m.expand(r))
}

func (m shortNameMapper) KindsFor(r schema.GroupVersionResource) ([]schema.GroupVersionKind, error) {
	return m.RESTMapper.KindsFor(m.expand(r))
}

func (m shortNameMapper) ResourceFor(r schema.GroupVersionResource) (schema.GroupVersionResource, error) {
	return m.RESTMapper.ResourceFor(m.expand(r))
}

func (m shortNameMapper) ResourcesFor(r schema.GroupVersionResource) ([]schema.GroupVersionResource, error) {
	return m.RESTMapper.ResourcesFor(m.expand(r))
}

func (m shortNameMapper) ResourceSingularizer(resource string) (string, error) {
	return m.RESTMapper.ResourceSingularizer(m.expand(schema.GroupVersionResource{Resource: resource}).Resource)
}

func (m shortNameMapper) expand(r schema.GroupVersionResource) schema.GroupVersionResource {
	for _, g := range m.d.groups {
		if r.Group != "" && r.Group != g.Group.Name {
			continue
		}
		for _, resources := range g.VersionedResources {
			for _, res := range resources {
				if r.Resource == res.Name || r.Resource == res.SingularName {
					return r
				}
			}
		}
	}
	for _, prefix := range []bool{false, true} {
		if prefix && r.Group == "" {
			break
		}
		for _, g := range m.d.groups {
			match := r.Group == "" || r.Group == g.Group.Name
			if prefix {
				match = strings.HasPrefix(g.Group.Name, r.Group)
			}
			if !match {
				continue
			}
			for _, gv := range g.Group.Versions {
				for _, res := range g.VersionedResources[gv.Version] {
					if contains(res.ShortNames, r.Resource) {
						if prefix {
							return schema.GroupVersionResource{Group: g.Group.Name, Version: r.Version, Resource: res.Name}
						}
						return schema.GroupVersionResource{Group: g.Group.Name, Resource: res.Name}
					}
				}
			}
		}
	}
	return r
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// Resources lists the types the source serves as discovery would, each
// group version's resources in one list, in the mapper's order: what
// kubectl api-resources (and shell completion) shows for it. A dump's
// source reads every file first; a file that does not decode leaves out
// the types only it would add.
func (s *Source) Resources() []*metav1.APIResourceList {
	if s.dump != nil {
		// Every type: the dump's files are read whole.
		_, _ = s.readAll()
	}
	return s.discovered.Load().resources
}

// resourceLists returns d's resources as discovery lists them.
func (d *discovery) resourceLists() []*metav1.APIResourceList {
	var lists []*metav1.APIResourceList
	for _, g := range d.groups {
		for _, v := range g.Group.Versions {
			resources := g.VersionedResources[v.Version]
			if len(resources) == 0 {
				continue
			}
			lists = append(lists, &metav1.APIResourceList{GroupVersion: v.GroupVersion, APIResources: resources})
		}
	}
	return lists
}
