package query

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/targets"
	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/protocol"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

func TestSplitContextIndex(t *testing.T) {
	for _, tc := range []struct {
		name    string
		index   []string
		groupBy []string
		sums    []string
		want    contextSplit
		wantErr string
	}{
		{
			name:  "context selectors taken out",
			index: []string{"node=n1", "context=prod", "context in (a,b)"},
			want: contextSplit{
				contextSelectors: []index.Selector{
					{Name: "context", Operator: index.Equals, Values: []string{"prod"}},
					{Name: "context", Operator: index.In, Values: []string{"a", "b"}},
				},
				indexSelectors: []string{"node=n1"},
				contextAt:      -1,
			},
		},
		{name: "context first", groupBy: []string{"context", "node"}, want: contextSplit{groupBy: []string{"node"}, contextAt: 0}},
		{name: "context after a key", groupBy: []string{"node", "context", "namespace"}, want: contextSplit{groupBy: []string{"node", "namespace"}, contextAt: 1}},
		{name: "sum alone", sums: []string{"requests.cpu"}, want: contextSplit{contextAt: -1}},
		{name: "context twice", groupBy: []string{"context", "context"}, wantErr: "context is named twice"},
		{name: "bad selector", index: []string{"=x"}, wantErr: "--index"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := &QueryOptions{QueryFlags: protocol.QueryFlags{Index: tc.index, GroupBy: tc.groupBy, Sums: tc.sums}}
			got, err := splitContextIndex(o)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("splitContextIndex = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestSelectionRefusesIndexerNamedContext checks that a selection of
// contexts refuses an --indexer named context, the built-in index of its
// contexts, before it reads the kubeconfig.
func TestSelectionRefusesIndexerNamedContext(t *testing.T) {
	o := NewQueryOptions(genericclioptions.NewConfigFlags(true), genericiooptions.NewTestIOStreamsDiscard())
	o.Indexers = []string{"context={.metadata.name}"}
	o.contextFlags = &targets.Flags{AllContexts: true}
	if err := o.completeTargets(nil); err == nil || !strings.Contains(err.Error(), "--indexer context=") {
		t.Errorf("completeTargets = %v, want an error naming --indexer context=", err)
	}
}

func TestFleetQuerySeveral(t *testing.T) {
	for _, tc := range []struct {
		o    QueryOptions
		want bool
	}{
		{QueryOptions{}, false},
		{QueryOptions{QueryFlags: protocol.QueryFlags{GroupBy: []string{"node"}, Index: []string{"node=a"}}}, false},
		{QueryOptions{QueryFlags: protocol.QueryFlags{GroupBy: []string{"node", "context"}}}, true},
		{QueryOptions{QueryFlags: protocol.QueryFlags{Index: []string{"context!=dev"}}}, true},
	} {
		q, err := splitContextIndex(&tc.o)
		if err != nil {
			t.Fatal(err)
		}
		if got := q.several(); got != tc.want {
			t.Errorf("splitContextIndex(%+v).several() = %v, want %v", tc.o, got, tc.want)
		}
	}
}
