package index

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
)

// ownerRef returns a controller (or plain) owner reference to kind/name with uid.
func ownerRef(apiVersion, kind, name string, controller bool) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: name, UID: types.UID(kind + "-" + name), Controller: &controller}
}

// ownerMeta returns the metadata-only object kind/name in ns with refs, its UID as ownerRef makes it.
func ownerMeta(kind, ns, name string, refs ...metav1.OwnerReference) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{
		Namespace: ns, Name: name, UID: types.UID(kind + "-" + name), OwnerReferences: refs,
	}}
}

// ownerIndexers builds an OwnerIndexers holding objs under their kind's group and kind.
func ownerIndexers(t *testing.T, objs map[schema.GroupKind][]interface{}) OwnerIndexers {
	t.Helper()
	g := OwnerIndexers{}
	for gk, list := range objs {
		indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
		for _, obj := range list {
			if err := indexer.Add(obj); err != nil {
				t.Fatal(err)
			}
		}
		g[gk] = indexer
	}
	return g
}

var (
	rsKind     = schema.GroupKind{Group: "apps", Kind: "ReplicaSet"}
	deployKind = schema.GroupKind{Group: "apps", Kind: "Deployment"}
	jobKind    = schema.GroupKind{Group: "batch", Kind: "Job"}
	cronKind   = schema.GroupKind{Group: "batch", Kind: "CronJob"}
	nodeKind   = schema.GroupKind{Kind: "Node"}
	widgetKind = schema.GroupKind{Group: "example.com", Kind: "Widget"}
)

func TestOwnerRoot(t *testing.T) {
	full := ownerIndexers(t, map[schema.GroupKind][]interface{}{
		rsKind: {
			ownerMeta("ReplicaSet", "shop", "web-5d9c7", ownerRef("apps/v1", "Deployment", "web", true)),
			ownerMeta("ReplicaSet", "shop", "orphan-1"),
			// A ReplicaSet owned by a custom resource's Deployment-like controller.
			ownerMeta("ReplicaSet", "shop", "w-1", ownerRef("apps/v1", "Deployment", "w", true)),
		},
		deployKind: {
			ownerMeta("Deployment", "shop", "web"),
			ownerMeta("Deployment", "shop", "w", ownerRef("example.com/v1", "Widget", "blue", true)),
		},
		widgetKind: {ownerMeta("Widget", "shop", "blue")},
		jobKind:    {ownerMeta("Job", "shop", "backup-29000", ownerRef("batch/v1", "CronJob", "backup", true))},
		cronKind:   {ownerMeta("CronJob", "shop", "backup")},
		nodeKind:   {ownerMeta("Node", "", "worker-1")},
	})
	withoutRS := ownerIndexers(t, map[schema.GroupKind][]interface{}{deployKind: {ownerMeta("Deployment", "shop", "web")}})
	stale := ownerIndexers(t, map[schema.GroupKind][]interface{}{
		rsKind: {&metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-5d9c7", UID: "another"}}},
	})
	cycle := ownerIndexers(t, map[schema.GroupKind][]interface{}{
		rsKind:     {ownerMeta("ReplicaSet", "shop", "a", ownerRef("apps/v1", "Deployment", "b", true))},
		deployKind: {ownerMeta("Deployment", "shop", "b", ownerRef("apps/v1", "ReplicaSet", "a", true))},
	})
	pod := func(refs ...metav1.OwnerReference) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "p", UID: "pod-p", OwnerReferences: refs}}
	}
	tests := []struct {
		name   string
		owners Owners
		obj    interface{}
		want   []string
	}{
		{"pod of a deployment", full, pod(ownerRef("apps/v1", "ReplicaSet", "web-5d9c7", true)), []string{"Deployment/web"}},
		{"metadata-only pod", full, ownerMeta("Pod", "shop", "p", ownerRef("apps/v1", "ReplicaSet", "web-5d9c7", true)), []string{"Deployment/web"}},
		{"tombstone", full, cache.DeletedFinalStateUnknown{Key: "shop/p", Obj: pod(ownerRef("apps/v1", "ReplicaSet", "web-5d9c7", true))}, []string{"Deployment/web"}},
		{"pod of a cronjob's job", full, pod(ownerRef("batch/v1", "Job", "backup-29000", true)), []string{"CronJob/backup"}},
		{"custom resource at the top", full, pod(ownerRef("apps/v1", "ReplicaSet", "w-1", true)), []string{"Widget/blue"}},
		{"replica set without a controller", full, pod(ownerRef("apps/v1", "ReplicaSet", "orphan-1", true)), []string{"ReplicaSet/orphan-1"}},
		{"cluster-scoped owner", full, pod(ownerRef("v1", "Node", "worker-1", true)), []string{"Node/worker-1"}},
		{"no controller", full, pod(ownerRef("apps/v1", "ReplicaSet", "web-5d9c7", false)), nil},
		{"no owners", full, pod(), nil},
		{"owner kind not held", withoutRS, pod(ownerRef("apps/v1", "ReplicaSet", "web-5d9c7", true)), []string{"ReplicaSet/web-5d9c7"}},
		{"owner gone", full, pod(ownerRef("apps/v1", "ReplicaSet", "gone", true)), []string{"ReplicaSet/gone"}},
		{"owner replaced under its name", stale, pod(ownerRef("apps/v1", "ReplicaSet", "web-5d9c7", true)), []string{"ReplicaSet/web-5d9c7"}},
		{"cycle ends", cycle, pod(ownerRef("apps/v1", "ReplicaSet", "a", true)), []string{"Deployment/b"}},
		{"no owners", nil, pod(ownerRef("apps/v1", "ReplicaSet", "web-5d9c7", true)), []string{"ReplicaSet/web-5d9c7"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			def := OwnerRoot(tt.owners)
			got, err := def.Func(tt.obj)
			if err != nil {
				t.Fatalf("owner-root(%s) error = %v", tt.name, err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("owner-root(%s) = %q, want %q", tt.name, got, tt.want)
			}
		})
	}
}

