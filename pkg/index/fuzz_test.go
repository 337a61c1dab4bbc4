package index

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"k8s.io/client-go/tools/cache"
)

func FuzzParseSelector(f *testing.F) {
	for _, seed := range []struct{ flag, s string }{
		{"--index", "node=worker-1"},
		{"--index", "node="},
		{"--where", "label:app=web"},
		{"--index", "img=a=b"},
		{"--index", "img===b"},
		{"--index", "node==x"},
		{"--index", "node!=x"},
		{"--index", "node!=="},
		{"--index", "image in (registry.example.com/web:v1, nginx:1.27)"},
		{"--where", "owner notin (ReplicaSet/web-5d9c7,)"},
		{"--index", "node in ()"},
		{"--index", "node in (a"},
		{"--index", "node in (a(b))"},
		{"--index", "node in (a) b"},
		{"--index", "node"},
		{"--index", " !label:app.kubernetes.io/name "},
		{"--index", "!node=x"},
		{"--index", "node!x"},
		{"index", "=x"},
		{"", ""},
		{"-i", "\xff=\x00"},
		{"-i", "a in (\u00a0b\u0085)"},
	} {
		f.Add(seed.flag, seed.s)
	}
	indexer := fuzzIndexer(f)
	f.Fuzz(func(t *testing.T, flag, s string) {
		sel, err := ParseSelector(flag, s)
		if err != nil {
			msg := err.Error()
			if msg == "" {
				t.Fatalf("ParseSelector(%q, %q) error is empty, want a message", flag, s)
			}
			if flag != "" && !strings.Contains(msg, strings.TrimLeft(flag, "-")) {
				t.Errorf("ParseSelector(%q, %q) error = %q, want it to name the flag", flag, s, msg)
			}
			if !strings.Contains(msg, fmt.Sprintf("%q", s)) {
				t.Errorf("ParseSelector(%q, %q) error = %q, want it to quote the input", flag, s, msg)
			}
			return
		}
		if sel.Name == "" || strings.IndexFunc(sel.Name, func(r rune) bool { return r > 0x7f || !isNameByte(byte(r)) }) >= 0 {
			t.Errorf("ParseSelector(%q, %q).Name = %q, want non-empty letters, digits and .-_/:", flag, s, sel.Name)
		}
		switch sel.Operator {
		case Equals, NotEquals:
			if len(sel.Values) != 1 {
				t.Errorf("ParseSelector(%q, %q).Values = %q, want one value", flag, s, sel.Values)
			}
		case In, NotIn:
			if len(sel.Values) == 0 || !slices.IsSorted(sel.Values) || len(slices.Compact(slices.Clone(sel.Values))) != len(sel.Values) {
				t.Errorf("ParseSelector(%q, %q).Values = %q, want sorted distinct values", flag, s, sel.Values)
			}
		case Exists, DoesNotExist:
			if sel.Values != nil {
				t.Errorf("ParseSelector(%q, %q).Values = %q, want none", flag, s, sel.Values)
			}
		default:
			t.Errorf("ParseSelector(%q, %q).Operator = %q, want a known operator", flag, s, sel.Operator)
		}
		// parse → String → parse gives back the same selector, and String is canonical.
		again, err := ParseSelector(flag, sel.String())
		if err != nil || !reflect.DeepEqual(again, sel) {
			t.Fatalf("ParseSelector(%q, %q) = %#v, %v; want %#v from ParseSelector(%q, %q)",
				flag, sel.String(), again, err, sel, flag, s)
		}
		if again.String() != sel.String() {
			t.Errorf("String() of %#v = %q, then %q; want the same", sel, sel.String(), again.String())
		}
		// Keys reads the index and agrees with Matches on every object.
		keys, err := Keys(indexer, []Selector{sel})
		if _, registered := indexer.GetIndexers()[sel.Name]; !registered {
			if err == nil {
				t.Errorf("Keys(%s) on an unregistered index = %q, nil, want an error", sel, keys)
			}
			return
		}
		if err != nil {
			t.Fatalf("Keys(%s) = %v, want nil", sel, err)
		}
		var scanned []string
		for _, obj := range indexer.List() {
			values, _ := indexer.GetIndexers()[sel.Name](obj)
			if sel.Matches(values) {
				key, _ := cache.MetaNamespaceKeyFunc(obj)
				scanned = append(scanned, key)
			}
		}
		slices.Sort(scanned)
		if !slices.Equal(keys, scanned) {
			t.Errorf("Keys(%s) = %q, but Matches selects %q", sel, keys, scanned)
		}
	})
}

