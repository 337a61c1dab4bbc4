package index

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

const zoneKey = "topology.kubernetes.io/zone"

// zoneNode returns a node named name with the zone label zone ("" for none).
func zoneNode(name, zone string) *metav1.PartialObjectMetadata {
	n := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if zone != "" {
		n.Labels = map[string]string{zoneKey: zone}
	}
	return n
}

func podOn(name, node string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name}, Spec: corev1.PodSpec{NodeName: node}}
}

// relationFixture is a pod cache (with the node index), a node cache and a RelationIndex of the zone label of
// the pods' nodes.
type relationFixture struct {
	pods, nodes cache.Indexer
	relations   *RelationIndex
}

func newRelationFixture(t *testing.T) *relationFixture {
	t.Helper()
	f := &relationFixture{
		pods:  cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{"node": nodeIndexFunc}),
		nodes: cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{}),
	}
	var set *Set
	zone, err := set.Lookup("node.label:" + zoneKey)
	if err != nil {
		t.Fatal(err)
	}
	f.relations = NewRelationIndex(f.pods, Bind(zone, Relations{Nodes: NodeIndexer{Indexer: f.nodes}}))
	return f
}

func (f *relationFixture) put(t *testing.T, store cache.Indexer, obj interface{}) {
	t.Helper()
	if err := store.Update(obj); err != nil {
		t.Fatal(err)
	}
}

func TestRelationIndexRefresh(t *testing.T) {
	f := newRelationFixture(t)
	zone := "node.label:" + zoneKey
	f.put(t, f.nodes, zoneNode("n1", "zone-a"))
	f.put(t, f.nodes, zoneNode("n2", "zone-b"))
	f.put(t, f.pods, podOn("p1", "n1"))
	f.put(t, f.pods, podOn("p2", "n1"))
	f.put(t, f.pods, podOn("p3", "n2"))
	for _, key := range f.pods.ListKeys() {
		f.relations.Refresh(key, NoRelation)
	}
	keysOf := func(value string) []string {
		keys := f.relations.IndexKeys(zone, value)
		slices.Sort(keys)
		return keys
	}
	if got, want := keysOf("zone-a"), []string{"shop/p1", "shop/p2"}; !slices.Equal(got, want) {
		t.Fatalf("IndexKeys(zone-a) = %q, want %q", got, want)
	}

	// The node is relabelled: until its pods are refreshed the RelationIndex keeps what it stored; then
	// they move, and only they report a change.
	f.put(t, f.nodes, zoneNode("n1", "zone-x"))
	if got := keysOf("zone-a"); len(got) != 2 {
		t.Errorf("before Refresh, IndexKeys(zone-a) = %q, want the two stored keys", got)
	}
	if got := f.relations.Refresh("shop/p3", NodeRelation); got != nil {
		t.Errorf("Refresh(p3) = %v, want no change", got)
	}
	got := f.relations.Refresh("shop/p1", NodeRelation)
	want := []Change{{Index: zone, Old: []string{"zone-a"}, New: []string{"zone-x"}}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Refresh(p1) = %v, want %v", got, want)
	}
	f.relations.Refresh("shop/p2", NodeRelation)
	if got, want := keysOf("zone-x"), []string{"shop/p1", "shop/p2"}; !slices.Equal(got, want) {
		t.Errorf("IndexKeys(zone-x) = %q, want %q", got, want)
	}
	if got := keysOf("zone-a"); len(got) != 0 {
		t.Errorf("IndexKeys(zone-a) = %q, want none: no stale key", got)
	}
	if got, want := f.relations.ListValues(zone), []string{"zone-b", "zone-x"}; !slices.Equal(slices.Sorted(slices.Values(got)), want) {
		t.Errorf("ListValues = %q, want %q", got, want)
	}

	// A Refresh of another relation leaves node relation values alone.
	f.put(t, f.nodes, zoneNode("n1", ""))
	if got := f.relations.Refresh("shop/p1", OwnerRelation); got != nil {
		t.Errorf("Refresh(p1, OwnerRelation) = %v, want no change", got)
	}
	// A node losing the label: its pods leave the value; a pod leaving the cache: its key goes.
	if got := f.relations.Refresh("shop/p1", NodeRelation); len(got) != 1 || got[0].New != nil {
		t.Errorf("Refresh(p1) after unlabel = %v, want zone-x → none", got)
	}
	if err := f.pods.Delete(podOn("p2", "n1")); err != nil {
		t.Fatal(err)
	}
	f.relations.Refresh("shop/p2", NoRelation)
	if got := keysOf("zone-x"); len(got) != 0 {
		t.Errorf("IndexKeys(zone-x) = %q, want none", got)
	}
	if got := f.relations.Values(zone, "shop/p3"); !slices.Equal(got, []string{"zone-b"}) {
		t.Errorf("Values(p3) = %q, want zone-b", got)
	}
}

