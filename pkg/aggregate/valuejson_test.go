package aggregate

import (
	"encoding/json"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
)

// A table survives JSON: every kind of cell prints, and adds up, as before.
func TestValueJSONRoundTrip(t *testing.T) {
	q := resource.MustParse
	table := Table{
		Columns: []string{"node", "count", "requests.cpu", "pods"},
		Headers: []string{"NODE", "COUNT", "REQUESTS.CPU", "PODS"},
		Rows: [][]Value{
			{Text("worker-1"), Count(10000), Quantity(q("1330m")), CountShare(12, q("110"), true)},
			{Text(""), Count(0), Share(q("250m"), q("4"), true), CountShare(3, resource.Quantity{}, false)},
			{{}, Count(1), Share(q("1Gi"), resource.Quantity{}, false), Quantity(q("0"))},
		},
		Total: []Value{Text(TotalLabel), Count(10001), Quantity(q("1580m")), {}},
	}
	b, err := json.Marshal(table)
	if err != nil {
		t.Fatal(err)
	}
	var got Table
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("decoding %s: %v", b, err)
	}
	wantHeader, wantRows := table.Strings()
	gotHeader, gotRows := got.Strings()
	if !reflect.DeepEqual(gotHeader, wantHeader) || !reflect.DeepEqual(gotRows, wantRows) {
		t.Errorf("after JSON the table prints\n%q\n%q\nwant\n%q\n%q", gotHeader, gotRows, wantHeader, wantRows)
	}
	for i, row := range table.Rows {
		for j, v := range row {
			w := got.Rows[i][j]
			if v.IsBlank() != w.IsBlank() || v.Text() != w.Text() {
				t.Errorf("cell %d,%d = %#v, want %#v", i, j, w, v)
			}
			vq, wq := v.Quantity(), w.Quantity()
			if vq.Cmp(wq) != 0 {
				t.Errorf("cell %d,%d quantity = %s, want %s", i, j, wq.String(), vq.String())
			}
			va, vk := v.Allocatable()
			wa, wk := w.Allocatable()
			if vk != wk || va.Cmp(wa) != 0 {
				t.Errorf("cell %d,%d allocatable = %s %v, want %s %v", i, j, wa.String(), wk, va.String(), vk)
			}
		}
	}
}

func TestValueJSONRejectsTwoKinds(t *testing.T) {
	var v Value
	if err := json.Unmarshal([]byte(`{"text":"a","number":"1"}`), &v); err == nil {
		t.Error("a cell with a text and a number decoded without an error")
	}
}
