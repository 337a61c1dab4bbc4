package query

import (
	"strings"
	"testing"

	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/targets"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// TestSelectionRefusesIndexerNamedContext checks that a selection of
// contexts refuses an --indexer named context, the built-in index of its
// contexts, before it reads the kubeconfig.
func TestSelectionRefusesIndexerNamedContext(t *testing.T) {
	o := NewQueryOptions(genericclioptions.NewConfigFlags(true), genericiooptions.NewTestIOStreamsDiscard())
	o.Indexers = []string{"context={.metadata.name}"}
	o.contextFlags = &targets.Flags{AllContexts: true}
	if err := o.completeTargets(); err == nil || !strings.Contains(err.Error(), "--indexer context=") {
		t.Errorf("completeTargets = %v, want an error naming --indexer context=", err)
	}
}
