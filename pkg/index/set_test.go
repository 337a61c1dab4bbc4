package index

import (
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

// qualifiedNameErrors returns apimachinery's reasons why key is not a qualified name, joined as
// Lookup joins them.
func qualifiedNameErrors(key string) string {
	return strings.Join(validation.IsQualifiedName(key), "; ")
}

func TestNewSet(t *testing.T) {
	tests := []struct {
		name    string
		custom  []Custom
		wantErr string
	}{
		{name: "built-ins only"},
		{name: "two custom indexes", custom: []Custom{{Name: "img", JSONPath: ".spec.containers[*].image"},
			{Name: "color", JSONPath: "{.spec.color}"}}},
		{name: "duplicate name", custom: []Custom{{Name: "img", JSONPath: ".a"}, {Name: "img", JSONPath: ".b"}},
			wantErr: `--indexer: duplicate index name "img"`},
		{name: "built-in name", custom: []Custom{{Name: "phase", JSONPath: ".status.phase"}},
			wantErr: `--indexer: index name "phase" is taken by a built-in index; choose another name`},
		{name: "invalid JSONPath", custom: []Custom{{Name: "img", JSONPath: "{.a}{.b}"}},
			wantErr: `--indexer img: invalid JSONPath "{.a}{.b}": ` +
				`want a single expression such as {.spec.x}, .spec.x or spec.x`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, err := NewSet(tt.custom...)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Errorf("NewSet(%+v) error = %v, want %s", tt.custom, err, tt.wantErr)
				}
				return
			}
			if err != nil || set == nil {
				t.Fatalf("NewSet(%+v) = %v, %v, want a Set, nil", tt.custom, set, err)
			}
			custom := set.Custom()
			if len(custom) != len(tt.custom) {
				t.Fatalf("NewSet(%+v).Custom() has %d definitions, want %d", tt.custom, len(custom), len(tt.custom))
			}
			for i, c := range tt.custom {
				if custom[i].Name != c.Name || custom[i].Func == nil {
					t.Errorf("NewSet(%+v).Custom()[%d] = {%q, Func nil: %v}, want {%q, Func set}",
						tt.custom, i, custom[i].Name, custom[i].Func == nil, c.Name)
				}
			}
		})
	}
}

func TestLookup(t *testing.T) {
	set, err := NewSet(Custom{Name: "img", JSONPath: "{.spec.containers[*].image}"})
	if err != nil {
		t.Fatalf("NewSet() = %v, want nil", err)
	}
	const known = "namespace, label:KEY, annotation:KEY, owner, owner-uid, owner-root, selected-by, selects, node, node.label:KEY, node.annotation:KEY, phase, image, uses, used-by, event.reason, event.type, event.message, img"
	tests := []struct {
		name            string
		index           string
		wantDescription string
		wantErr         string
	}{
		{name: "namespace", index: "namespace",
			wantDescription: "the object's namespace; cluster-scoped objects have no value"},
		{name: "label", index: "label:app", wantDescription: `the value of label "app"`},
		{name: "prefixed label", index: "label:app.kubernetes.io/name",
			wantDescription: `the value of label "app.kubernetes.io/name"`},
		{name: "annotation", index: "annotation:example.com/team",
			wantDescription: `the value of annotation "example.com/team"`},
		{name: "owner", index: "owner",
			wantDescription: "KIND/NAME of each owner reference, e.g. ReplicaSet/web-5d9c7"},
		{name: "owner-uid", index: "owner-uid", wantDescription: "the UID of each owner reference"},
		{name: "node", index: "node",
			wantDescription: "spec.nodeName; unscheduled pods have the empty value (node=)"},
		{name: "phase", index: "phase", wantDescription: "status.phase, e.g. Running for pods or Bound for claims"},
		{name: "image", index: "image",
			wantDescription: "every container image of a pod or of a workload's pod template"},
		{name: "custom", index: "img", wantDescription: "custom JSONPath {.spec.containers[*].image}"},

		{name: "unknown", index: "nod", wantErr: `unknown index "nod"; known: ` + known},
		{name: "empty", index: "", wantErr: `unknown index ""; known: ` + known},
		{name: "family without key", index: "label", wantErr: `unknown index "label"; known: ` + known},
		{name: "case matters", index: "Node", wantErr: `unknown index "Node"; known: ` + known},
		{name: "label without key", index: "label:", wantErr: `index "label:" needs a label key, e.g. label:app`},
		{name: "annotation without key", index: "annotation:",
			wantErr: `index "annotation:" needs an annotation key, e.g. annotation:app`},
		// The reason comes from apimachinery's validation, so a dependency update may reword it.
		{name: "invalid label key", index: "label:bad key",
			wantErr: `index "label:bad key": invalid label key "bad key": ` + qualifiedNameErrors("bad key")},
		{name: "invalid annotation prefix", index: "annotation:Example.com/team",
			wantErr: `index "annotation:Example.com/team": invalid annotation key "Example.com/team": ` +
				qualifiedNameErrors("Example.com/team")},
		{name: "label key too long", index: "label:" + strings.Repeat("a", 64),
			wantErr: `index "label:` + strings.Repeat("a", 64) + `": invalid label key "` + strings.Repeat("a", 64) +
				`": ` + qualifiedNameErrors(strings.Repeat("a", 64))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			def, err := set.Lookup(tt.index)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Errorf("Lookup(%q) error = %v, want %s", tt.index, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Lookup(%q) = %v, want nil", tt.index, err)
			}
			if def.Name != tt.index || def.Description != tt.wantDescription || def.Func == nil {
				t.Errorf("Lookup(%q) = {%q, %q, Func nil: %v}, want {%q, %q, Func set}",
					tt.index, def.Name, def.Description, def.Func == nil, tt.index, tt.wantDescription)
			}
		})
	}
}

