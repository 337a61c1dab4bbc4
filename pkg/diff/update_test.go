package diff

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/kubectl-informer/kubectl-informer/internal/testpods"
)

func TestUpdate(t *testing.T) {
	const (
		cm = `{"kind": "ConfigMap", "metadata": {"name": "web", "resourceVersion": "1", "labels": {"app": "web"}},
			"data": {"a": "1"}, "status": {"phase": "Ready"}}`
		pod = `{"kind": "Pod", "metadata": {"name": "web-1", "resourceVersion": "1"},
			"spec": {"containers": [{"name": "web", "image": "nginx"}, {"name": "log", "image": "fluent-bit"}]}}`
	)
	tests := []struct {
		name     string
		old, new string
		opts     func(t *testing.T) Options
		// want* are what each part of NewUpdate(old, new, opts, false) returns.
		wantChanged   bool
		wantChanges   []string // changeLines
		wantPatch     string   // as JSON
		wantProjected [2]string
		wantUnified   string // what WriteUnified writes after the labels, with one line of context
	}{
		{
			name: "a label changed",
			old:  cm,
			new: `{"kind": "ConfigMap", "metadata": {"name": "web", "resourceVersion": "2", "labels": {"app": "shop"}},
				"data": {"a": "1"}, "status": {"phase": "Ready"}}`,
			opts:        func(t *testing.T) Options { return Options{Ignore: DefaultIgnore()} },
			wantChanged: true,
			wantChanges: []string{`~ metadata.labels.app: "web" → "shop"`},
			wantPatch:   `[{"op":"replace","path":"/metadata/labels/app","value":"shop"}]`,
			wantProjected: [2]string{
				`{"data":{"a":"1"},"kind":"ConfigMap","metadata":{"labels":{"app":"web"},"name":"web"},"status":{"phase":"Ready"}}`,
				`{"data":{"a":"1"},"kind":"ConfigMap","metadata":{"labels":{"app":"shop"},"name":"web"},"status":{"phase":"Ready"}}`,
			},
			wantUnified: "@@ -5,3 +5,3 @@\n   labels:\n-    app: web\n+    app: shop\n   name: web\n",
		},
		{
			name: "bookkeeping only: nothing",
			old:  cm,
			new: `{"kind": "ConfigMap", "metadata": {"name": "web", "resourceVersion": "2", "labels": {"app": "web"}},
				"data": {"a": "1"}, "status": {"phase": "Ready"}}`,
			opts:      func(t *testing.T) Options { return Options{Ignore: DefaultIgnore()} },
			wantPatch: `[]`,
			wantProjected: [2]string{
				`{"data":{"a":"1"},"kind":"ConfigMap","metadata":{"labels":{"app":"web"},"name":"web"},"status":{"phase":"Ready"}}`,
				`{"data":{"a":"1"},"kind":"ConfigMap","metadata":{"labels":{"app":"web"},"name":"web"},"status":{"phase":"Ready"}}`,
			},
		},
		{
			name: "named elements reordered: no change by name, a patch by index",
			old:  pod,
			new: `{"kind": "Pod", "metadata": {"name": "web-1", "resourceVersion": "2"},
				"spec": {"containers": [{"name": "log", "image": "fluent-bit"}, {"name": "web", "image": "nginx"}]}}`,
			opts: func(t *testing.T) Options { return Options{Ignore: DefaultIgnore(), Only: paths(t, "spec")} },
			wantPatch: `[{"op":"replace","path":"/spec/containers/0/image","value":"fluent-bit"},{"op":"replace","path":"/spec/containers/0/name","value":"log"},` +
				`{"op":"replace","path":"/spec/containers/1/image","value":"nginx"},{"op":"replace","path":"/spec/containers/1/name","value":"web"}]`,
			wantProjected: [2]string{
				`{"spec":{"containers":[{"image":"nginx","name":"web"},{"image":"fluent-bit","name":"log"}]}}`,
				`{"spec":{"containers":[{"image":"fluent-bit","name":"log"},{"image":"nginx","name":"web"}]}}`,
			},
			wantUnified: "@@ -2,5 +2,5 @@\n   containers:\n-  - image: nginx\n-    name: web\n   - image: fluent-bit\n     name: log\n+  - image: nginx\n+    name: web\n",
		},
		{
			name: "--only status leaves the label out",
			old:  cm,
			new: `{"kind": "ConfigMap", "metadata": {"name": "web", "resourceVersion": "2", "labels": {"app": "shop"}},
				"data": {"a": "1"}, "status": {"phase": "Failed"}}`,
			opts:        func(t *testing.T) Options { return Options{Ignore: DefaultIgnore(), Only: paths(t, "status")} },
			wantChanged: true,
			wantChanges: []string{`~ status.phase: "Ready" → "Failed"`},
			wantPatch:   `[{"op":"replace","path":"/status/phase","value":"Failed"}]`,
			wantProjected: [2]string{
				`{"status":{"phase":"Ready"}}`,
				`{"status":{"phase":"Failed"}}`,
			},
			wantUnified: "@@ -1,2 +1,2 @@\n status:\n-  phase: Ready\n+  phase: Failed\n",
		},
		{
			name: "redacted: hidden in the changes and the unified diff, not in the patch",
			old:  cm,
			new: `{"kind": "ConfigMap", "metadata": {"name": "web", "resourceVersion": "1", "labels": {"app": "web"}},
				"data": {"a": "2"}, "status": {"phase": "Ready"}}`,
			opts:        func(t *testing.T) Options { return Options{Ignore: DefaultIgnore(), Redact: paths(t, "data")} },
			wantChanged: true,
			wantChanges: []string{`~ data.a: (hidden)`},
			wantPatch:   `[{"op":"replace","path":"/data/a","value":"2"}]`,
			wantProjected: [2]string{
				`{"data":{"a":"1"},"kind":"ConfigMap","metadata":{"labels":{"app":"web"},"name":"web"},"status":{"phase":"Ready"}}`,
				`{"data":{"a":"2"},"kind":"ConfigMap","metadata":{"labels":{"app":"web"},"name":"web"},"status":{"phase":"Ready"}}`,
			},
			wantUnified: "@@ -1,3 +1,3 @@\n data:\n-  a: (hidden)\n+  a: (hidden, changed)\n kind: ConfigMap\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := tt.opts(t)
			u, err := NewUpdate(obj(t, tt.old), obj(t, tt.new), opts, false)
			if err != nil {
				t.Fatalf("NewUpdate: %v", err)
			}
			if got := u.Changed(); got != tt.wantChanged {
				t.Errorf("Changed() = %v, want %v", got, tt.wantChanged)
			}
			if got := changeLines(u.Changes()); !reflect.DeepEqual(got, tt.wantChanges) {
				t.Errorf("Changes() = %q, want %q", got, tt.wantChanges)
			}
			if got := u.Changed(); got != tt.wantChanged {
				t.Errorf("Changed() after Changes() = %v, want %v", got, tt.wantChanged)
			}
			if got := jsonString(u.Patch()); got != tt.wantPatch {
				t.Errorf("Patch() = %s, want %s", got, tt.wantPatch)
			}
			old, new := u.Projected()
			if got := [2]string{jsonString(old), jsonString(new)}; got != tt.wantProjected {
				t.Errorf("Projected() = %s, want %s", got, tt.wantProjected)
			}
			var out bytes.Buffer
			if err := u.WriteUnified(&out, "old", "new", 1, false); err != nil {
				t.Fatalf("WriteUnified: %v", err)
			}
			if got := strings.TrimPrefix(out.String(), "--- old\n+++ new\n"); got != tt.wantUnified {
				t.Errorf("WriteUnified() wrote\n%s\nwant\n%s", got, tt.wantUnified)
			}
		})
	}
}

