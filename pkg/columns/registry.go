package columns

import (
	"sort"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// builtin holds the Table of every built-in resource the package knows. It is never written
// after package initialisation.
var builtin = map[schema.GroupResource]Table{
	{Resource: "pods"}:     podTable,
	{Resource: "nodes"}:    nodeTable,
	{Resource: "services"}: serviceTable,

	{Resource: "namespaces"}:             namespaceTable,
	{Resource: "configmaps"}:             configMapTable,
	{Resource: "secrets"}:                secretTable,
	{Resource: "persistentvolumes"}:      persistentVolumeTable,
	{Resource: "persistentvolumeclaims"}: persistentVolumeClaimTable,
	{Resource: "events"}:                 eventTable,

	{Group: "apps", Resource: "deployments"}:  deploymentTable,
	{Group: "apps", Resource: "replicasets"}:  replicaSetTable,
	{Group: "apps", Resource: "statefulsets"}: statefulSetTable,
	{Group: "apps", Resource: "daemonsets"}:   daemonSetTable,
	{Group: "batch", Resource: "jobs"}:        jobTable,
	{Group: "batch", Resource: "cronjobs"}:    cronJobTable,

	{Group: "networking.k8s.io", Resource: "ingresses"}: ingressTable,
}

// For returns the Table kubectl prints for the built-in resource gr, e.g. {Resource: "pods"} or
// {Group: "apps", Resource: "deployments"}, and false for a resource the package does not know,
// for which a caller may fall back to NAME and AGE. The Table's RowFunc takes the typed object of
// the resource in k8s.io/api, or the same object as *unstructured.Unstructured.
// The returned Table shares its Columns with other callers: do not modify them.
func For(gr schema.GroupResource) (Table, bool) {
	t, ok := builtin[gr]
	return t, ok
}

// Resources returns the built-in resources For knows, sorted by group then resource.
// The caller owns the returned slice.
func Resources() []schema.GroupResource {
	grs := make([]schema.GroupResource, 0, len(builtin))
	for gr := range builtin {
		grs = append(grs, gr)
	}
	sort.Slice(grs, func(i, j int) bool {
		if grs[i].Group != grs[j].Group {
			return grs[i].Group < grs[j].Group
		}
		return grs[i].Resource < grs[j].Resource
	})
	return grs
}
