package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/scheme"
	toolscache "k8s.io/client-go/tools/cache"
	fcache "k8s.io/client-go/tools/cache/testing"

	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// clusterKinds are the built-in kinds memTypes maps as cluster-scoped.
var clusterKinds = map[string]bool{"Node": true, "PersistentVolume": true, "StorageClass": true, "PriorityClass": true,
	"RuntimeClass": true, "ClusterRole": true, "ClusterRoleBinding": true, "Namespace": true}

// memTypes are RelatedTypes over running informers fed by in-memory
// sources, one per built-in kind, created on first use: a cluster without
// a server. With keep, it keeps relations (RelationsKeeper).
type memTypes struct {
	t      testing.TB
	mapper meta.RESTMapper
	keep   *KeptRelations

	mu      sync.Mutex
	sources map[schema.GroupKind]*fcache.FakeControllerSource
	types   map[schema.GroupKind]*Type
	// started and released count the Eaches Start returned and those
	// shut down.
	started, released int
}

func newMemTypes(t testing.TB) *memTypes {
	mapper := meta.NewDefaultRESTMapper(scheme.Scheme.PrioritizedVersionsAllGroups())
	for gvk := range scheme.Scheme.AllKnownTypes() {
		if gvk.Version == runtime.APIVersionInternal || (gvk.Group == "" && gvk.Version != "v1") {
			continue
		}
		scope := meta.RESTScopeNamespace
		if clusterKinds[gvk.Kind] {
			scope = meta.RESTScopeRoot
		}
		mapper.Add(gvk, scope)
	}
	m := &memTypes{t: t, mapper: mapper, sources: map[schema.GroupKind]*fcache.FakeControllerSource{}, types: map[schema.GroupKind]*Type{}}
	return m
}

func (m *memTypes) RESTMapper() meta.RESTMapper { return m.mapper }

// typeOf returns the running type of gk, created and synced on first use.
func (m *memTypes) typeOf(gk schema.GroupKind) *Type {
	m.mu.Lock()
	defer m.mu.Unlock()
	if t, ok := m.types[gk]; ok {
		return t
	}
	mapping, err := m.mapper.RESTMapping(gk)
	if err != nil {
		m.t.Fatalf("mapping %s: %v", gk, err)
	}
	example, err := scheme.Scheme.New(mapping.GroupVersionKind)
	if err != nil {
		m.t.Fatalf("new %s: %v", gk, err)
	}
	source := fcache.NewFakeControllerSource()
	m.t.Cleanup(source.Shutdown)
	informer := toolscache.NewSharedIndexInformer(source, example, 0, toolscache.Indexers{toolscache.NamespaceIndex: toolscache.MetaNamespaceIndexFunc})
	ctx, cancel := context.WithCancel(context.Background())
	m.t.Cleanup(cancel)
	go informer.Run(ctx.Done())
	if !toolscache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		m.t.Fatalf("%s did not sync", gk)
	}
	t := &Type{Mapping: mapping, Informers: []toolscache.SharedIndexInformer{informer}}
	m.types[gk], m.sources[gk] = t, source
	return t
}

func (m *memTypes) source(gk schema.GroupKind) *fcache.FakeControllerSource {
	m.typeOf(gk)
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.sources[gk]
}

// Start implements RelatedTypes: every mapping is readable.
func (m *memTypes) Start(_ context.Context, mappings []*meta.RESTMapping, _ Config) (*Each, error) {
	var types []*Type
	for _, mapping := range mappings {
		types = append(types, m.typeOf(mapping.GroupVersionKind.GroupKind()))
	}
	m.mu.Lock()
	m.started++
	m.mu.Unlock()
	return NewEach(types, nil, func() {
		m.mu.Lock()
		m.released++
		m.mu.Unlock()
	}), nil
}

// leases returns how many Eaches of m are not shut down.
func (m *memTypes) leases() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.started - m.released
}

// keeping are memTypes that keep relations.
type keeping struct{ *memTypes }

func (k keeping) KeptRelations() (*KeptRelations, RelatedTypes) { return k.keep, k.memTypes }