// Each part of an Update is what the package's function of the same name
// returns for the maps of UpdateMaps, typed objects included, and is
// computed once: asked again, it is the same value.
func TestUpdatePartsAreTheFunctionsOnce(t *testing.T) {
	optsOf := map[string]Options{
		"defaults":    {Ignore: DefaultIgnore()},
		"only spec":   {Ignore: DefaultIgnore(), Only: paths(t, "spec")},
		"ignore meta": {Ignore: append(DefaultIgnore(), paths(t, "metadata")...)},
		"redact spec": {Ignore: DefaultIgnore(), Redact: paths(t, "spec.containers")},
	}
	for _, edit := range testpods.Edits {
		for optsName, opts := range optsOf {
			for _, whole := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/whole=%v", edit.Name, optsName, whole), func(t *testing.T) {
					oldObj, newObj := testpods.Pair(edit.Edit)
					u, err := NewUpdate(oldObj, newObj, opts, whole)
					if err != nil {
						t.Fatal(err)
					}
					old, new, err := UpdateMaps(oldObj, newObj, whole)
					if err != nil {
						t.Fatal(err)
					}
					if got, want := u.Changed(), Changed(old, new, opts); got != want {
						t.Errorf("Changed() = %v, want %v", got, want)
					}
					changes := u.Changes()
					if want := Compare(old, new, opts); !reflect.DeepEqual(changes, want) {
						t.Errorf("Changes() = %q, want %q", changeLines(changes), changeLines(want))
					}
					patch := u.Patch()
					if want := JSONPatch(old, new, opts); !reflect.DeepEqual(patch, want) {
						t.Errorf("Patch() = %s, want %s", jsonString(patch), jsonString(want))
					}
					po, pn := u.Projected()
					if wo, wn := Project(old, opts), Project(new, opts); !reflect.DeepEqual(po, wo) || !reflect.DeepEqual(pn, wn) {
						t.Errorf("Projected() = %s, %s, want %s, %s", jsonString(po), jsonString(pn), jsonString(wo), jsonString(wn))
					}
					var got, want bytes.Buffer
					if err := u.WriteUnified(&got, "a", "b", 3, true); err != nil {
						t.Fatal(err)
					}
					if err := Unified(&want, "a", "b", old, new, opts, 3, true); err != nil {
						t.Fatal(err)
					}
					if got.String() != want.String() {
						t.Errorf("WriteUnified() wrote\n%s\nwant (Unified)\n%s", got.String(), want.String())
					}

					if again := u.Changes(); len(changes) > 0 && &again[0] != &changes[0] {
						t.Errorf("Changes() asked again computed them again")
					}
					if again := u.Patch(); len(patch) > 0 && &again[0] != &patch[0] {
						t.Errorf("Patch() asked again computed it again")
					}
					if ao, an := u.Projected(); !sameMap(ao, po) || !sameMap(an, pn) {
						t.Errorf("Projected() asked again computed them again")
					}
				})
			}
		}
	}
}

func sameMap(a, b map[string]interface{}) bool {
	return reflect.ValueOf(a).Pointer() == reflect.ValueOf(b).Pointer()
}

func TestNewUpdateOfWhatIsNoObject(t *testing.T) {
	tests := []struct {
		name     string
		old, new interface{}
	}{
		{"nil", nil, nil},
		{"not objects", "a", "b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if u, err := NewUpdate(tt.old, tt.new, Options{}, false); err == nil {
				t.Errorf("NewUpdate(%#v, %#v) = %v, nil, want an error", tt.old, tt.new, u)
			}
		})
	}
}
