package watch

import (
	"bytes"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
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
			p.Cfg.Where = []WhereClause{{Sel: sel, Def: def}}
			name := zone
			if tt.name == "other index" {
				name = "node.label:other"
			}
			ev := &engine.Event{Type: engine.Modified, Resource: podsType, Old: pod, New: pod, Key: "shop/web-1",
				Related: []index.Change{{Index: name, Old: tt.old, New: tt.new}}, Cause: "node/n1"}
			if _, err := p.Handle(ev); err != nil {
				t.Fatal(err)
			}
			if err := p.Out.Flush(); err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSpace(out.String()); got != tt.want {
				t.Errorf("printed %q, want %q", got, tt.want)
			}
		})
	}
}
