package columns

import (
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// now is the time every test measures ages from.
var now = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

// ago returns the metav1.Time d before now.
func ago(d time.Duration) metav1.Time { return metav1.NewTime(now.Add(-d)) }

// agoPtr returns a pointer to ago(d).
func agoPtr(d time.Duration) *metav1.Time { t := ago(d); return &t }

// objMeta returns the ObjectMeta of an object called name, created 5m before now.
func objMeta(name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: "default", CreationTimestamp: ago(5 * time.Minute)}
}

func ptr[T any](v T) *T { return &v }

// rowCase is one object and the full row (wide columns included) kubectl prints for it.
type rowCase struct {
	name string
	obj  runtime.Object
	want []string
}

// runRows checks each case's row against the Table of gr, for the typed object and for the same
// object as unstructured.
func runRows(t *testing.T, gr schema.GroupResource, cases []rowCase) {
	t.Helper()
	table, ok := For(gr)
	if !ok {
		t.Fatalf("For(%v) = _, false, want a table", gr)
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			if len(tt.want) != len(table.Columns) {
				t.Fatalf("test case has %d cells, table %v has %d columns", len(tt.want), gr, len(table.Columns))
			}
			got, err := table.Row(tt.obj, now)
			if err != nil {
				t.Fatalf("Row(%s) error: %v", tt.name, err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Row(%s) =\n  %q, want\n  %q", tt.name, got, tt.want)
			}
			content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(tt.obj)
			if err != nil {
				t.Fatalf("ToUnstructured: %v", err)
			}
			got, err = table.Row(&unstructured.Unstructured{Object: content}, now)
			if err != nil {
				t.Fatalf("Row(unstructured %s) error: %v", tt.name, err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Row(unstructured %s) =\n  %q, want\n  %q", tt.name, got, tt.want)
			}
		})
	}
}