func TestRelationIndexer(t *testing.T) {
	f := newRelationFixture(t)
	f.put(t, f.nodes, zoneNode("n1", "zone-a"))
	f.put(t, f.nodes, zoneNode("n2", "zone-b"))
	for i, node := range []string{"n1", "n1", "n2", ""} {
		f.put(t, f.pods, podOn(fmt.Sprintf("p%d", i), node))
	}
	for _, key := range f.pods.ListKeys() {
		f.relations.Refresh(key, NoRelation)
	}
	x := RelationIndexer{Indexer: f.pods, Relations: f.relations}
	tests := []struct {
		selectors string
		want      []string
	}{
		{"node.label:" + zoneKey + "=zone-a", []string{"shop/p0", "shop/p1"}},
		{"node.label:" + zoneKey + "!=zone-a", []string{"shop/p2", "shop/p3"}},
		{"node.label:" + zoneKey, []string{"shop/p0", "shop/p1", "shop/p2"}},
		{"node.label:" + zoneKey + ",node=n1", []string{"shop/p0", "shop/p1"}},
		{"node=n2", []string{"shop/p2"}},
	}
	for _, tt := range tests {
		t.Run(tt.selectors, func(t *testing.T) {
			var sels []Selector
			for _, s := range strings.Split(tt.selectors, ",") {
				sel, err := ParseSelector("--index", s)
				if err != nil {
					t.Fatal(err)
				}
				sels = append(sels, sel)
			}
			got, err := Keys(x, sels)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Keys(%s) = %q, want %q", tt.selectors, got, tt.want)
			}
		})
	}
	// A key whose object left the cache before its Refresh is not returned as an object.
	if err := f.pods.Delete(podOn("p0", "n1")); err != nil {
		t.Fatal(err)
	}
	objs, err := x.ByIndex("node.label:"+zoneKey, "zone-a")
	if err != nil || len(objs) != 1 {
		t.Errorf("ByIndex(zone-a) = %d objects, %v; want 1", len(objs), err)
	}
}

// TestRelationIndexConcurrentRefresh relabels nodes and changes pods while other goroutines refresh, as
// the node and pod informers' handlers do; once every change has been followed by a Refresh of
// the keys it affects, the RelationIndex holds exactly what the caches say (run with -race).
func TestRelationIndexConcurrentRefresh(t *testing.T) {
	f := newRelationFixture(t)
	const nodes, pods = 4, 40
	for n := range nodes {
		f.put(t, f.nodes, zoneNode(fmt.Sprintf("n%d", n), "zone-0"))
	}
	for p := range pods {
		f.put(t, f.pods, podOn(fmt.Sprintf("p%d", p), fmt.Sprintf("n%d", p%nodes)))
	}
	var wg sync.WaitGroup
	for n := range nodes {
		wg.Go(func() { // a node's handler: relabel, then refresh the node's pods
			name := fmt.Sprintf("n%d", n)
			for round := range 50 {
				if err := f.nodes.Update(zoneNode(name, fmt.Sprintf("zone-%d", (round+n)%3))); err != nil {
					t.Error(err)
					return
				}
				keys, _ := f.pods.IndexKeys("node", name)
				for _, k := range keys {
					f.relations.Refresh(k, NodeRelation)
				}
			}
		})
	}
	wg.Go(func() { // the pod handler: pods leave and come back
		for round := range 50 {
			p := podOn(fmt.Sprintf("p%d", round%pods), fmt.Sprintf("n%d", round%nodes))
			if round%2 == 0 {
				_ = f.pods.Delete(p)
			} else {
				_ = f.pods.Add(p)
			}
			f.relations.Refresh("shop/"+p.Name, NoRelation)
		}
	})
	wg.Wait()
	zone := f.relations.Definitions()[0]
	for _, key := range f.pods.ListKeys() {
		obj, _, _ := f.pods.GetByKey(key)
		if got, want := f.relations.Values(zone.Name, key), Values(zone, obj); !slices.Equal(got, want) {
			t.Errorf("Values(%s) = %q, want %q", key, got, want)
		}
	}
	total := 0
	for _, v := range f.relations.ListValues(zone.Name) {
		for _, k := range f.relations.IndexKeys(zone.Name, v) {
			if _, exists, _ := f.pods.GetByKey(k); !exists {
				t.Errorf("stale key %s under %s", k, v)
			}
			total++
		}
	}
	if total != len(f.pods.ListKeys()) {
		t.Errorf("%d keys indexed, want %d", total, len(f.pods.ListKeys()))
	}
}
