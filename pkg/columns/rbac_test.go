package columns

import (
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestRoleBindingRows(t *testing.T) {
	subjects := []rbacv1.Subject{
		{Kind: rbacv1.UserKind, Name: "alice"}, {Kind: rbacv1.GroupKind, Name: "devs"}, {Kind: rbacv1.UserKind, Name: "bob"},
		{Kind: rbacv1.ServiceAccountKind, Name: "default", Namespace: "web"}, {Kind: "Robot", Name: "r2"},
	}
	for _, gr := range []schema.GroupResource{
		{Group: "rbac.authorization.k8s.io", Resource: "rolebindings"},
		{Group: "rbac.authorization.k8s.io", Resource: "clusterrolebindings"},
	} {
		t.Run(gr.Resource, func(t *testing.T) {
			binding := func(subjects []rbacv1.Subject) []rowCase {
				meta, ref := objMeta("readers"), rbacv1.RoleRef{Kind: "ClusterRole", Name: "view"}
				if gr.Resource == "rolebindings" {
					return []rowCase{{obj: &rbacv1.RoleBinding{ObjectMeta: meta, RoleRef: ref, Subjects: subjects}}}
				}
				return []rowCase{{obj: &rbacv1.ClusterRoleBinding{ObjectMeta: meta, RoleRef: ref, Subjects: subjects}}}
			}
			// ROLE kind/name; wide USERS, GROUPS, SERVICEACCOUNTS joined with ", ", a
			// service account as namespace/name; other kinds are not printed.
			withSubjects := binding(subjects)[0]
			withSubjects.name = "subjects"
			withSubjects.want = []string{"readers", "ClusterRole/view", "5m", "alice, bob", "devs", "web/default"}
			none := binding(nil)[0]
			none.name = "no subjects"
			none.want = []string{"readers", "ClusterRole/view", "5m", "", "", ""}
			runRows(t, gr, []rowCase{withSubjects, none})
		})
	}
}
