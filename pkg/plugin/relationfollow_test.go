package plugin

import (
	"bytes"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-informer/kubectl-informer/pkg/cache"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// A node's change that moves a pod's node join values in or out of a --where query prints the
// pod as entering or leaving it, naming the node; one that leaves it where it was prints nothing.
func TestWatchRelatedChangeEntersAndLeavesTheQuery(t *testing.T) {
	const zone = "node.label:topology.kubernetes.io/zone"
	def, err := (*index.Set)(nil).Lookup(zone)
	if err != nil {
		t.Fatal(err)
	}
	sel, err := index.ParseSelector("--where", zone+"=zone-x")
	if err != nil {
		t.Fatal(err)
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-1", ResourceVersion: "7"}, Spec: corev1.PodSpec{NodeName: "n1"}}
	for _, tt := range []struct {
		name     string
		old, new []string
		want     string
	}{
		{"entered", []string{"zone-a"}, []string{"zone-x"}, "ADDED    pod/web-1 -n shop  (entered query: node/n1 changed)"},
		{"left", []string{"zone-x"}, nil, "DELETED  pod/web-1 -n shop  (left query: node/n1 changed)"},
		{"still out", []string{"zone-a"}, []string{"zone-b"}, ""},
		{"other index", nil, nil, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			p := testPrinter(t, &out, "text", "compact")
			p.cfg.where = []whereClause{{sel: sel, def: def}}
			name := zone
			if tt.name == "other index" {
				name = "node.label:other"
			}
			ev := &cache.Event{Type: cache.Modified, Resource: podsType, Old: pod, New: pod, Key: "shop/web-1",
				Related: []index.Change{{Index: name, Old: tt.old, New: tt.new}}, Cause: "node/n1"}
			if _, err := p.handle(ev); err != nil {
				t.Fatal(err)
			}
			if err := p.out.Flush(); err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSpace(out.String()); got != tt.want {
				t.Errorf("printed %q, want %q", got, tt.want)
			}
		})
	}
}

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