var (
	podKind    = schema.GroupKind{Kind: "Pod"}
	cmKind     = schema.GroupKind{Kind: "ConfigMap"}
	pvcKind    = schema.GroupKind{Kind: "PersistentVolumeClaim"}
	saKind     = schema.GroupKind{Kind: "ServiceAccount"}
	nodeKind   = schema.GroupKind{Kind: "Node"}
	svcKind    = schema.GroupKind{Kind: "Service"}
	rsKind     = schema.GroupKind{Group: "apps", Kind: "ReplicaSet"}
	deployKind = schema.GroupKind{Group: "apps", Kind: "Deployment"}
)

// world generates random objects of a few namespaces that refer to each
// other by small name spaces, so that references, owners and selectors hit.
type world struct {
	rnd *rand.Rand
	m   *memTypes
	// live are the names of the objects of each kind the sources hold.
	live map[schema.GroupKind]map[string]runtime.Object
}

func (w *world) name(prefix string, n int) string { return fmt.Sprintf("%s-%d", prefix, w.rnd.IntN(n)) }
func (w *world) ns() string                       { return []string{"a", "b"}[w.rnd.IntN(2)] }
func (w *world) app() string                      { return []string{"web", "db", "cache"}[w.rnd.IntN(3)] }

func uidOf(kind, ns, name string) types.UID { return types.UID(kind + "/" + ns + "/" + name) }

func (w *world) pod(ns, name string) runtime.Object {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: uidOf("Pod", ns, name),
		Labels: map[string]string{"app": w.app()}}}
	p.Spec.NodeName = w.name("node", 4)
	p.Spec.ServiceAccountName = w.name("sa", 3)
	for i := range w.rnd.IntN(3) {
		p.Spec.Volumes = append(p.Spec.Volumes,
			corev1.Volume{Name: fmt.Sprintf("cm%d", i), VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: w.name("cm", 6)}}}})
	}
	if w.rnd.IntN(2) == 0 {
		p.Spec.Volumes = append(p.Spec.Volumes,
			corev1.Volume{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: w.name("pvc", 4)}}})
	}
	p.Spec.Containers = []corev1.Container{{Name: "c", EnvFrom: []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: w.name("secret", 3)}}}}}}
	if w.rnd.IntN(3) > 0 {
		rs := w.name("rs", 4)
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs, UID: uidOf("ReplicaSet", ns, rs), Controller: ptr(true)}}
	}
	return p
}

func ptr[T any](v T) *T { return &v }

func (w *world) object(gk schema.GroupKind, ns, name string) runtime.Object {
	meta := metav1.ObjectMeta{Namespace: ns, Name: name, UID: uidOf(gk.Kind, ns, name)}
	switch gk {
	case podKind:
		return w.pod(ns, name)
	case cmKind:
		return &corev1.ConfigMap{ObjectMeta: meta}
	case pvcKind:
		c := &corev1.PersistentVolumeClaim{ObjectMeta: meta}
		c.Spec.VolumeName = w.name("pv", 2)
		return c
	case saKind:
		sa := &corev1.ServiceAccount{ObjectMeta: meta}
		sa.ImagePullSecrets = []corev1.LocalObjectReference{{Name: w.name("secret", 3)}}
		return sa
	case nodeKind:
		meta.Namespace = ""
		meta.UID = uidOf("Node", "", name)
		meta.Labels = map[string]string{"zone": []string{"z1", "z2"}[w.rnd.IntN(2)]}
		return &corev1.Node{ObjectMeta: meta}
	case svcKind:
		s := &corev1.Service{ObjectMeta: meta}
		s.Spec.Selector = map[string]string{"app": w.app()}
		return s
	case rsKind:
		rs := &appsv1.ReplicaSet{ObjectMeta: meta}
		rs.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": w.app()}}
		rs.Spec.Template.Spec.ServiceAccountName = w.name("sa", 3)
		if w.rnd.IntN(3) > 0 {
			d := w.name("deploy", 2)
			rs.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: d, UID: uidOf("Deployment", ns, d), Controller: ptr(true)}}
		}
		return rs
	case deployKind:
		d := &appsv1.Deployment{ObjectMeta: meta}
		d.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": w.app()}}
		return d
	}
	panic(gk.String())
}

