package engine

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

// ownersMapper knows pods, nodes and replica sets; the fake API server serves only the first two.
func ownersMapper() meta.RESTMapper {
	m := meta.NewDefaultRESTMapper([]schema.GroupVersion{{Version: "v1"}, {Group: "apps", Version: "v1"}})
	m.Add(schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, meta.RESTScopeNamespace)
	m.Add(schema.GroupVersionKind{Version: "v1", Kind: "Node"}, meta.RESTScopeRoot)
	m.Add(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "ReplicaSet"}, meta.RESTScopeNamespace)
	return m
}

func controllerRef(apiVersion, kind, name, uid string) metav1.OwnerReference {
	yes := true
	return metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: name, UID: types.UID(uid), Controller: &yes}
}

// TestStartOwners caches the owners of pods: a node it may read, a replica set type the server
// does not serve, a kind no mapping knows, and (in the second case) a node it may not list.
func TestStartOwners(t *testing.T) {
	tests := []struct {
		name           string
		forbidNodes    bool
		wantRoots      []string
		wantUnreadable []string
	}{
		{"node readable", false, []string{"Node/node-1", "ReplicaSet/db-x", "Widget/w"}, []string{"example.com/v1, Kind=Widget", "nodes", "replicasets.apps"}},
		{"node forbidden", true, []string{"Node/node-1", "ReplicaSet/db-x", "Widget/w"}, []string{"example.com/v1, Kind=Widget", "nodes", "replicasets.apps"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newFakeAPIServer(t)
			node := fakeNode("node-1")
			node.SetUID("node-uid")
			s.apply("nodes", node)
			if tt.forbidNodes {
				s.setIntercept(func(w http.ResponseWriter, r *http.Request) bool {
					if strings.Contains(r.URL.Path, "/nodes") {
						writeStatus(w, http.StatusForbidden, metav1.StatusReasonForbidden, `nodes is forbidden: User "u" cannot list resource "nodes" in API group "" at the cluster scope`)
						return true
					}
					return false
				})
			}
			clients := s.clients(t)
			clients.Mapper = ownersMapper()
			mirror := fakePod("shop", "mirror", "node-1", nil)
			// A version the mapper does not know still resolves the kind.
			mirror.SetOwnerReferences([]metav1.OwnerReference{controllerRef("v0", "Node", "node-1", "node-uid")})
			db := fakePod("shop", "db-x-1", "node-1", nil)
			db.SetOwnerReferences([]metav1.OwnerReference{controllerRef("apps/v1", "ReplicaSet", "db-x", "rs-uid")})
			widget := fakePod("shop", "w-1", "node-1", nil)
			widget.SetOwnerReferences([]metav1.OwnerReference{controllerRef("example.com/v1", "Widget", "w", "w-uid")})
			seeds := []interface{}{mirror, db, widget, fakePod("shop", "lonely", "", nil)}

			owners, err := StartOwners(t.Context(), SourceTypes{Source: clients}, seeds, OwnersConfig{Namespaces: []string{"shop"}, SyncTimeout: waitLimit})
			if err != nil {
				t.Fatalf("StartOwners() = %v", err)
			}
			t.Cleanup(owners.Shutdown)

			var unreadable []string
			for _, u := range owners.Unreadable() {
				unreadable = append(unreadable, u.Name)
			}
			wantUnreadable := tt.wantUnreadable
			if !tt.forbidNodes {
				wantUnreadable = slices.DeleteFunc(slices.Clone(wantUnreadable), func(s string) bool { return s == "nodes" })
			}
			if !slices.Equal(unreadable, wantUnreadable) {
				t.Errorf("Unreadable() = %q, want %q", unreadable, wantUnreadable)
			}
			held := owners.Type(schema.GroupKind{Kind: "Node"}) != nil
			if held == tt.forbidNodes {
				t.Errorf("node type held = %v, want %v", held, !tt.forbidNodes)
			}
			root := index.OwnerRoot(owners)
			var roots []string
			for _, pod := range seeds {
				roots = append(roots, index.Values(root, pod)...)
			}
			if !slices.Equal(roots, tt.wantRoots) {
				t.Errorf("owner-root of the seeds = %q, want %q", roots, tt.wantRoots)
			}
			if n, _ := owners.Owner("shop", controllerRef("v1", "Node", "node-1", "node-uid")); (n != nil) == tt.forbidNodes {
				t.Errorf("Owner(node-1) = %v, want found %v", n, !tt.forbidNodes)
			}
		})
	}
}

// TestAddIndexesAfterStart registers an index on a synced type and looks objects up by it.
func TestAddIndexesAfterStart(t *testing.T) {
	s := newFakeAPIServer(t)
	seedShop(s)
	e := startEngine(t, s.clients(t), []*meta.RESTMapping{podsMapping}, Config{SyncTimeout: waitLimit})
	pods := e.Types()[0]
	if err := pods.AddIndexes(labelIndex("app", "app")); err != nil {
		t.Fatalf("AddIndexes() = %v", err)
	}
	objs, err := pods.Lookup([]index.Selector{{Name: "app", Operator: index.Equals, Values: []string{"web"}}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := names(objs), []string{"other/web-3", "shop/web-1", "shop/web-2"}; !slices.Equal(got, want) {
		t.Errorf("Lookup(app=web) = %q, want %q", got, want)
	}
	if err := pods.AddIndexes(labelIndex("app", "app")); err == nil {
		t.Error("AddIndexes() of an index the type has = nil, want an error")
	}
}
