package query

import (
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-informer/kubectl-informer/internal/testpods"
	"github.com/kubectl-informer/kubectl-informer/pkg/aggregate"
	"github.com/kubectl-informer/kubectl-informer/pkg/fleet"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// groupedAnswer is a context's answer grouped by node with requests.cpu summed, over objs.
func groupedAnswer(t *testing.T, shutdowns *int, objs ...interface{}) *targetAnswer {
	t.Helper()
	m, err := aggregate.ParseMeasure("requests.cpu")
	if err != nil {
		t.Fatal(err)
	}
	node := index.Definition{Name: "node", Func: func(obj interface{}) ([]string, error) {
		if p, ok := obj.(*corev1.Pod); ok {
			return []string{p.Spec.NodeName}, nil
		}
		return nil, nil
	}}
	return &targetAnswer{several: true,
		name:     "ctx-1",
		cfg:      queryPrintConfig{groupBy: []index.Definition{node}, measures: []aggregate.Measure{m}},
		groups:   []typeObjects{{objs: objs}},
		shutdown: func() { *shutdowns++ },
	}
}

func tableStrings(ct fleet.ContextTable) [][]string {
	merged := fleet.MergeTables([]fleet.ContextTable{ct}, -1)
	header, rows := merged.Strings()
	return append([][]string{header}, rows...)
}

// groupNow keeps the table the objects make, drops the objects and stops the informers once.
func TestTargetAnswerGroupNow(t *testing.T) {
	shutdowns := 0
	a := groupedAnswer(t, &shutdowns, testpods.CPUPod("a", "web", "node-1", "250m"), testpods.CPUPod("b", "web", "node-1", "1"), testpods.CPUPod("c", "web", "node-2", "100m"))
	want, err := a.groupTable()
	if err != nil {
		t.Fatal(err)
	}
	a.groupNow()
	if shutdowns != 1 || a.groups != nil {
		t.Fatalf("after groupNow: %d shutdowns, groups %v; want 1 and none", shutdowns, a.groups)
	}
	got, err := a.groupTable()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(tableStrings(got), tableStrings(want)) {
		t.Errorf("table after groupNow = %q, want %q", tableStrings(got), tableStrings(want))
	}
	if rows := tableStrings(got); len(rows) != 4 || strings.Join(rows[1], " ") != "node-1 2 1250m" {
		t.Errorf("table = %q, want node-1 with 2 pods and 1250m first", rows)
	}
	a.shutdown()
	if shutdowns != 1 {
		t.Errorf("shutdown after groupNow stopped the informers again (%d)", shutdowns)
	}

	// An error grouping is kept for the merged print, and the informers still stop.
	shutdowns = 0
	bad := groupedAnswer(t, &shutdowns, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x"}})
	bad.groupNow()
	if _, err := bad.groupTable(); err == nil || !strings.Contains(err.Error(), "context ctx-1: --sum") {
		t.Errorf("groupTable error = %v, want one naming the context and --sum", err)
	}
	if shutdowns != 1 {
		t.Errorf("%d shutdowns after a failed grouping, want 1", shutdowns)
	}
}