// names are the name prefixes and counts of each kind.
var worldNames = map[schema.GroupKind]struct {
	prefix string
	n      int
}{
	podKind: {"pod", 30}, cmKind: {"cm", 6}, pvcKind: {"pvc", 4}, saKind: {"sa", 3}, nodeKind: {"node", 4},
	svcKind: {"svc", 3}, rsKind: {"rs", 4}, deployKind: {"deploy", 2},
}

// step adds, updates or deletes one random object.
func (w *world) step() {
	kinds := []schema.GroupKind{podKind, podKind, podKind, cmKind, pvcKind, saKind, nodeKind, svcKind, rsKind, deployKind}
	gk := kinds[w.rnd.IntN(len(kinds))]
	ns := w.ns()
	if gk == nodeKind {
		ns = ""
	}
	name := w.name(worldNames[gk].prefix, worldNames[gk].n)
	key := ns + "/" + name
	src := w.m.source(gk)
	if w.live[gk] == nil {
		w.live[gk] = map[string]runtime.Object{}
	}
	old, exists := w.live[gk][key]
	switch {
	case !exists:
		obj := w.object(gk, ns, name)
		src.Add(obj)
		w.live[gk][key] = obj
	case w.rnd.IntN(4) == 0:
		src.Delete(old)
		delete(w.live[gk], key)
	default:
		obj := w.object(gk, ns, name)
		src.Modify(obj)
		w.live[gk][key] = obj
	}
}

// relationValues are all the values of a type's relation indexes: index
// name → storage key → sorted values, read through the buckets as Lookup
// reads them.
func relationValues(t *Type) map[string]map[string][]string {
	out := map[string]map[string][]string{}
	for _, ri := range t.relations {
		for _, def := range ri.Definitions() {
			byKey := map[string][]string{}
			for _, v := range ri.ListValues(def.Name) {
				for _, k := range ri.IndexKeys(def.Name, v) {
					if _, exists, _ := t.Informers[0].GetIndexer().GetByKey(k); exists {
						byKey[k] = append(byKey[k], v)
					}
				}
			}
			for k := range byKey {
				slices.Sort(byKey[k])
			}
			out[def.Name] = byKey
		}
	}
	return out
}

func lookupDefs(t testing.TB, names ...string) []index.Definition {
	var defs []index.Definition
	for _, n := range names {
		def, err := (*index.Set)(nil).Lookup(n)
		if err != nil {
			t.Fatal(err)
		}
		defs = append(defs, def)
	}
	return defs
}

