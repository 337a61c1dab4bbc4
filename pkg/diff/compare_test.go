package diff

import (
	"reflect"
	"strings"
	"testing"
)

// compareTest is a pair of objects, the options to compare them with, the
// changes Compare must find and the object JSONPatch must turn old into.
type compareTest struct {
	name                 string
	old, new             string
	ignore, only, redact []string
	defaultIgnore        bool
	want                 []string // changeLines of the result
	// target is what applying JSONPatch to old must give; "" means new.
	target string
}

func (tt compareTest) options(t testing.TB) Options {
	t.Helper()
	opts := Options{Ignore: paths(t, tt.ignore...), Only: paths(t, tt.only...), Redact: paths(t, tt.redact...)}
	if tt.defaultIgnore {
		opts.Ignore = append(DefaultIgnore(), opts.Ignore...)
	}
	return opts
}

var compareTests = []compareTest{
	{
		name: "identical",
		old:  `{"a": 1, "b": {"c": [1, 2, {"d": null}]}}`,
		new:  `{"a": 1, "b": {"c": [1, 2, {"d": null}]}}`,
	},
	{
		name: "empty objects",
		old:  `{}`,
		new:  `{}`,
	},
	{
		name: "scalar changed",
		old:  `{"spec": {"replicas": 2, "paused": false}}`,
		new:  `{"spec": {"replicas": 3, "paused": false}}`,
		want: []string{`~ spec.replicas: 2 → 3`},
	},
	{
		name: "every scalar type",
		old:  `{"s": "a", "i": 1, "f": 1.5, "b": true, "n": null}`,
		new:  `{"s": "b", "i": 2, "f": 2.5, "b": false, "n": "x"}`,
		want: []string{
			`~ b: true → false`,
			`~ f: 1.5 → 2.5`,
			`~ i: 1 → 2`,
			`~ n: null → "x"`,
			`~ s: "a" → "b"`,
		},
	},
	{
		name: "integer and float of the same value are equal",
		old:  `{"a": 3, "b": 1e2}`,
		new:  `{"a": 3.0, "b": 100}`,
	},
	{
		name: "type changes",
		old:  `{"a": "1", "b": {"x": 1}, "c": [1], "d": {"x": 1}}`,
		new:  `{"a": 1, "b": "x", "c": {"0": 1}, "d": [1]}`,
		want: []string{
			`~ a: "1" → 1`,
			`~ b: {"x":1} → "x"`,
			`~ c: [1] → {"0":1}`,
			`~ d: {"x":1} → [1]`,
		},
	},
	{
		name: "nested keys added and removed",
		old:  `{"metadata": {"labels": {"app": "web", "tier": "frontend"}}}`,
		new:  `{"metadata": {"labels": {"app": "web", "team": "shop"}}}`,
		want: []string{
			`+ metadata.labels.team: "shop"`,
			`- metadata.labels.tier: "frontend"`,
		},
	},
	{
		name: "added subtree is one change",
		old:  `{"metadata": {"name": "a"}}`,
		new:  `{"metadata": {"name": "a", "annotations": {"x": "1", "y": {"z": [1, 2]}}}}`,
		want: []string{`+ metadata.annotations: {"x":"1","y":{"z":[1,2]}}`},
	},
	{
		name: "removed subtree is one change",
		old:  `{"spec": {"template": {"spec": {"containers": [{"name": "a"}]}}}, "x": 1}`,
		new:  `{"x": 1}`,
		want: []string{`- spec: {"template":{"spec":{"containers":[{"name":"a"}]}}}`},
	},
	{
		name: "null and missing differ",
		old:  `{"a": null, "b": 1, "c": null, "d": null}`,
		new:  `{"b": null, "c": null, "d": {"x": 1}, "e": null}`,
		want: []string{
			`- a: null`,
			`~ b: 1 → null`,
			`~ d: null → {"x":1}`,
			`+ e: null`,
		},
	},
	{
		name: "containers matched by name",
		old:  `{"spec": {"containers": [{"name": "web", "image": "nginx:1.26"}, {"name": "log", "image": "fluent-bit:3.0"}]}}`,
		new:  `{"spec": {"containers": [{"name": "web", "image": "nginx:1.27"}, {"name": "log", "image": "fluent-bit:3.0"}]}}`,
		want: []string{`~ spec.containers[name=web].image: "nginx:1.26" → "nginx:1.27"`},
	},
	{
		name: "reordered named list is not a change",
		old:  `{"spec": {"containers": [{"name": "web", "image": "a"}, {"name": "log", "image": "b"}, {"name": "proxy", "image": "c"}]}}`,
		new:  `{"spec": {"containers": [{"name": "proxy", "image": "c"}, {"name": "web", "image": "a"}, {"name": "log", "image": "b"}]}}`,
	},
	{
		name: "reordered named list shows only the real change",
		old:  `{"spec": {"containers": [{"name": "web", "image": "a"}, {"name": "log", "image": "b"}]}}`,
		new:  `{"spec": {"containers": [{"name": "log", "image": "b2"}, {"name": "web", "image": "a"}]}}`,
		want: []string{`~ spec.containers[name=log].image: "b" → "b2"`},
	},
	{
		name: "named elements added and removed",
		old:  `{"spec": {"containers": [{"name": "web", "image": "a"}, {"name": "log", "image": "b"}]}}`,
		new:  `{"spec": {"containers": [{"name": "web", "image": "a"}, {"name": "proxy", "image": "envoy"}]}}`,
		want: []string{
			`- spec.containers[name=log]: {"image":"b","name":"log"}`,
			`+ spec.containers[name=proxy]: {"image":"envoy","name":"proxy"}`,
		},
	},
	{
		name: "named list from empty",
		old:  `{"spec": {"containers": []}}`,
		new:  `{"spec": {"containers": [{"name": "web"}]}}`,
		want: []string{`+ spec.containers[name=web]: {"name":"web"}`},
	},
	{
		name: "conditions matched by type",
		old:  `{"status": {"conditions": [{"type": "Ready", "status": "True"}, {"type": "PodScheduled", "status": "True"}]}}`,
		new:  `{"status": {"conditions": [{"type": "PodScheduled", "status": "True"}, {"type": "Ready", "status": "False", "reason": "ContainersNotReady"}]}}`,
		want: []string{
			`+ status.conditions[type=Ready].reason: "ContainersNotReady"`,
			`~ status.conditions[type=Ready].status: "True" → "False"`,
		},
	},
	{
		name: "ports matched by number",
		old:  `{"ports": [{"containerPort": 8080, "protocol": "TCP"}, {"containerPort": 9090, "protocol": "TCP"}]}`,
		new:  `{"ports": [{"containerPort": 9090, "protocol": "UDP"}, {"containerPort": 8080, "protocol": "TCP"}]}`,
		want: []string{`~ ports[containerPort=9090].protocol: "TCP" → "UDP"`},
	},
	{
		name: "duplicate names fall back to the next field",
		old:  `{"volumeMounts": [{"name": "data", "mountPath": "/a"}, {"name": "data", "mountPath": "/b", "readOnly": true}]}`,
		new:  `{"volumeMounts": [{"name": "data", "mountPath": "/b", "readOnly": false}, {"name": "data", "mountPath": "/a"}]}`,
		want: []string{`~ volumeMounts[mountPath=/b].readOnly: true → false`},
	},
	{
		name: "list without identifying field compared by index",
		old:  `{"items": [{"a": 1}, {"a": 2}]}`,
		new:  `{"items": [{"a": 1}, {"a": 3}]}`,
		want: []string{`~ items[1].a: 2 → 3`},
	},
	{
		name: "duplicate keys everywhere fall back to index",
		old:  `{"items": [{"name": "a", "v": 1}, {"name": "a", "v": 2}]}`,
		new:  `{"items": [{"name": "a", "v": 2}, {"name": "a", "v": 1}]}`,
		want: []string{`~ items[0].v: 1 → 2`, `~ items[1].v: 2 → 1`},
	},
	{
		name: "index list element changed",
		old:  `{"args": ["--port=8080", "--v=2"]}`,
		new:  `{"args": ["--port=8080", "--v=4"]}`,
		want: []string{`~ args[1]: "--v=2" → "--v=4"`},
	},
	{
		name: "index list grows",
		old:  `{"args": ["a"]}`,
		new:  `{"args": ["a", "b", ["c"]]}`,
		want: []string{`+ args[1]: "b"`, `+ args[2]: ["c"]`},
	},
	{
		name: "index list shrinks",
		old:  `{"args": ["a", "b", {"c": 1}]}`,
		new:  `{"args": ["x"]}`,
		want: []string{`~ args[0]: "a" → "x"`, `- args[1]: "b"`, `- args[2]: {"c":1}`},
	},
	{
		name: "index list emptied",
		old:  `{"args": ["a", "b"]}`,
		new:  `{"args": []}`,
		want: []string{`- args[0]: "a"`, `- args[1]: "b"`},
	},
	{
		name: "changes are sorted by key and list order",
		old:  `{"b": 1, "a": {"z": 1, "y": [{"name": "q", "v": 1}, {"name": "p", "v": 1}]}, "c": [1, 2]}`,
		new:  `{"b": 2, "a": {"z": 2, "y": [{"name": "p", "v": 2}, {"name": "q", "v": 2}]}, "c": [3, 4]}`,
		want: []string{
			`~ a.y[name=q].v: 1 → 2`,
			`~ a.y[name=p].v: 1 → 2`,
			`~ a.z: 1 → 2`,
			`~ b: 1 → 2`,
			`~ c[0]: 1 → 3`,
			`~ c[1]: 2 → 4`,
		},
	},
	{
		name: "keys with dots and special characters are quoted",
		old:  `{"metadata": {"labels": {"app.kubernetes.io/name": "web", "with space": "a", "": "e", "*": "s", "q\"uote": "q", "esc\u001b[31m": "x", "bidi\u202e": "y", "ok_key-1/x:y": "z"}}}`,
		new:  `{"metadata": {"labels": {"app.kubernetes.io/name": "shop", "with space": "b", "": "f", "*": "t", "q\"uote": "r", "esc\u001b[31m": "x2", "bidi\u202e": "y2", "ok_key-1/x:y": "z2"}}}`,
		want: []string{
			`~ metadata.labels[""]: "e" → "f"`,
			`~ metadata.labels["*"]: "s" → "t"`,
			`~ metadata.labels["app.kubernetes.io/name"]: "web" → "shop"`,
			`~ metadata.labels["bidi\u202e"]: "y" → "y2"`,
			`~ metadata.labels["esc\u001b[31m"]: "x" → "x2"`,
			`~ metadata.labels.ok_key-1/x:y: "z" → "z2"`,
			`~ metadata.labels["q\"uote"]: "q" → "r"`,
			`~ metadata.labels["with space"]: "a" → "b"`,
		},
	},
	{
		name: "named values that need quotes",
		old:  `{"env": [{"name": "A.B", "value": "1"}, {"name": "", "value": "1"}, {"name": "x]y", "value": "1"}]}`,
		new:  `{"env": [{"name": "A.B", "value": "2"}, {"name": "", "value": "2"}, {"name": "x]y", "value": "2"}]}`,
		want: []string{
			`~ env[name=A.B].value: "1" → "2"`,
			`~ env[name=""].value: "1" → "2"`,
			`~ env[name="x]y"].value: "1" → "2"`,
		},
	},

	// Options.
	{
		name:          "default ignores",
		old:           `{"metadata": {"resourceVersion": "1", "generation": 1, "managedFields": [{"manager": "a"}], "labels": {"app": "web"}}}`,
		new:           `{"metadata": {"resourceVersion": "2", "generation": 2, "managedFields": [{"manager": "b"}], "labels": {"app": "shop"}}}`,
		defaultIgnore: true,
		want:          []string{`~ metadata.labels.app: "web" → "shop"`},
		target:        `{"metadata": {"resourceVersion": "1", "generation": 1, "managedFields": [{"manager": "a"}], "labels": {"app": "shop"}}}`,
	},
	{
		name:          "default ignores, only ignored fields changed",
		old:           `{"metadata": {"resourceVersion": "1", "managedFields": [{"manager": "a"}]}}`,
		new:           `{"metadata": {"resourceVersion": "2", "generation": 1}}`,
		defaultIgnore: true,
		target:        `{"metadata": {"resourceVersion": "1", "managedFields": [{"manager": "a"}]}}`,
	},
	{
		name:   "ignore a subtree",
		old:    `{"spec": {"replicas": 1}, "status": {"ready": 0}}`,
		new:    `{"spec": {"replicas": 2}, "status": {"ready": 1}}`,
		ignore: []string{"status"},
		want:   []string{`~ spec.replicas: 1 → 2`},
		target: `{"spec": {"replicas": 2}, "status": {"ready": 0}}`,
	},
	{
		name:   "ignore with a key wildcard",
		old:    `{"metadata": {"annotations": {"a": "1", "b": "1"}, "labels": {"a": "1"}}}`,
		new:    `{"metadata": {"annotations": {"a": "2", "c": "1"}, "labels": {"a": "2"}}}`,
		ignore: []string{"metadata.*.a"},
		want:   []string{`- metadata.annotations.b: "1"`, `+ metadata.annotations.c: "1"`},
		target: `{"metadata": {"annotations": {"a": "1", "c": "1"}, "labels": {"a": "1"}}}`,
	},
	{
		name:   "ignore a field of every list element",
		old:    `{"spec": {"containers": [{"name": "web", "image": "a", "args": ["x"]}, {"name": "log", "image": "b"}]}}`,
		new:    `{"spec": {"containers": [{"name": "web", "image": "a2", "args": ["y"]}, {"name": "log", "image": "b2"}]}}`,
		ignore: []string{"spec.containers[*].image"},
		want:   []string{`~ spec.containers[name=web].args[0]: "x" → "y"`},
		target: `{"spec": {"containers": [{"name": "web", "image": "a", "args": ["y"]}, {"name": "log", "image": "b"}]}}`,
	},
	{
		name:   "ignore one named element",
		old:    `{"spec": {"containers": [{"name": "web", "image": "a"}, {"name": "log", "image": "b"}]}}`,
		new:    `{"spec": {"containers": [{"name": "web", "image": "a2"}, {"name": "log", "image": "b2"}]}}`,
		ignore: []string{"spec.containers[name=log]"},
		want:   []string{`~ spec.containers[name=web].image: "a" → "a2"`},
		target: `{"spec": {"containers": [{"name": "web", "image": "a2"}, {"name": "log", "image": "b"}]}}`,
	},
	{
		name:   "ignore by index",
		old:    `{"args": ["a", "b", "c"]}`,
		new:    `{"args": ["x", "y", "z"]}`,
		ignore: []string{"args[1]"},
		want:   []string{`~ args[0]: "a" → "x"`, `~ args[2]: "c" → "z"`},
		target: `{"args": ["x", "b", "z"]}`,
	},
	{
		name:   "ignored fields are left out of an added subtree",
		old:    `{"spec": {}}`,
		new:    `{"spec": {"template": {"image": "a", "status": {"x": 1}}}}`,
		ignore: []string{"spec.template.status"},
		want:   []string{`+ spec.template: {"image":"a"}`},
		target: `{"spec": {"template": {"image": "a"}}}`,
	},
	{
		name:   "an added subtree of only ignored fields stays empty",
		old:    `{}`,
		new:    `{"metadata": {"managedFields": []}}`,
		ignore: []string{"metadata.managedFields"},
		want:   []string{`+ metadata: {}`},
		target: `{"metadata": {}}`,
	},
	{
		name:   "ignored fields of a removed subtree stay",
		old:    `{"metadata": {"name": "a", "labels": {"x": "1"}, "resourceVersion": "1"}}`,
		new:    `{}`,
		ignore: []string{"metadata.resourceVersion"},
		want:   []string{`- metadata.labels: {"x":"1"}`, `- metadata.name: "a"`},
		target: `{"metadata": {"resourceVersion": "1"}}`,
	},
	{
		name:   "a removed subtree without ignored fields goes as a whole",
		old:    `{"metadata": {"name": "a"}}`,
		new:    `{}`,
		ignore: []string{"metadata.resourceVersion"},
		want:   []string{`- metadata: {"name":"a"}`},
		target: `{}`,
	},
	{
		name:   "ignored fields in a replaced value are dropped",
		old:    `{"metadata": "broken"}`,
		new:    `{"metadata": {"name": "a", "resourceVersion": "2"}}`,
		ignore: []string{"metadata.resourceVersion"},
		want:   []string{`~ metadata: "broken" → {"name":"a"}`},
		target: `{"metadata": {"name": "a"}}`,
	},
	{
		name:   "ignore everything",
		old:    `{"a": 1}`,
		new:    `{"a": 2, "b": 3}`,
		ignore: []string{"*"},
		target: `{"a": 1}`,
	},
	{
		name:   "only labels",
		old:    `{"metadata": {"labels": {"a": "1"}, "annotations": {"x": "1"}}, "spec": {"replicas": 1}}`,
		new:    `{"metadata": {"labels": {"a": "2", "b": "1"}, "annotations": {"x": "2"}}, "spec": {"replicas": 2}}`,
		only:   []string{"metadata.labels"},
		want:   []string{`~ metadata.labels.a: "1" → "2"`, `+ metadata.labels.b: "1"`},
		target: `{"metadata": {"labels": {"a": "2", "b": "1"}, "annotations": {"x": "1"}}, "spec": {"replicas": 1}}`,
	},
	{
		name:   "only several paths",
		old:    `{"spec": {"replicas": 1, "paused": false}, "status": {"ready": 0, "phase": "a"}}`,
		new:    `{"spec": {"replicas": 2, "paused": true}, "status": {"ready": 1, "phase": "b"}}`,
		only:   []string{"spec.replicas", "status.ready"},
		want:   []string{`~ spec.replicas: 1 → 2`, `~ status.ready: 0 → 1`},
		target: `{"spec": {"replicas": 2, "paused": false}, "status": {"ready": 1, "phase": "a"}}`,
	},
	{
		name:   "only with an added ancestor adds just the selected part",
		old:    `{"kind": "Pod"}`,
		new:    `{"kind": "Pod", "metadata": {"name": "a", "labels": {"x": "1"}}}`,
		only:   []string{"metadata.labels"},
		want:   []string{`+ metadata: {"labels":{"x":"1"}}`},
		target: `{"kind": "Pod", "metadata": {"labels": {"x": "1"}}}`,
	},
	{
		name:   "only with an added ancestor that lacks the path is no change",
		old:    `{"kind": "Pod"}`,
		new:    `{"kind": "Pod", "metadata": {"name": "a"}}`,
		only:   []string{"metadata.labels"},
		target: `{"kind": "Pod"}`,
	},
	{
		name:   "only with a removed ancestor removes just the selected part",
		old:    `{"metadata": {"name": "a", "labels": {"x": "1"}}}`,
		new:    `{}`,
		only:   []string{"metadata.labels"},
		want:   []string{`- metadata.labels: {"x":"1"}`},
		target: `{"metadata": {"name": "a"}}`,
	},
	{
		name:   "only one container's image",
		old:    `{"spec": {"containers": [{"name": "web", "image": "a", "args": ["1"]}, {"name": "log", "image": "b"}]}}`,
		new:    `{"spec": {"containers": [{"name": "web", "image": "a2", "args": ["2"]}, {"name": "log", "image": "b2"}]}}`,
		only:   []string{"spec.containers[name=web].image"},
		want:   []string{`~ spec.containers[name=web].image: "a" → "a2"`},
		target: `{"spec": {"containers": [{"name": "web", "image": "a2", "args": ["1"]}, {"name": "log", "image": "b"}]}}`,
	},
	{
		name:   "only and ignore together",
		old:    `{"metadata": {"labels": {"a": "1", "b": "1"}, "name": "x"}}`,
		new:    `{"metadata": {"labels": {"a": "2", "b": "2"}, "name": "y"}}`,
		only:   []string{"metadata.labels"},
		ignore: []string{"metadata.labels.b"},
		want:   []string{`~ metadata.labels.a: "1" → "2"`},
		target: `{"metadata": {"labels": {"a": "2", "b": "1"}, "name": "x"}}`,
	},
	{
		name:   "redact secret data",
		old:    `{"data": {"password": "aHVudGVyMg==", "user": "YWRtaW4="}, "stringData": {"token": "abc"}, "type": "Opaque"}`,
		new:    `{"data": {"password": "c2VjcmV0", "user": "YWRtaW4=", "key": "bmV3"}, "type": "kubernetes.io/tls"}`,
		redact: []string{"data", "stringData"},
		want: []string{
			`+ data.key: (hidden)`,
			`~ data.password: (hidden)`,
			`- stringData: (hidden)`,
			`~ type: "Opaque" → "kubernetes.io/tls"`,
		},
	},
	{
		name:   "redact hides an added subtree that holds a redacted path",
		old:    `{"kind": "Secret"}`,
		new:    `{"kind": "Secret", "data": {"password": "c2VjcmV0", "user": "YWRtaW4="}}`,
		redact: []string{"data.password"},
		want:   []string{`+ data: (hidden)`},
	},
}

