package index

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

func TestNodeRelation(t *testing.T) {
	nodes := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for _, n := range []*metav1.PartialObjectMetadata{
		{ObjectMeta: metav1.ObjectMeta{Name: "n1", Labels: map[string]string{"topology.kubernetes.io/zone": "zone-a"}, Annotations: map[string]string{"team": "infra"}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "n2"}},
	} {
		if err := nodes.Add(n); err != nil {
			t.Fatal(err)
		}
	}
	g := Relations{Nodes: NodeIndexer{Indexer: nodes}}
	pod := func(node string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "p"}, Spec: corev1.PodSpec{NodeName: node}}
	}
	var set *Set
	zone, err := set.Lookup("node.label:topology.kubernetes.io/zone")
	if err != nil {
		t.Fatal(err)
	}
	team, err := set.Lookup("node.annotation:team")
	if err != nil {
		t.Fatal(err)
	}
	if zone.Relation != NodeRelation || zone.MetadataOnly {
		t.Errorf("node.label: relation %v, metadata-only %v; want NodeRelation, false", zone.Relation, zone.MetadataOnly)
	}
	if got := Values(zone, pod("n1")); got != nil {
		t.Errorf("unbound node.label values = %q, want none", got)
	}
	zone, team = Bind(zone, g), Bind(team, g)
	tests := []struct {
		name string
		def  Definition
		obj  interface{}
		want []string
	}{
		{"zone of n1", zone, pod("n1"), []string{"zone-a"}},
		{"annotation of n1", team, pod("n1"), []string{"infra"}},
		{"node without the label", zone, pod("n2"), nil},
		{"node not cached", zone, pod("n3"), nil},
		{"unscheduled", zone, pod(""), nil},
		{"tombstone", zone, cache.DeletedFinalStateUnknown{Obj: pod("n1")}, []string{"zone-a"}},
		{"metadata-only pod", zone, &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: "p"}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Values(tt.def, tt.obj); !slices.Equal(got, tt.want) {
				t.Errorf("%s(%s) = %q, want %q", tt.def.Name, tt.name, got, tt.want)
			}
		})
	}
	if _, err := set.Lookup("node.label:"); err == nil {
		t.Error(`Lookup("node.label:") = nil error, want one`)
	}
}