// TestKeptRelationsFollowChanges applies random sequences of adds, updates
// and deletes to pods, their configmaps, claims, ServiceAccounts, nodes,
// owners and selecting Services, and checks after each batch that the
// relation indexes kept since the start answer as a fresh build over the
// same caches does.
func TestKeptRelationsFollowChanges(t *testing.T) {
	tests := []struct {
		name    string
		kind    schema.GroupKind
		indexes []string
	}{
		{"pods", podKind, []string{"uses", "selected-by", "owner-root", "node.label:zone"}},
		{"configmaps", cmKind, []string{"used-by"}},
		{"serviceaccounts", saKind, []string{"used-by", "uses"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for seed := range uint64(3) {
				t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
					m := newMemTypes(t)
					m.keep = NewKeptRelations(0)
					t.Cleanup(m.keep.Shutdown)
					w := &world{rnd: rand.New(rand.NewPCG(seed, 28)), m: m, live: map[schema.GroupKind]map[string]runtime.Object{}}
					for range 60 {
						w.step()
					}
					indexed := m.typeOf(tt.kind)
					defs := lookupDefs(t, tt.indexes...)
					waitFor := func(t *testing.T, what string) {
						t.Helper()
						deadline := time.Now().Add(10 * time.Second)
						for {
							// Each round: a borrowed share of the kept set,
							// and a fresh build over the same caches.
							kept, err := StartRelations(t.Context(), []*Type{indexed}, defs, RelationsConfig{Related: keeping{m}})
							if err != nil {
								t.Fatal(err)
							}
							fresh, err := StartRelations(t.Context(), []*Type{indexed}, defs, RelationsConfig{Related: m})
							if err != nil {
								t.Fatal(err)
							}
							got, want := relationValues(kept.Types()[0]), relationValues(fresh.Types()[0])
							kept.Shutdown()
							fresh.Shutdown()
							if fmt.Sprint(got) == fmt.Sprint(want) {
								return
							}
							if time.Now().After(deadline) {
								t.Fatalf("%s: kept relation indexes\n%v\nwant (a fresh build)\n%v", what, got, want)
							}
							time.Sleep(20 * time.Millisecond)
						}
					}
					waitFor(t, "first build")
					if n := m.keep.Len(); n != 1 {
						t.Fatalf("kept %d sets, want 1", n)
					}
					for batch := range 15 {
						for range 1 + w.rnd.IntN(12) {
							w.step()
						}
						waitFor(t, fmt.Sprintf("after batch %d", batch))
					}
					if n := m.keep.Len(); n != 1 {
						t.Errorf("kept %d sets, want 1", n)
					}
				})
			}
		})
	}
}

// BenchmarkRelationsWarm measures one warm one-shot answer of a relation
// index over 50,000 pods referring to configmaps, secrets and claims,
// owned by ReplicaSets and selected by Services: StartRelations, a lookup
// and Shutdown, with the indexes built per answer (rebuild) and kept
// between answers (kept).
func BenchmarkRelationsWarm(b *testing.B) {
	const pods = 50000
	m := newMemTypes(b)
	w := &world{rnd: rand.New(rand.NewPCG(1, 28)), m: m, live: map[schema.GroupKind]map[string]runtime.Object{}}
	for gk, n := range worldNames {
		if gk == podKind {
			continue
		}
		for i := range n.n {
			for _, ns := range []string{"a", "b"} {
				if gk == nodeKind {
					ns = ""
				}
				m.source(gk).Add(w.object(gk, ns, fmt.Sprintf("%s-%d", n.prefix, i)))
			}
		}
	}
	src := m.source(podKind)
	for i := range pods {
		src.Add(w.pod(w.ns(), fmt.Sprintf("pod-%d", i)))
	}
	indexed := m.typeOf(podKind)
	for len(indexed.Informers[0].GetIndexer().ListKeys()) < pods {
		time.Sleep(10 * time.Millisecond)
	}
	for _, tt := range []struct {
		index, value string
	}{
		{"uses", "ConfigMap/cm-3"},
		{"selected-by", "Service/svc-1"},
		{"owner-root", "Deployment/deploy-1"},
		{"node.label:zone", "z1"},
	} {
		defs := lookupDefs(b, tt.index)
		selectors := []index.Selector{{Name: tt.index, Operator: index.Equals, Values: []string{tt.value}}}
		for _, mode := range []string{"rebuild", "kept"} {
			b.Run(tt.index+"/"+mode, func(b *testing.B) {
				var related RelatedTypes = m
				if mode == "kept" {
					m.keep = NewKeptRelations(0)
					defer m.keep.Shutdown()
					related = keeping{m}
					// The first answer builds the kept set.
					r, err := StartRelations(b.Context(), []*Type{indexed}, defs, RelationsConfig{Related: related, Selectors: selectors})
					if err != nil {
						b.Fatal(err)
					}
					r.Shutdown()
				}
				for b.Loop() {
					r, err := StartRelations(b.Context(), []*Type{indexed}, defs, RelationsConfig{Related: related, Selectors: selectors})
					if err != nil {
						b.Fatal(err)
					}
					objs, err := r.Types()[0].Lookup(selectors)
					if err != nil {
						b.Fatal(err)
					}
					if len(objs) == 0 {
						b.Fatalf("%v selects no pod", selectors)
					}
					r.Shutdown()
				}
			})
		}
	}
}

