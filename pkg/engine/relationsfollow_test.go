package engine

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func TestNodeRelationChanged(t *testing.T) {
	node := func(labels, annotations map[string]string) *metav1.PartialObjectMetadata {
		return &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: "n1", Labels: labels, Annotations: annotations}}
	}
	a := map[string]string{"zone": "a"}
	for _, tt := range []struct {
		name     string
		old, new *metav1.PartialObjectMetadata
		want     bool
	}{
		{"status only", node(a, a), node(a, a), false},
		{"label", node(a, nil), node(map[string]string{"zone": "b"}, nil), true},
		{"annotation added", node(a, nil), node(a, a), true},
	} {
		if got := nodeRelationChanged(tt.old, tt.new); got != tt.want {
			t.Errorf("nodeRelationChanged(%s) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestControllerChanged(t *testing.T) {
	ref := func(uid string) []metav1.OwnerReference {
		yes := true
		return []metav1.OwnerReference{{Kind: "Deployment", Name: "web", UID: types.UID(uid), Controller: &yes}}
	}
	rs := func(refs []metav1.OwnerReference, labels map[string]string) *metav1.PartialObjectMetadata {
		return &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: "web-1", OwnerReferences: refs, Labels: labels}}
	}
	for _, tt := range []struct {
		name     string
		old, new *metav1.PartialObjectMetadata
		want     bool
	}{
		{"labels only", rs(ref("a"), nil), rs(ref("a"), map[string]string{"x": "y"}), false},
		{"orphaned", rs(ref("a"), nil), rs(nil, nil), true},
		{"adopted", rs(nil, nil), rs(ref("a"), nil), true},
		{"other controller", rs(ref("a"), nil), rs(ref("b"), nil), true},
		{"never owned", rs(nil, nil), rs(nil, map[string]string{"x": "y"}), false},
	} {
		if got := controllerChanged(tt.old, tt.new); got != tt.want {
			t.Errorf("controllerChanged(%s) = %v, want %v", tt.name, got, tt.want)
		}
	}
}
