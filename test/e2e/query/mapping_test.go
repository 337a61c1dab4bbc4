package query

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/restmapper"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
)

// TestBuiltinsMapAsDiscoveryDoes resolves every name the API server's
// discovery gives (plural, singular, short names, kind, group- and
// version-qualified forms, custom resources among them) through kubectl's
// discovery-backed mapper and through engine.BuiltinsFirst over it, which
// maps the stable built-in types without discovery: both must give the same
// mapping (one of discovery's, where kubectl's mapper gives several), or the
// same error.
func TestBuiltinsMapAsDiscoveryDoes(t *testing.T) {
	c := seed(t)
	client, err := discovery.NewDiscoveryClientForConfig(c.AdminConfig())
	if err != nil {
		t.Fatal(err)
	}
	cached := memory.NewMemCacheClient(client)
	discovered := restmapper.NewShortcutExpander(restmapper.NewDeferredDiscoveryRESTMapper(cached), cached, func(string) {})
	builtinsFirst := engine.BuiltinsFirst(discovered)

	_, lists, err := client.ServerGroupsAndResources()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{"widgets": true, "wg": true, "nosuchthings": true, "pods.v2.": true, "deployments.v1beta1.apps": true}
	for _, list := range lists {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range list.APIResources {
			if r.Name == "" || strings.Contains(r.Name, "/") {
				continue
			}
			forms := append([]string{r.Name, r.SingularName, r.Kind, r.Name + "." + gv.Group, r.Name + "." + gv.Version + "." + gv.Group}, r.ShortNames...)
			for _, short := range r.ShortNames {
				forms = append(forms, short+"."+gv.Group)
			}
			for _, name := range forms {
				if name != "" && name != "." {
					names[name] = true
				}
			}
		}
	}
	if !names["po"] || !names["deploy.apps"] || !names["wg"] {
		t.Fatalf("discovery's names lack po, deploy.apps or wg: %d names", len(names))
	}
	for name := range names {
		// kubectl's mapper does not always answer the same: a short name
		// two groups give ("ev") maps to either, by map order. What
		// BuiltinsFirst gives must be one of discovery's answers.
		answers := map[string]bool{}
		for range 20 {
			answers[resolveString(discovered, name)] = true
		}
		if got := resolveString(builtinsFirst, name); !answers[got] {
			t.Errorf("Resolve(%q) = %s, want %s (discovery's)", name, got, strings.Join(slices.Sorted(maps.Keys(answers)), " or "))
		}
	}
	for _, gk := range []schema.GroupKind{{Kind: "Node"}, {Kind: "Pod"}, {Group: "apps", Kind: "ReplicaSet"}, {Group: "apps", Kind: "Deployment"},
		{Group: "batch", Kind: "Job"}, {Group: "autoscaling", Kind: "HorizontalPodAutoscaler"}, {Group: "example.com", Kind: "Widget"}} {
		want, wantErr := discovered.RESTMapping(gk)
		got, gotErr := builtinsFirst.RESTMapping(gk)
		if wantErr != nil || gotErr != nil {
			t.Errorf("RESTMapping(%v) errors: %v, discovery's %v", gk, gotErr, wantErr)
			continue
		}
		if mappingString(got) != mappingString(want) {
			t.Errorf("RESTMapping(%v) = %s, want %s (discovery's)", gk, mappingString(got), mappingString(want))
		}
	}
}

// resolveString is what engine.Resolve gives for name through mapper: its
// mapping, or its error.
func resolveString(mapper meta.RESTMapper, name string) string {
	mappings, err := engine.Resolve(mapper, []string{name})
	if err != nil {
		return "error: " + err.Error()
	}
	return mappingString(mappings[0])
}

func mappingString(m *meta.RESTMapping) string {
	return m.Resource.String() + " " + m.GroupVersionKind.String() + " " + string(m.Scope.Name())
}
