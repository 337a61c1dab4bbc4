package index

import (
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"
)

func TestComputedIndex(t *testing.T) {
	pod := runningPod()
	tests := []struct {
		name      string
		expr      string
		obj       interface{}
		want      []string
		wantFails int
	}{
		{name: "images of a typed pod, deduplicated", expr: "object.spec.containers.map(c, c.image)", obj: pod,
			want: []string{"nginx:1.27", "envoy:1.30"}},
		{name: "same on an unstructured pod", expr: "object.spec.containers.map(c, c.image)", obj: toUnstructured(t, pod),
			want: []string{"nginx:1.27", "envoy:1.30"}},
		{name: "kind from TypeMeta", expr: "object.kind", obj: pod, want: []string{"Pod"}},
		{name: "number", expr: "object.spec.containers.size()", obj: pod, want: []string{"3"}},
		{name: "bool", expr: "has(object.spec.nodeName)", obj: pod, want: []string{"true"}},
		{name: "custom resource", expr: "object.spec.color", obj: widget(), want: []string{"blue"}},
		{name: "absent optional is no value", expr: "object.spec.?shape", obj: widget()},
		{name: "missing field is counted", expr: "object.spec.shape", obj: widget(), wantFails: 1},
		{name: "tombstone", expr: "object.spec.color",
			obj: cache.DeletedFinalStateUnknown{Key: "shop/blue-widget", Obj: widget()}, want: []string{"blue"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, err := NewSet(Custom{Name: "computed", JSONPath: tt.expr})
			if err != nil {
				t.Fatalf("NewSet(computed=%s) = %v, want nil", tt.expr, err)
			}
			def, err := set.Lookup("computed")
			if err != nil {
				t.Fatalf(`Lookup("computed") = %v, want nil`, err)
			}
			if def.Expr == nil || def.MetadataOnly {
				t.Fatalf("Lookup(computed=%s) = Expr %v, MetadataOnly %v; want a guard and full objects", tt.expr, def.Expr, def.MetadataOnly)
			}
			got, err := def.Func(tt.obj)
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("%s(%T) = %q, %v, want %q, nil", tt.expr, tt.obj, got, err, tt.want)
			}
			if obj, ok := tt.obj.(runtime.Object); ok {
				if got := indexedValues(t, def, obj); !reflect.DeepEqual(got, sorted(tt.want)) {
					t.Errorf("indexed values of %s(%T) = %q, want %q", tt.expr, tt.obj, got, sorted(tt.want))
				}
			}
			if got := def.Expr.Count(); got != tt.wantFails {
				t.Errorf("failures of %s after indexing %T = %d, want %d (each object once): %v", tt.expr, tt.obj, got, tt.wantFails, def.Expr.Err())
			}
		})
	}
}

func TestParseCustomCEL(t *testing.T) {
	tests := []struct {
		in, wantErr string
	}{
		{in: "n=object.spec.nodeName"},
		{in: "n=objet.spec.nodeName", wantErr: ""}, // not CEL by the rule: a relaxed JSONPath
		{in: "n=object.spec.nodeName ==", wantErr: "--indexer n: 1:"},
		{in: "n=object.spec.containers.size() + 'a'", wantErr: "--indexer n: 1:"},
		{in: "n=[{'a': object}]", wantErr: "--indexer n: 1:1: expression has type list(map"},
		{in: "node=object.spec.nodeName", wantErr: "taken by a built-in index"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			_, err := ParseCustom(tt.in)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("ParseCustom(%q) = %v, want nil", tt.in, err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("ParseCustom(%q) = %v, want an error containing %q", tt.in, err, tt.wantErr)
			}
		})
	}
}