func TestLookupWithoutSet(t *testing.T) {
	const known = "namespace, label:KEY, annotation:KEY, owner, owner-uid, owner-root, selected-by, selects, node, node.label:KEY, node.annotation:KEY, phase, image, uses, used-by, event.reason, event.type, event.message"
	tests := []struct {
		name    string
		set     *Set
		index   string
		wantErr string
	}{
		{name: "nil set, built-in", set: nil, index: "node"},
		{name: "nil set, label", set: nil, index: "label:app"},
		{name: "nil set, unknown", set: nil, index: "img", wantErr: `unknown index "img"; known: ` + known},
		{name: "zero set, built-in", set: &Set{}, index: "image"},
		{name: "zero set, unknown", set: &Set{}, index: "img", wantErr: `unknown index "img"; known: ` + known},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			def, err := tt.set.Lookup(tt.index)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Errorf("Lookup(%q) error = %v, want %s", tt.index, err, tt.wantErr)
				}
				return
			}
			if err != nil || def.Name != tt.index || def.Func == nil {
				t.Errorf("Lookup(%q) = {%q, Func nil: %v}, %v, want {%q, Func set}, nil",
					tt.index, def.Name, def.Func == nil, err, tt.index)
			}
		})
	}
}

func TestNames(t *testing.T) {
	builtins := []string{"namespace", "label:KEY", "annotation:KEY", "owner", "owner-uid", "owner-root", "selected-by", "selects", "node", "node.label:KEY", "node.annotation:KEY", "phase", "image", "uses", "used-by", "event.reason", "event.type", "event.message"}
	tests := []struct {
		name   string
		custom []Custom
		want   []string
	}{
		{name: "built-ins only", want: builtins},
		{name: "custom in order given", custom: []Custom{{Name: "zz", JSONPath: ".a"}, {Name: "img", JSONPath: ".b"}},
			want: append(append([]string(nil), builtins...), "zz", "img")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, err := NewSet(tt.custom...)
			if err != nil {
				t.Fatalf("NewSet(%+v) = %v, want nil", tt.custom, err)
			}
			if got := set.Names(); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("NewSet(%+v).Names() = %q, want %q", tt.custom, got, tt.want)
			}
		})
	}
}

func TestBuiltins(t *testing.T) {
	want := []string{"namespace", "label:KEY", "annotation:KEY", "owner", "owner-uid", "owner-root", "selected-by", "selects", "node", "node.label:KEY", "node.annotation:KEY", "phase", "image", "uses", "used-by", "event.reason", "event.type", "event.message"}
	builtins := Builtins()
	var got []string
	for _, b := range builtins {
		got = append(got, b.Name)
		if b.Description == "" {
			t.Errorf("Builtins() %q has an empty description, want one line", b.Name)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Builtins() names = %q, want %q", got, want)
	}
}
