package engine

import (
	"slices"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

var (
	configMapsMapping = &meta.RESTMapping{
		Resource:         schema.GroupVersionResource{Version: "v1", Resource: "configmaps"},
		GroupVersionKind: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"},
		Scope:            meta.RESTScopeNamespace,
	}
	serviceAccountsMapping = &meta.RESTMapping{
		Resource:         schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"},
		GroupVersionKind: schema.GroupVersionKind{Version: "v1", Kind: "ServiceAccount"},
		Scope:            meta.RESTScopeNamespace,
	}
)

// referencesMapper knows pods, ConfigMaps and ServiceAccounts only: the other kinds used-by
// and uses would read are unresolved.
func referencesMapper() meta.RESTMapper {
	m := meta.NewDefaultRESTMapper([]schema.GroupVersion{{Version: "v1"}})
	for _, k := range []string{"Pod", "ConfigMap", "ServiceAccount"} {
		m.Add(schema.GroupVersionKind{Version: "v1", Kind: k}, meta.RESTScopeNamespace)
	}
	return m
}

// refPod is a pod of shop that reads ConfigMap configMap through envFrom (none when empty)
// and runs as serviceAccount.
func refPod(name, configMap, serviceAccount string) *unstructured.Unstructured {
	container := map[string]interface{}{"name": "c", "image": "busybox"}
	if configMap != "" {
		container["envFrom"] = []interface{}{map[string]interface{}{"configMapRef": map[string]interface{}{"name": configMap}}}
	}
	pod := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "v1", "kind": "Pod",
		"spec": map[string]interface{}{"serviceAccountName": serviceAccount, "containers": []interface{}{container}},
	}}
	pod.SetNamespace("shop")
	pod.SetName(name)
	return pod
}

// namedObject is an object of shop of kind with name.
func namedObject(kind, name string) *unstructured.Unstructured {
	o := &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": "v1", "kind": kind}}
	o.SetNamespace("shop")
	o.SetName(name)
	return o
}

// TestReferencesFollowTheirRelatedObjects starts used-by on ConfigMaps and uses on pods,
// following: a pod created with a reference to an unused ConfigMap makes it used (its key
// reaches OnRelated with the pod as the cause), the pod's deletion makes it unused again, and
// a ServiceAccount given a pull secret adds it to the uses of its pods.
func TestReferencesFollowTheirRelatedObjects(t *testing.T) {
	s := newFakeAPIServer(t)
	s.apply("pods", refPod("web-1", "app", "builder"))
	s.apply("configmaps", namedObject("ConfigMap", "app"))
	s.apply("configmaps", namedObject("ConfigMap", "stale"))
	s.apply("serviceaccounts", namedObject("ServiceAccount", "builder"))
	e := startEngine(t, s.clients(t), []*meta.RESTMapping{podsMapping, configMapsMapping, serviceAccountsMapping}, Config{SyncTimeout: waitLimit, FullObjects: true})
	related := &sharedTypes{eng: e, mapper: referencesMapper()}
	pods, configMaps := e.Types()[0], e.Types()[1]
	usedBy, err := (*index.Set)(nil).Lookup("used-by")
	if err != nil {
		t.Fatal(err)
	}
	uses, err := (*index.Set)(nil).Lookup("uses")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var changed []string
	onRelated := func(_ *Type, cause string, changes []RelationChange) {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range changes {
			changed = append(changed, cause+" "+c.Key)
		}
	}
	cmRelations, err := StartRelations(t.Context(), []*Type{configMaps}, []index.Definition{usedBy}, RelationsConfig{Related: related, SyncTimeout: waitLimit, OnRelated: onRelated})
	if err != nil {
		t.Fatal(err)
	}
	defer cmRelations.Shutdown()
	podRelations, err := StartRelations(t.Context(), []*Type{pods}, []index.Definition{uses}, RelationsConfig{Related: related, SyncTimeout: waitLimit, OnRelated: onRelated})
	if err != nil {
		t.Fatal(err)
	}
	defer podRelations.Shutdown()
	for _, u := range cmRelations.Unreadable() {
		if !u.Unresolved {
			t.Errorf("used-by could not read %s: %v", u.Name, u.Err)
		}
	}
	lookup := func(typ *Type, sel index.Selector) []string {
		t.Helper()
		objs, err := typ.Lookup([]index.Selector{sel})
		if err != nil {
			t.Fatal(err)
		}
		return slices.Sorted(slices.Values(names(objs)))
	}
	unused := index.Selector{Name: "used-by", Operator: index.DoesNotExist}
	cmTypes := cmRelations.Types()
	if got := lookup(cmTypes[0], unused); !slices.Equal(got, []string{"shop/stale"}) {
		t.Errorf("!used-by = %q, want [shop/stale]", got)
	}
	if got := lookup(cmTypes[0], index.Selector{Name: "used-by", Operator: index.Equals, Values: []string{"Pod/web-1"}}); !slices.Equal(got, []string{"shop/app"}) {
		t.Errorf("used-by=Pod/web-1 = %q, want [shop/app]", got)
	}

	s.apply("pods", refPod("web-2", "stale", "builder"))
	poll(t, "ConfigMap stale to be used", func() bool { return len(lookup(cmTypes[0], unused)) == 0 })
	s.remove("pods", refPod("web-2", "stale", "builder"), false)
	poll(t, "ConfigMap stale to be unused again", func() bool { return slices.Equal(lookup(cmTypes[0], unused), []string{"shop/stale"}) })

	pulls := index.Selector{Name: "uses", Operator: index.Equals, Values: []string{"Secret/registry"}}
	if got := lookup(podRelations.Types()[0], pulls); len(got) != 0 {
		t.Errorf("uses=Secret/registry before the ServiceAccount names it = %q, want none", got)
	}
	sa := namedObject("ServiceAccount", "builder")
	sa.Object["imagePullSecrets"] = []interface{}{map[string]interface{}{"name": "registry"}}
	s.apply("serviceaccounts", sa)
	poll(t, "pod web-1 to use the ServiceAccount's pull secret", func() bool {
		return slices.Equal(lookup(podRelations.Types()[0], pulls), []string{"shop/web-1"})
	})
	mu.Lock()
	got := slices.Clone(changed)
	mu.Unlock()
	for _, want := range []string{"pod/web-2 shop/stale", "serviceaccount/builder shop/web-1"} {
		if !slices.Contains(got, want) {
			t.Errorf("OnRelated changes = %q, want %q among them", got, want)
		}
	}
}

// The fake API server serves ConfigMaps and ServiceAccounts too, for the reference tests.
func init() {
	kinds["configmaps"] = "ConfigMap"
	kinds["serviceaccounts"] = "ServiceAccount"
}
