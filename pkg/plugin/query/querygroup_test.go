package query

import (
	"testing"

	"github.com/kubectl-informer/kubectl-informer/pkg/aggregate"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

func TestPodTransformSafe(t *testing.T) {
	set, err := index.NewSet(index.Custom{Name: "img", JSONPath: "{.spec.containers[*].image}"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		indexes []string
		sums    []string
		want    bool
	}{
		{[]string{"namespace", "node"}, []string{"requests.cpu", "restarts"}, true},
		{[]string{"label:app", "owner", "owner-uid", "phase"}, []string{"limits.memory"}, true},
		{[]string{"node"}, nil, false},                                        // counts only: nothing to strip for
		{[]string{"image"}, []string{"requests.cpu"}, false},                  // images are dropped
		{[]string{"annotation:a"}, []string{"requests.cpu"}, false},           // annotations are dropped
		{[]string{"img"}, []string{"requests.cpu"}, false},                    // a JSONPath may read anything
		{[]string{"node"}, []string{"gpus={.spec.nodeSelector.gpus}"}, false}, // so may a custom measure
	}
	for _, tt := range tests {
		o := &QueryOptions{}
		for _, name := range tt.indexes {
			def, err := set.Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			o.indexDefs = append(o.indexDefs, def)
		}
		for _, s := range tt.sums {
			m, err := aggregate.ParseMeasure(s)
			if err != nil {
				t.Fatal(err)
			}
			o.print.measures = append(o.print.measures, m)
		}
		if got := o.podTransformSafe(); got != tt.want {
			t.Errorf("podTransformSafe(indexes %v, sums %v) = %v, want %v", tt.indexes, tt.sums, got, tt.want)
		}
	}
}
