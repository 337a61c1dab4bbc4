package query

import (
	"testing"

	"github.com/kubectl-informer/kubectl-informer/internal/testpods"
	"github.com/kubectl-informer/kubectl-informer/pkg/aggregate"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/watch"
)

// The live table of query -w --group-by counts what the one-shot query
// counts: one index without --sum counts from the index, so an object
// without a value of it is not in the table; with --sum it is, in the
// group of no value.
func TestGroupWatchCountsAsTheQuery(t *testing.T) {
	defs, measures, err := engines.ParseGroups(&index.Set{}, []string{"label:app"}, []string{"requests.cpu"})
	if err != nil {
		t.Fatal(err)
	}
	labelled := testpods.CPUPod("web-1", "web", "n1", "250m")
	unlabelled := labelled.DeepCopy()
	unlabelled.Labels = nil
	for _, tt := range []struct {
		name     string
		measures []aggregate.Measure
		want     bool
	}{
		{"count only", nil, false},
		{"with --sum", measures, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := &running{cfg: queryPrintConfig{groupBy: defs, measures: tt.measures}, changes: &watch.EventPrinter{}}
			counts := groupWatch{o: &QueryOptions{}}.counts(w)
			if in, err := counts(nil, labelled); !in || err != nil {
				t.Errorf("counts(labelled pod) = %v, %v, want true", in, err)
			}
			if in, err := counts(nil, unlabelled); in != tt.want || err != nil {
				t.Errorf("counts(pod without the label) = %v, %v, want %v", in, err, tt.want)
			}
		})
	}
}