func TestCompare(t *testing.T) {
	for _, tt := range compareTests {
		t.Run(tt.name, func(t *testing.T) {
			old, new := obj(t, tt.old), obj(t, tt.new)
			got := changeLines(Compare(old, new, tt.options(t)))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Compare(%s, %s) =\n%s\nwant\n%s", tt.old, tt.new, strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestCompareDoesNotMutate(t *testing.T) {
	for _, tt := range compareTests {
		t.Run(tt.name, func(t *testing.T) {
			old, new := obj(t, tt.old), obj(t, tt.new)
			opts := tt.options(t)
			Compare(old, new, opts)
			JSONPatch(old, new, opts)
			if err := Unified(&strings.Builder{}, "a", "b", old, new, opts, 3, false); err != nil {
				t.Fatalf("Unified() = %v, want nil", err)
			}
			if want := obj(t, tt.old); !reflect.DeepEqual(old, want) {
				t.Errorf("old after Compare = %v, want %v", old, want)
			}
			if want := obj(t, tt.new); !reflect.DeepEqual(new, want) {
				t.Errorf("new after Compare = %v, want %v", new, want)
			}
		})
	}
}

func TestChanged(t *testing.T) {
	for _, tt := range compareTests {
		t.Run(tt.name, func(t *testing.T) {
			old, new := obj(t, tt.old), obj(t, tt.new)
			if got, want := Changed(old, new, tt.options(t)), len(tt.want) > 0; got != want {
				t.Errorf("Changed(%s, %s) = %v, want %v", tt.old, tt.new, got, want)
			}
		})
	}
}

// TestComparePathsParse checks that every display path parses back to a
// path that matches its change: ignoring it leaves out exactly that change.
func TestComparePathsParse(t *testing.T) {
	for _, tt := range compareTests {
		t.Run(tt.name, func(t *testing.T) {
			old, new := obj(t, tt.old), obj(t, tt.new)
			opts := tt.options(t)
			changes := Compare(old, new, opts)
			for i, c := range changes {
				p, err := ParsePath(c.Path)
				if err != nil {
					t.Errorf("ParsePath(%q) = %v, want nil", c.Path, err)
					continue
				}
				o := opts
				o.Ignore = append(append([]Path(nil), opts.Ignore...), p)
				got := changeLines(Compare(old, new, o))
				want := changeLines(append(append([]Change(nil), changes[:i]...), changes[i+1:]...))
				if !reflect.DeepEqual(got, want) {
					t.Errorf("Compare with --ignore %s =\n%s\nwant\n%s", c.Path, strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
			}
		})
	}
}

func TestComparePod(t *testing.T) {
	tests := []struct {
		name string
		edit func(p map[string]interface{})
		want []string
	}{
		{
			name: "no change",
			edit: func(p map[string]interface{}) {},
		},
		{
			name: "label changed, resourceVersion and managedFields ignored",
			edit: func(p map[string]interface{}) {
				md := field(p, "metadata")
				md["resourceVersion"] = "48214"
				md["managedFields"] = []interface{}{}
				field(md, "labels")["tier"] = "backend"
			},
			want: []string{`~ metadata.labels.tier: "frontend" → "backend"`},
		},
		{
			name: "container restarted",
			edit: func(p map[string]interface{}) {
				cs := field(p, "status")["containerStatuses"].([]interface{})
				web := cs[1].(map[string]interface{})
				web["restartCount"] = int64(1)
				web["ready"] = false
				web["lastState"] = map[string]interface{}{"terminated": map[string]interface{}{"exitCode": int64(137), "reason": "OOMKilled"}}
				conds := field(p, "status")["conditions"].([]interface{})
				conds[2].(map[string]interface{})["status"] = "False"
			},
			want: []string{
				`~ status.conditions[type=Ready].status: "True" → "False"`,
				`+ status.containerStatuses[name=web].lastState.terminated: {"exitCode":137,"reason":"OOMKilled"}`,
				`~ status.containerStatuses[name=web].ready: true → false`,
				`~ status.containerStatuses[name=web].restartCount: 0 → 1`,
			},
		},
		{
			name: "toleration matched by key, env by name",
			edit: func(p map[string]interface{}) {
				spec := field(p, "spec")
				tol := spec["tolerations"].([]interface{})
				tol[0], tol[1] = tol[1], tol[0]
				tol[0].(map[string]interface{})["tolerationSeconds"] = int64(60)
				web := spec["containers"].([]interface{})[0].(map[string]interface{})
				web["env"].([]interface{})[0].(map[string]interface{})["value"] = "debug"
			},
			want: []string{
				`~ spec.containers[name=web].env[name=MODE].value: "production" → "debug"`,
				`~ spec.tolerations[key=node.kubernetes.io/unreachable].tolerationSeconds: 300 → 60`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old, new := podPair(t, tt.edit)
			got := changeLines(Compare(old, new, Options{Ignore: DefaultIgnore()}))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Compare(pod, edited pod) =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestCompareValues(t *testing.T) {
	old := obj(t, `{"a": {"b": 1}, "c": null, "s": {"p": "x"}}`)
	new := obj(t, `{"a": {"b": 2.5}, "d": null, "s": {"p": "y"}}`)
	got := Compare(old, new, Options{Redact: paths(t, "s")})
	want := []Change{
		{Path: "a.b", Op: Modified, Old: int64(1), New: 2.5},
		{Path: "c", Op: Removed},
		{Path: "d", Op: Added},
		{Path: "s.p", Op: Modified, Redacted: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Compare() = %#v, want %#v", got, want)
	}
}

func TestOpString(t *testing.T) {
	tests := []struct {
		op           Op
		name, symbol string
	}{
		{Added, "added", "+"},
		{Removed, "removed", "-"},
		{Modified, "modified", "~"},
		{Op(0), "Op(0)", "?"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.op.String(); got != tt.name {
				t.Errorf("Op(%d).String() = %q, want %q", int(tt.op), got, tt.name)
			}
			if got := tt.op.Symbol(); got != tt.symbol {
				t.Errorf("Op(%d).Symbol() = %q, want %q", int(tt.op), got, tt.symbol)
			}
		})
	}
}

func TestDefaultIgnore(t *testing.T) {
	var got []string
	for _, p := range DefaultIgnore() {
		got = append(got, p.String())
	}
	want := []string{"metadata.managedFields", "metadata.resourceVersion", "metadata.generation"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("DefaultIgnore() = %q, want %q", got, want)
	}
	if !reflect.DeepEqual(DefaultIgnore(), paths(t, want...)) {
		t.Errorf("DefaultIgnore() = %v, want the parsed %q", DefaultIgnore(), want)
	}
}

// ports returns n maps with containerPort 0 to n-1.
func ports(n int) []interface{} {
	l := make([]interface{}, n)
	for i := range l {
		l[i] = map[string]interface{}{"containerPort": int64(i)}
	}
	return l
}

func TestCompareLongNamedList(t *testing.T) {
	list := func(n int, value func(i int) string, order func(i int) int) []interface{} {
		l := make([]interface{}, n)
		for i := range l {
			j := order(i)
			l[i] = map[string]interface{}{"name": "VAR_" + strings.Repeat("X", j%3) + string(rune('A'+j)), "value": value(j)}
		}
		return l
	}
	same := func(i int) int { return i }
	reversed := func(i int) int { return 39 - i }
	plain := func(i int) string { return "v" }
	tests := []struct {
		name     string
		old, new []interface{}
		want     []string
	}{
		{
			name: "reordered, one value changed",
			old:  list(40, plain, same),
			new: list(40, func(i int) string {
				if i == 7 {
					return "changed"
				}
				return "v"
			}, reversed),
			want: []string{`~ env[name=VAR_XH].value: "v" → "changed"`},
		},
		{
			name: "duplicate name falls back to index",
			old:  append(list(39, plain, same), map[string]interface{}{"name": "VAR_A", "value": "dup"}),
			new:  append(list(39, plain, same), map[string]interface{}{"name": "VAR_A", "value": "dup2"}),
			want: []string{`~ env[39].value: "dup" → "dup2"`},
		},
		{
			name: "numbers of different types are the same key",
			old:  append(ports(20), map[string]interface{}{"containerPort": 5.0, "p": "a"}),
			new:  append(ports(20), map[string]interface{}{"containerPort": 5.0, "p": "b"}),
			want: []string{`~ env[20].p: "a" → "b"`},
		},
		{
			name: "long list matched by number",
			old:  append(ports(20), map[string]interface{}{"containerPort": 20.0, "p": "a"}),
			new:  append([]interface{}{map[string]interface{}{"containerPort": int64(20), "p": "b"}}, ports(20)...),
			want: []string{`~ env[containerPort=20].p: "a" → "b"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := changeLines(Compare(map[string]interface{}{"env": tt.old}, map[string]interface{}{"env": tt.new}, Options{}))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Compare(env lists) =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestProject(t *testing.T) {
	obj := map[string]interface{}{
		"metadata": map[string]interface{}{"name": "web", "resourceVersion": "7"},
		"spec":     map[string]interface{}{"replicas": int64(3)},
		"status":   map[string]interface{}{"readyReplicas": int64(2)},
	}
	only, _ := ParsePath("status")
	tests := []struct {
		name string
		opts Options
		want map[string]interface{}
	}{
		{"nothing left out", Options{}, obj},
		{"default ignore", Options{Ignore: DefaultIgnore()}, map[string]interface{}{
			"metadata": map[string]interface{}{"name": "web"},
			"spec":     map[string]interface{}{"replicas": int64(3)},
			"status":   map[string]interface{}{"readyReplicas": int64(2)},
		}},
		{"only status", Options{Only: []Path{only}}, map[string]interface{}{"status": map[string]interface{}{"readyReplicas": int64(2)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Project(obj, tt.opts); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Project() = %v, want %v", got, tt.want)
			}
		})
	}
	if _, ok := obj["metadata"].(map[string]interface{})["resourceVersion"]; !ok {
		t.Errorf("Project mutated its input")
	}
}