// TestKeptRelationsLifetime checks that commands share one kept set, that
// it outlives them until it has been idle for the idle duration or Drop
// names an informer it indexes, and that it then ends its use of the
// related types.
func TestKeptRelationsLifetime(t *testing.T) {
	tests := []struct {
		name string
		idle time.Duration
		end  func(k *KeptRelations, pods *Type)
	}{
		{"idle", 50 * time.Millisecond, func(*KeptRelations, *Type) {}},
		{"dropped", 0, func(k *KeptRelations, pods *Type) { k.Drop(pods.Informers) }},
		{"shut down", 0, func(k *KeptRelations, _ *Type) { k.Shutdown() }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMemTypes(t)
			m.keep = NewKeptRelations(tt.idle)
			t.Cleanup(m.keep.Shutdown)
			pods := m.typeOf(podKind)
			m.source(podKind).Add(usingConfigMap("a", "p1", "cm-1"))
			defs := lookupDefs(t, "uses")
			start := func() *Relations {
				t.Helper()
				r, err := StartRelations(t.Context(), []*Type{pods}, defs, RelationsConfig{Related: keeping{m}})
				if err != nil {
					t.Fatal(err)
				}
				return r
			}
			first, second := start(), start()
			leased := m.leases()
			if leased == 0 || m.keep.Len() != 1 {
				t.Fatalf("two commands: %d related leases, %d kept sets; want some leases and 1 set", leased, m.keep.Len())
			}
			first.Shutdown()
			first.Shutdown() // twice: still one release
			second.Shutdown()
			if m.keep.Len() != 1 || m.leases() != leased {
				t.Fatalf("commands ended: %d kept sets, %d related leases; want the set kept with its %d leases", m.keep.Len(), m.leases(), leased)
			}
			third := start()
			if m.leases() != leased {
				t.Errorf("a third command: %d related leases, want the kept set's %d", m.leases(), leased)
			}
			third.Shutdown()
			tt.end(m.keep, pods)
			deadline := time.Now().Add(5 * time.Second)
			for m.keep.Len() != 0 || m.leases() != 0 {
				if time.Now().After(deadline) {
					t.Fatalf("%d kept sets, %d related leases; want none", m.keep.Len(), m.leases())
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
}

func usingConfigMap(ns, name, cm string) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	p.Spec.Volumes = []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: cm}}}}}
	return p
}

// TestKeptRelationsDroppedForANewOwnerKind checks that a kept owner-root
// set is dropped, for the next command to build afresh, when a pod gains a
// controller of a kind the set does not cache.
func TestKeptRelationsDroppedForANewOwnerKind(t *testing.T) {
	m := newMemTypes(t)
	m.keep = NewKeptRelations(0)
	t.Cleanup(m.keep.Shutdown)
	pods := m.typeOf(podKind)
	owned := usingConfigMap("a", "p1", "cm-1")
	owned.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs-1", UID: "rs-1", Controller: ptr(true)}}
	m.source(podKind).Add(owned)
	r, err := StartRelations(t.Context(), []*Type{pods}, lookupDefs(t, "owner-root"), RelationsConfig{Related: keeping{m}})
	if err != nil {
		t.Fatal(err)
	}
	r.Shutdown()
	if m.keep.Len() != 1 {
		t.Fatalf("kept %d sets, want 1", m.keep.Len())
	}
	widget := usingConfigMap("a", "p2", "cm-1")
	widget.OwnerReferences = []metav1.OwnerReference{{APIVersion: "example.com/v1", Kind: "Widget", Name: "w", UID: "w", Controller: ptr(true)}}
	m.source(podKind).Add(widget)
	deadline := time.Now().Add(5 * time.Second)
	for m.keep.Len() != 0 || m.leases() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("after a pod of a Widget: %d kept sets, %d related leases; want none", m.keep.Len(), m.leases())
		}
		time.Sleep(10 * time.Millisecond)
	}
}
