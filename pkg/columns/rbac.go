package columns

import (
	"fmt"
	"strings"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
)

// Roles and ClusterRoles have no printer in printers.go: the API server serves them with its default
// table, metadataTable.

var roleBindingTable = Table{
	Columns: columnsOf([]string{"Name", "Role", "Age", "Users", "Groups", "ServiceAccounts"},
		"Users", "Groups", "ServiceAccounts"),
	Row: typedRow(func(rb *rbacv1.RoleBinding, now time.Time) []string {
		return bindingRow(rb.Name, rb.RoleRef, rb.Subjects, age(rb.CreationTimestamp, now))
	}),
}

var clusterRoleBindingTable = Table{
	Columns: roleBindingTable.Columns,
	Row: typedRow(func(crb *rbacv1.ClusterRoleBinding, now time.Time) []string {
		return bindingRow(crb.Name, crb.RoleRef, crb.Subjects, age(crb.CreationTimestamp, now))
	}),
}

// bindingRow is printers.go's printRoleBinding and printClusterRoleBinding: ROLE is kind/name;
// the wide USERS, GROUPS and SERVICEACCOUNTS list the subjects of each kind, joined with ", ",
// a service account as namespace/name. Subjects of other kinds are not printed.
func bindingRow(name string, role rbacv1.RoleRef, subjects []rbacv1.Subject, age string) []string {
	var users, groups, serviceAccounts []string
	for _, s := range subjects {
		switch s.Kind {
		case rbacv1.ServiceAccountKind:
			serviceAccounts = append(serviceAccounts, s.Namespace+"/"+s.Name)
		case rbacv1.UserKind:
			users = append(users, s.Name)
		case rbacv1.GroupKind:
			groups = append(groups, s.Name)
		}
	}
	return []string{
		name, fmt.Sprintf("%s/%s", role.Kind, role.Name), age,
		strings.Join(users, ", "), strings.Join(groups, ", "), strings.Join(serviceAccounts, ", "),
	}
}
