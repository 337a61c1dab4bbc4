package columns

import (
	"sort"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// builtin holds the Table of every built-in resource the package knows. It is never written
// after package initialisation.
var builtin = map[schema.GroupResource]Table{
	{Resource: "pods"}:                   podTable,
	{Resource: "podtemplates"}:           podTemplateTable,
	{Resource: "nodes"}:                  nodeTable,
	{Resource: "services"}:               serviceTable,
	{Resource: "endpoints"}:              endpointsTable,
	{Resource: "replicationcontrollers"}: replicationControllerTable,
	{Resource: "componentstatuses"}:      componentStatusTable,

	{Resource: "namespaces"}:                     namespaceTable,
	{Resource: "configmaps"}:                     configMapTable,
	{Resource: "secrets"}:                        secretTable,
	{Resource: "serviceaccounts"}:                serviceAccountTable,
	{Resource: "resourcequotas"}:                 resourceQuotaTable,
	{Resource: "limitranges"}:                    metadataTable,
	{Resource: "persistentvolumes"}:              persistentVolumeTable,
	{Resource: "persistentvolumeclaims"}:         persistentVolumeClaimTable,
	{Resource: "events"}:                         eventTable,
	{Group: "events.k8s.io", Resource: "events"}: eventsV1Table,

	{Group: "apps", Resource: "deployments"}:         deploymentTable,
	{Group: "apps", Resource: "replicasets"}:         replicaSetTable,
	{Group: "apps", Resource: "statefulsets"}:        statefulSetTable,
	{Group: "apps", Resource: "daemonsets"}:          daemonSetTable,
	{Group: "apps", Resource: "controllerrevisions"}: controllerRevisionTable,
	{Group: "batch", Resource: "jobs"}:               jobTable,
	{Group: "batch", Resource: "cronjobs"}:           cronJobTable,

	{Group: "autoscaling", Resource: "horizontalpodautoscalers"}: horizontalPodAutoscalerTable,
	{Group: "policy", Resource: "poddisruptionbudgets"}:          podDisruptionBudgetTable,

	{Group: "networking.k8s.io", Resource: "ingresses"}:       ingressTable,
	{Group: "networking.k8s.io", Resource: "ingressclasses"}:  ingressClassTable,
	{Group: "networking.k8s.io", Resource: "networkpolicies"}: networkPolicyTable,
	{Group: "networking.k8s.io", Resource: "servicecidrs"}:    serviceCIDRTable,
	{Group: "networking.k8s.io", Resource: "ipaddresses"}:     ipAddressTable,
	{Group: "discovery.k8s.io", Resource: "endpointslices"}:   endpointSliceTable,

	{Group: "storage.k8s.io", Resource: "storageclasses"}:          storageClassTable,
	{Group: "storage.k8s.io", Resource: "volumeattributesclasses"}: volumeAttributesClassTable,
	{Group: "storage.k8s.io", Resource: "csidrivers"}:              csiDriverTable,
	{Group: "storage.k8s.io", Resource: "csinodes"}:                csiNodeTable,
	{Group: "storage.k8s.io", Resource: "csistoragecapacities"}:    metadataTable,
	{Group: "storage.k8s.io", Resource: "volumeattachments"}:       volumeAttachmentTable,

	{Group: "node.k8s.io", Resource: "runtimeclasses"}:        runtimeClassTable,
	{Group: "scheduling.k8s.io", Resource: "priorityclasses"}: priorityClassTable,
	{Group: "coordination.k8s.io", Resource: "leases"}:        leaseTable,

	{Group: "rbac.authorization.k8s.io", Resource: "roles"}:               metadataTable,
	{Group: "rbac.authorization.k8s.io", Resource: "clusterroles"}:        metadataTable,
	{Group: "rbac.authorization.k8s.io", Resource: "rolebindings"}:        roleBindingTable,
	{Group: "rbac.authorization.k8s.io", Resource: "clusterrolebindings"}: clusterRoleBindingTable,

	{Group: "admissionregistration.k8s.io", Resource: "mutatingwebhookconfigurations"}:     mutatingWebhookConfigurationTable,
	{Group: "admissionregistration.k8s.io", Resource: "validatingwebhookconfigurations"}:   validatingWebhookConfigurationTable,
	{Group: "admissionregistration.k8s.io", Resource: "validatingadmissionpolicies"}:       validatingAdmissionPolicyTable,
	{Group: "admissionregistration.k8s.io", Resource: "validatingadmissionpolicybindings"}: validatingAdmissionPolicyBindingTable,
	{Group: "admissionregistration.k8s.io", Resource: "mutatingadmissionpolicies"}:         mutatingAdmissionPolicyTable,
	{Group: "admissionregistration.k8s.io", Resource: "mutatingadmissionpolicybindings"}:   mutatingAdmissionPolicyBindingTable,

	{Group: "certificates.k8s.io", Resource: "certificatesigningrequests"}: certificateSigningRequestTable,
	{Group: "certificates.k8s.io", Resource: "clustertrustbundles"}:        clusterTrustBundleTable,
	{Group: "certificates.k8s.io", Resource: "podcertificaterequests"}:     podCertificateRequestTable,

	{Group: "resource.k8s.io", Resource: "deviceclasses"}:          deviceClassTable,
	{Group: "resource.k8s.io", Resource: "devicetaintrules"}:       deviceTaintRuleTable,
	{Group: "resource.k8s.io", Resource: "resourceclaims"}:         resourceClaimTable,
	{Group: "resource.k8s.io", Resource: "resourceclaimtemplates"}: resourceClaimTemplateTable,
	{Group: "resource.k8s.io", Resource: "resourceslices"}:         resourceSliceTable,

	{Group: "flowcontrol.apiserver.k8s.io", Resource: "flowschemas"}:                 flowSchemaTable,
	{Group: "flowcontrol.apiserver.k8s.io", Resource: "prioritylevelconfigurations"}: priorityLevelConfigurationTable,
	{Group: "apiregistration.k8s.io", Resource: "apiservices"}:                       apiServiceTable,
	{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"}:           customResourceDefinitionTable,
	{Group: "storagemigration.k8s.io", Resource: "storageversionmigrations"}:         storageVersionMigrationTable,
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
