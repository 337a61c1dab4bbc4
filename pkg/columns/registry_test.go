package columns

import (
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestResources(t *testing.T) {
	got := Resources()
	var names []string
	for _, gr := range got {
		names = append(names, gr.String())
	}
	want := []string{
		"configmaps", "events", "namespaces", "nodes", "persistentvolumeclaims", "persistentvolumes", "pods",
		"secrets", "services",
		"daemonsets.apps", "deployments.apps", "replicasets.apps", "statefulsets.apps",
		"cronjobs.batch", "jobs.batch",
		"ingresses.networking.k8s.io",
	}
	if !slices.Equal(names, want) {
		t.Errorf("Resources() = %q, want %q", names, want)
	}
	for _, gr := range got {
		table, ok := For(gr)
		if !ok {
			t.Errorf("For(%v) = _, false, want a table", gr)
			continue
		}
		// Every table has exactly one name column; only events put it last and wide.
		var name []int
		for i, c := range table.Columns {
			if c.Format == FormatName {
				name = append(name, i)
			}
			if c.Header != strings.ToUpper(c.Header) {
				t.Errorf("For(%v) column %q is not upper case", gr, c.Header)
			}
		}
		wantName := []int{0}
		if gr.Resource == "events" {
			wantName = []int{len(table.Columns) - 1}
		}
		if !slices.Equal(name, wantName) {
			t.Errorf("For(%v) name columns at %v, want %v", gr, name, wantName)
		}
	}
	if _, ok := For(schema.GroupResource{Group: "example.com", Resource: "widgets"}); ok {
		t.Errorf("For(widgets.example.com) = _, true, want false")
	}
}

func TestTableHeadersVisible(t *testing.T) {
	table, _ := For(schema.GroupResource{Group: "apps", Resource: "deployments"})
	tests := []struct {
		wide        bool
		wantHeaders []string
		wantCells   []string
	}{
		{false, []string{"NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"}, []string{"a", "b", "c", "d", "e"}},
		{true, []string{"NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "CONTAINERS", "IMAGES", "SELECTOR"},
			[]string{"a", "b", "c", "d", "e", "f", "g", "h"}},
	}
	// One cell too many: dropped, as kubectl drops cells beyond the columns.
	row := []string{"a", "b", "c", "d", "e", "f", "g", "h", "extra"}
	for _, tt := range tests {
		if got := table.Headers(tt.wide); !slices.Equal(got, tt.wantHeaders) {
			t.Errorf("Headers(%v) = %q, want %q", tt.wide, got, tt.wantHeaders)
		}
		if got := table.Visible(row, tt.wide); !slices.Equal(got, tt.wantCells) {
			t.Errorf("Visible(%v) = %q, want %q", tt.wide, got, tt.wantCells)
		}
	}
}

func TestRowWrongObject(t *testing.T) {
	pods, _ := For(schema.GroupResource{Resource: "pods"})
	tests := []struct {
		name string
		obj  runtime.Object
	}{
		{name: "another type", obj: &appsv1.Deployment{ObjectMeta: objMeta("web")}},
		{name: "metadata only", obj: &metav1.PartialObjectMetadata{ObjectMeta: objMeta("web")}},
		{name: "unstructured of the wrong shape", obj: &unstructured.Unstructured{Object: map[string]interface{}{
			"kind": "Pod", "metadata": map[string]interface{}{"name": "web"}, "spec": "not an object"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, err := pods.Row(tt.obj, now); err == nil {
				t.Errorf("pods Row(%T) = %q, nil, want an error", tt.obj, got)
			}
		})
	}
}
