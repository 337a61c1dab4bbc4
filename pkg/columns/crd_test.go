package columns

import (
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestPrinterColumnsFromCRD(t *testing.T) {
	crd := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]interface{}{"name": "widgets.example.com"},
		"spec": map[string]interface{}{"versions": []interface{}{
			map[string]interface{}{"name": "v1", "additionalPrinterColumns": []interface{}{
				map[string]interface{}{"name": "Size", "type": "integer", "format": "int32", "jsonPath": ".spec.size"},
				map[string]interface{}{"name": "Owner", "type": "string", "priority": int64(1), "jsonPath": ".spec.owner", "description": "who"},
			}},
			map[string]interface{}{"name": "v1beta1"},
			map[string]interface{}{"name": "v0", "additionalPrinterColumns": []interface{}{
				map[string]interface{}{"name": "Size", "type": "integer", "priority": "high"},
			}},
		}},
	}}
	tests := []struct {
		name    string
		version string
		want    []PrinterColumn
		wantErr bool
	}{
		{name: "columns", version: "v1", want: []PrinterColumn{
			{Name: "Size", Type: "integer", Format: "int32", JSONPath: ".spec.size"},
			{Name: "Owner", Type: "string", Priority: 1, JSONPath: ".spec.owner", Description: "who"},
		}},
		{name: "no columns", version: "v1beta1", want: []PrinterColumn{}},
		{name: "malformed column", version: "v0", wantErr: true},
		{name: "no such version", version: "v2", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := PrinterColumnsFromCRD(crd, tt.version)
			if (err != nil) != tt.wantErr {
				t.Fatalf("PrinterColumnsFromCRD(%q) error = %v, want error %v", tt.version, err, tt.wantErr)
			}
			if !tt.wantErr && !slices.Equal(got, tt.want) {
				t.Errorf("PrinterColumnsFromCRD(%q) = %+v, want %+v", tt.version, got, tt.want)
			}
		})
	}
}

func TestForCustomResourceCells(t *testing.T) {
	created := now.Add(-26 * time.Hour).Format(time.RFC3339)
	obj := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]interface{}{"name": "w1", "namespace": "default", "creationTimestamp": created},
		"spec": map[string]interface{}{
			"int": int64(3), "float": 2.5, "whole": 4.0, "big": 1e21, "small": 0.000001, "large": 1234567.0,
			"bool": true, "str": "hello", "null": nil,
			"map":  map[string]interface{}{"b": int64(1), "a": "x"},
			"list": []interface{}{"x", int64(2)},
			"when": created, "bad": "yesterday", "empty": "",
		},
	}}
	tests := []struct {
		// typ and path make one printer column; the comments name the tableconvertor rule.
		typ, path, want string
	}{
		// integer: int64 as is, float64 truncated, other types nil (an empty cell).
		{"integer", ".spec.int", "3"},
		{"integer", ".spec.float", "2"},
		{"integer", ".spec.str", ""},
		// number: float64, int64 widened; kubectl prints what it decodes from the JSON.
		{"number", ".spec.float", "2.5"},
		{"number", ".spec.int", "3"},
		{"number", ".spec.whole", "4"},
		{"number", ".spec.big", "1e+21"},
		{"number", ".spec.small", "1e-06"},
		{"number", ".spec.large", "1234567"},
		{"number", ".spec.bool", ""},
		// boolean: bools only.
		{"boolean", ".spec.bool", "true"},
		{"boolean", ".spec.str", ""},
		// string: JSONPath's PrintResults: text for scalars, JSON for maps and lists.
		{"string", ".spec.str", "hello"},
		{"string", ".spec.int", "3"},
		{"string", ".spec.float", "2.5"},
		{"string", ".spec.bool", "true"},
		{"string", ".spec.map", `{"a":"x","b":1}`},
		{"string", ".spec.list", `["x",2]`},
		// A JSON null is an invalid reflect.Value to PrintResults, which prints "<no value>".
		{"string", ".spec.null", "<no value>"},
		// date: the age of an RFC 3339 string, "<invalid>" if it does not parse, "<unknown>" if
		// empty; not a string: nil.
		{"date", ".spec.when", "26h"},
		{"date", ".metadata.creationTimestamp", "26h"},
		{"date", ".spec.bad", "<invalid>"},
		{"date", ".spec.empty", "<unknown>"},
		{"date", ".spec.int", ""},
		// A path that finds nothing: nil, whatever the type.
		{"string", ".spec.missing", ""},
		{"integer", ".status.replicas", ""},
		// An unknown type: nil.
		{"object", ".spec.map", ""},
	}
	for _, tt := range tests {
		t.Run(tt.typ+" "+tt.path, func(t *testing.T) {
			table, err := ForCustomResource([]PrinterColumn{{Name: "Col", Type: tt.typ, JSONPath: tt.path}})
			if err != nil {
				t.Fatalf("ForCustomResource: %v", err)
			}
			got, err := table.Row(obj, now)
			if err != nil {
				t.Fatalf("Row: %v", err)
			}
			if want := []string{"w1", tt.want}; !slices.Equal(got, want) {
				t.Errorf("Row(%s %s) = %q, want %q", tt.typ, tt.path, got, want)
			}
		})
	}
}

