package index

import (
	"strings"
	"testing"
)

func FuzzParseSelector(f *testing.F) {
	for _, seed := range []struct{ flag, s string }{
		{"--index", "node=worker-1"},
		{"--index", "node="},
		{"--where", "label:app=web"},
		{"--index", "img=a=b"},
		{"--index", "node"},
		{"index", "=x"},
		{"", ""},
		{"-i", "\xff=\x00"},
	} {
		f.Add(seed.flag, seed.s)
	}
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
			return
		}
		if sel.Name == "" || strings.Contains(sel.Name, "=") {
			t.Errorf("ParseSelector(%q, %q).Name = %q, want non-empty without '='", flag, s, sel.Name)
		}
		if sel.String() != s {
			t.Errorf("ParseSelector(%q, %q).String() = %q, want %q", flag, s, sel.String(), s)
		}
	})
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
	})
}