func TestOwnerChain(t *testing.T) {
	g := ownerIndexers(t, map[schema.GroupKind][]interface{}{
		rsKind:     {ownerMeta("ReplicaSet", "shop", "web-5d9c7", ownerRef("apps/v1", "Deployment", "web", true))},
		deployKind: {ownerMeta("Deployment", "shop", "web")},
	})
	pod := ownerMeta("Pod", "shop", "p", ownerRef("apps/v1", "ReplicaSet", "web-5d9c7", true))
	var got []string
	for _, ref := range OwnerChain(pod, g) {
		got = append(got, ref.Kind+"/"+ref.Name)
	}
	if want := []string{"ReplicaSet/web-5d9c7", "Deployment/web"}; !slices.Equal(got, want) {
		t.Errorf("OwnerChain(pod) = %q, want %q", got, want)
	}
}

// TestOwnerRootOnIndexer registers owner-root on an indexer, as the engine does after the owner
// caches synced, and looks pods up by it.
func TestOwnerRootOnIndexer(t *testing.T) {
	g := ownerIndexers(t, map[schema.GroupKind][]interface{}{
		rsKind: {
			ownerMeta("ReplicaSet", "shop", "web-1", ownerRef("apps/v1", "Deployment", "web", true)),
			ownerMeta("ReplicaSet", "shop", "web-2", ownerRef("apps/v1", "Deployment", "web", true)),
			ownerMeta("ReplicaSet", "shop", "api-1", ownerRef("apps/v1", "Deployment", "api", true)),
		},
		deployKind: {ownerMeta("Deployment", "shop", "web"), ownerMeta("Deployment", "shop", "api")},
	})
	pods := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for name, rs := range map[string]string{"a": "web-1", "b": "web-2", "c": "api-1", "d": ""} {
		var refs []metav1.OwnerReference
		if rs != "" {
			refs = append(refs, ownerRef("apps/v1", "ReplicaSet", rs, true))
		}
		if err := pods.Add(ownerMeta("Pod", "shop", name, refs...)); err != nil {
			t.Fatal(err)
		}
	}
	def := OwnerRoot(g)
	if err := pods.AddIndexers(cache.Indexers{def.Name: def.Func}); err != nil {
		t.Fatal(err)
	}
	keys, err := Keys(pods, []Selector{{Name: "owner-root", Operator: Equals, Values: []string{"Deployment/web"}}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"shop/a", "shop/b"}; !slices.Equal(keys, want) {
		t.Errorf("Keys(owner-root=Deployment/web) = %q, want %q", keys, want)
	}
	if got, want := pods.ListIndexFuncValues("owner-root"), []string{"Deployment/api", "Deployment/web"}; !slices.Equal(sorted(got), want) {
		t.Errorf("owner-root values = %q, want %q", got, want)
	}
}

func TestLookupOwnerRootIsUnbound(t *testing.T) {
	def, err := NewSet()
	if err != nil {
		t.Fatal(err)
	}
	d, err := def.Lookup("owner-root")
	if err != nil {
		t.Fatalf("Lookup(owner-root) error = %v", err)
	}
	if d.Relation != OwnerRelation || !d.MetadataOnly {
		t.Errorf("Lookup(owner-root) = relation %v, metadata-only %v, want OwnerRelation, true", d.Relation, d.MetadataOnly)
	}
	pod := ownerMeta("Pod", "shop", "p", ownerRef("apps/v1", "ReplicaSet", "web-5d9c7", true))
	if got := Values(d, pod); got != nil {
		t.Errorf("unbound owner-root values = %q, want none", got)
	}
}