func TestForCustomResourceTable(t *testing.T) {
	t.Run("default columns", func(t *testing.T) {
		// serveDefaultColumnsIfEmpty: no printer columns serve NAME and AGE.
		table, err := ForCustomResource(nil)
		if err != nil {
			t.Fatalf("ForCustomResource(nil): %v", err)
		}
		want := []Column{{Header: "NAME", Format: FormatName}, {Header: "AGE"}}
		if !slices.Equal(table.Columns, want) {
			t.Errorf("ForCustomResource(nil).Columns = %+v, want %+v", table.Columns, want)
		}
		// A typed object is converted to unstructured; metadata is enough for AGE.
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x", CreationTimestamp: ago(3 * 24 * time.Hour)}}
		got, err := table.Row(cm, now)
		if err != nil {
			t.Fatalf("Row: %v", err)
		}
		if want := []string{"x", "3d"}; !slices.Equal(got, want) {
			t.Errorf("Row(configmap) = %q, want %q", got, want)
		}
		// So is the metadata of a metadata-only cache.
		partial := &metav1.PartialObjectMetadata{ObjectMeta: cm.ObjectMeta}
		got, err = table.Row(partial, now)
		if err != nil {
			t.Fatalf("Row(partial): %v", err)
		}
		if want := []string{"x", "3d"}; !slices.Equal(got, want) {
			t.Errorf("Row(partial) = %q, want %q", got, want)
		}
	})
	t.Run("wide and format", func(t *testing.T) {
		// Priority > 0 is wide-only; the column's format is kept; names are upper-cased.
		table, err := ForCustomResource([]PrinterColumn{
			{Name: "Ready", Type: "string", JSONPath: ".status.ready"},
			{Name: "Node Name", Type: "string", Format: "name", Priority: 1, JSONPath: ".spec.node"},
		})
		if err != nil {
			t.Fatalf("ForCustomResource: %v", err)
		}
		want := []Column{{Header: "NAME", Format: FormatName}, {Header: "READY"}, {Header: "NODE NAME", Wide: true, Format: "name"}}
		if !slices.Equal(table.Columns, want) {
			t.Errorf("Columns = %+v, want %+v", table.Columns, want)
		}
	})
	t.Run("bad JSONPath", func(t *testing.T) {
		if _, err := ForCustomResource([]PrinterColumn{{Name: "X", Type: "string", JSONPath: ".spec[?("}}); err == nil {
			t.Errorf("ForCustomResource(.spec[?() error = nil, want an error")
		}
	})
	t.Run("no metadata", func(t *testing.T) {
		table, _ := ForCustomResource(nil)
		if got, err := table.Row(&metav1.Status{}, now); err == nil {
			t.Errorf("Row(Status) = %q, nil, want an error", got)
		}
	})
}

// TestForCustomResourceConcurrent runs one Table's RowFunc from several goroutines (go test -race):
// a jsonpath.JSONPath is not safe for concurrent use, so each call takes parsed paths of its own.
func TestForCustomResourceConcurrent(t *testing.T) {
	table, err := ForCustomResource([]PrinterColumn{
		{Name: "Phase", Type: "string", JSONPath: ".status.phase"},
		{Name: "Items", Type: "string", JSONPath: ".spec.items[*].name"},
	})
	if err != nil {
		t.Fatalf("ForCustomResource: %v", err)
	}
	obj := &unstructured.Unstructured{Object: map[string]interface{}{
		"metadata": map[string]interface{}{"name": "w"},
		"spec":     map[string]interface{}{"items": []interface{}{map[string]interface{}{"name": "a"}}},
		"status":   map[string]interface{}{"phase": "Running"},
	}}
	want := []string{"w", "Running", "a"}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				got, err := table.Row(obj, now)
				if err != nil || !slices.Equal(got, want) {
					t.Errorf("Row = %q, %v, want %q", got, err, want)
					return
				}
			}
		}()
	}
	wg.Wait()
}
