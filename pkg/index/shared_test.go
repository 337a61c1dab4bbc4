package index

import (
	"slices"
	"testing"

	"k8s.io/client-go/tools/cache"
)

// customDef returns the Definition of --indexer flag.
func customDef(t *testing.T, flag string) Definition {
	t.Helper()
	c, err := ParseCustom(flag)
	if err != nil {
		t.Fatalf("ParseCustom(%q) = %v", flag, err)
	}
	set, err := NewSet(c)
	if err != nil {
		t.Fatal(err)
	}
	def, err := set.Lookup(c.Name)
	if err != nil {
		t.Fatal(err)
	}
	return def
}

func TestSharedName(t *testing.T) {
	tests := []struct {
		flag     string
		want     string
		readsNow bool
	}{
		{"img={.spec.containers[*].image}", "custom:jsonpath:{.spec.containers[*].image}", false},
		{"image-of=.spec.containers[*].image", "custom:jsonpath:{.spec.containers[*].image}", false},
		{"img=spec.containers[*].image", "custom:jsonpath:{.spec.containers[*].image}", false},
		{"img=object.spec.nodeName", "custom:cel:object.spec.nodeName", false},
		{`age=now - object.metadata.creationTimestamp > duration("1h") ? "old" : "new"`, `custom:cel:now - object.metadata.creationTimestamp > duration("1h") ? "old" : "new"`, true},
		{`w=object.metadata.labels["now"]`, `custom:cel:object.metadata.labels["now"]`, false},
		{`w=object.metadata.now`, `custom:cel:object.metadata.now`, false},
	}
	for _, tt := range tests {
		t.Run(tt.flag, func(t *testing.T) {
			def := customDef(t, tt.flag)
			if got, ok := SharedName(def); !ok || got != tt.want {
				t.Errorf("SharedName(%s) = %q, %v, want %q, true", tt.flag, got, ok, tt.want)
			}
			if got := ReadsNow(def); got != tt.readsNow {
				t.Errorf("ReadsNow(%s) = %v, want %v", tt.flag, got, tt.readsNow)
			}
		})
	}
	node, err := (*Set)(nil).Lookup("node")
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := SharedName(node); ok {
		t.Errorf("SharedName(node) = %q, true, want false for a built-in index", got)
	}
}

// TestSharedIndexReadUnderOtherNames registers two definitions of img on
// one indexer under their SharedNames and reads each under img through a
// RenamedIndexer; a CEL index records the keys it fails on.
func TestSharedIndexReadUnderOtherNames(t *testing.T) {
	byImage, err := NewShared(customDef(t, "img={.spec.containers[*].image}"))
	if err != nil {
		t.Fatal(err)
	}
	byNode, err := NewShared(customDef(t, "img=object.spec.nodeName"))
	if err != nil {
		t.Fatal(err)
	}
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{
		byImage.Definition.Name: byImage.Definition.Func,
		byNode.Definition.Name:  byNode.Definition.Func,
	})
	running, pending := runningPod(), pendingPod() // pending has no spec.nodeName
	for _, p := range []interface{}{running, pending} {
		if err := indexer.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		shared *Shared
		want   []string
	}{
		{byImage, Values(customDef(t, "img={.spec.containers[*].image}"), running)},
		{byNode, []string{running.Spec.NodeName}},
	} {
		renamed := RenamedIndexer{Indexer: indexer, Names: map[string]string{"img": tt.shared.Definition.Name}}
		got := renamed.ListIndexFuncValues("img")
		slices.Sort(got)
		want := slices.Sorted(slices.Values(tt.want))
		if !slices.Equal(got, want) {
			t.Errorf("%s read as img: values %q, want %q", tt.shared.Definition.Name, got, want)
		}
		if _, ok := renamed.GetIndexers()["img"]; !ok {
			t.Errorf("%s read as img: GetIndexers has no img", tt.shared.Definition.Name)
		}
	}
	key, _ := cache.MetaNamespaceKeyFunc(pending)
	if got := byNode.FailingKeys(); !slices.Equal(got, []string{key}) {
		t.Errorf("FailingKeys() = %q, want [%s]", got, key)
	}
	if err := indexer.Delete(pending); err != nil {
		t.Fatal(err)
	}
	if byNode.Broken() {
		t.Error("Broken() = true, want false")
	}
}