// fuzzIndexer returns an indexer with the node, image and label:app indexes over a few objects.
func fuzzIndexer(f *testing.F) cache.Indexer {
	indexers := cache.Indexers{}
	for _, name := range []string{"node", "image", "label:app"} {
		def, err := (*Set)(nil).Lookup(name)
		if err != nil {
			f.Fatalf("Lookup(%q) = %v, want nil", name, err)
		}
		indexers[name] = def.Func
	}
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, indexers)
	for _, obj := range []interface{}{runningPod(), pendingPod(), configMap(), deployment()} {
		if err := indexer.Add(obj); err != nil {
			f.Fatalf("Add(%T) = %v, want nil", obj, err)
		}
	}
	return indexer
}

func FuzzParseCustom(f *testing.F) {
	for _, seed := range []string{
		"img={.spec.containers[*].image}",
		"color=.spec.color",
		"color=spec.color",
		`ready={.status.conditions[?(@.type=="Ready")].status}`,
		"u={.metadata['name','namespace']}",
		"r={..image}",
		"s={.spec.containers[-1:].image}",
		"s={.spec.containers[0:2:1].image}",
		"img",
		"node=.spec.nodeName",
		"img={.spec",
		"img=.a range",
		"img={.a}{.b}",
		"x=[?(@.a)]",
	} {
		f.Add(seed)
	}
	objects := []interface{}{runningPod(), toUnstructured(f, runningPod()), toMetadata(f, runningPod()), widget()}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseCustom(s)
		if err != nil {
			msg := err.Error()
			if msg == "" || !strings.HasPrefix(msg, "--indexer") {
				t.Fatalf("ParseCustom(%q) error = %q, want a message that starts with --indexer", s, msg)
			}
			return
		}
		if c.Name+"="+c.JSONPath != s {
			t.Errorf("ParseCustom(%q) = %+v, want NAME=JSONPATH to give back the input", s, c)
		}
		set, err := NewSet(c)
		if err != nil {
			t.Fatalf("NewSet(ParseCustom(%q)) = %v, want nil", s, err)
		}
		def, err := set.Lookup(c.Name)
		if err != nil {
			t.Fatalf("Lookup(%q) = %v, want nil", c.Name, err)
		}
		for _, obj := range objects {
			if _, err := def.Func(obj); err != nil {
				t.Errorf("%s(%T) error = %v, want nil", s, obj, err)
			}
		}
	})
}

func FuzzLookup(f *testing.F) {
	for _, seed := range []string{
		"namespace", "label:app", "label:", "label:example.com/team", "annotation:a/b", "annotation:",
		"owner", "owner-uid", "node", "phase", "image", "img", "nod", "", "label:\xff", "label:a/b/c",
	} {
		f.Add(seed)
	}
	set, err := NewSet(Custom{Name: "img", JSONPath: "{.spec.containers[*].image}"})
	if err != nil {
		f.Fatalf("NewSet() = %v, want nil", err)
	}
	objects := []interface{}{runningPod(), toUnstructured(f, runningPod()), toMetadata(f, runningPod())}
	f.Fuzz(func(t *testing.T, name string) {
		def, err := set.Lookup(name)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("Lookup(%q) error is empty, want a message", name)
			}
			return
		}
		if def.Name != name || def.Func == nil || def.Description == "" {
			t.Fatalf("Lookup(%q) = {%q, %q, Func nil: %v}, want {%q, a description, Func set}",
				name, def.Name, def.Description, def.Func == nil, name)
		}
		for _, obj := range objects {
			if _, err := def.Func(obj); err != nil {
				t.Errorf("%s(%T) error = %v, want nil", name, obj, err)
			}
		}
		// Every index name Lookup accepts can be written in each form of selector.
		for _, sel := range []Selector{
			{Name: name, Operator: Equals, Values: []string{"v"}},
			{Name: name, Operator: NotEquals, Values: []string{""}},
			{Name: name, Operator: In, Values: []string{"a", "b"}},
			{Name: name, Operator: NotIn, Values: []string{"a"}},
			{Name: name, Operator: Exists},
			{Name: name, Operator: DoesNotExist},
		} {
			got, err := ParseSelector("--index", sel.String())
			if err != nil || !reflect.DeepEqual(got, sel) {
				t.Errorf("ParseSelector(%q) = %#v, %v, want %#v, nil", sel.String(), got, err, sel)
			}
		}
	})
}
