package plugin

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
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
			ev := &engine.Event{Type: engine.Modified, Resource: podsType, Old: pod, New: pod, Key: "shop/web-1",
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

// warnUnreadable words each related type the engine could not read as the commands always have.
func TestWarnUnreadable(t *testing.T) {
	denied := errors.New("forbidden")
	var out bytes.Buffer
	engines.WarnUnreadable(&out, []engine.UnreadableRelation{
		{Relation: index.OwnerRelation, UnreadableType: engine.UnreadableType{Name: "replicasets.apps", Err: denied}},
		{Relation: index.SelectorRelation, UnreadableType: engine.UnreadableType{Name: "PodDisruptionBudget.policy", Unresolved: true, Err: denied}},
		{Relation: index.SelectorRelation, UnreadableType: engine.UnreadableType{Name: "services", Err: denied}},
		{Relation: index.NodeRelation, UnreadableType: engine.UnreadableType{Name: "nodes", Err: denied}},
		{Relation: index.PodRelation, UnreadableType: engine.UnreadableType{Name: "pods", Err: denied}},
	})
	want := `Warning: owners stop at replicasets.apps, which cannot be read: forbidden
Warning: selected-by does not read PodDisruptionBudget.policy, which the server does not serve: forbidden
Warning: selected-by does not read services, which cannot be read: forbidden
Warning: node.label and node.annotation have no values: nodes cannot be read: forbidden
Warning: selects has no values: pods cannot be read: forbidden
`
	if got := out.String(); got != want {
		t.Errorf("warnUnreadable wrote\n%s\nwant\n%s", got, want)
	}
}

// validateRelations names the flag of a selected-by value that names no selecting kind.
func TestValidateRelations(t *testing.T) {
	sel, err := index.ParseSelector("--index", "selected-by=Widget/w")
	if err != nil {
		t.Fatal(err)
	}
	err = engines.ValidateRelations([]index.Selector{sel})
	if err == nil || !strings.HasPrefix(err.Error(), "--index selected-by=Widget/w: selected-by needs KIND/NAME") {
		t.Errorf("validateRelations(selected-by=Widget/w) = %v, want an error naming --index and the selector", err)
	}
}
