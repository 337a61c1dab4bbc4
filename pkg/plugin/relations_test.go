package plugin

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
)

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
