package offline

// builtin is a built-in resource as the API server's discovery lists it:
// its group, plural and singular names, kind, scope and short names. The
// short names are those the API server's registry gives
// (k8s.io/kubernetes pkg/registry/*/storage, ShortNames; the CRD's from
// apiextensions-apiserver). The version is the one the objects read carry,
// else the one client-go's scheme prefers.
type builtin struct {
	group, resource, kind string
	clusterScoped         bool
	shortNames            []string
}

// builtins are the resources of the API groups a kube-apiserver serves, in
// discovery's order (the core group first, then the groups by priority), so
// that a name two groups share ("events") resolves as kubectl resolves it.
var builtins = []builtin{
	{"", "bindings", "Binding", false, nil},
	{"", "componentstatuses", "ComponentStatus", true, []string{"cs"}},
	{"", "configmaps", "ConfigMap", false, []string{"cm"}},
	{"", "endpoints", "Endpoints", false, []string{"ep"}},
	{"", "events", "Event", false, []string{"ev"}},
	{"", "limitranges", "LimitRange", false, []string{"limits"}},
	{"", "namespaces", "Namespace", true, []string{"ns"}},
	{"", "nodes", "Node", true, []string{"no"}},
	{"", "persistentvolumeclaims", "PersistentVolumeClaim", false, []string{"pvc"}},
	{"", "persistentvolumes", "PersistentVolume", true, []string{"pv"}},
	{"", "pods", "Pod", false, []string{"po"}},
	{"", "podtemplates", "PodTemplate", false, nil},
	{"", "replicationcontrollers", "ReplicationController", false, []string{"rc"}},
	{"", "resourcequotas", "ResourceQuota", false, []string{"quota"}},
	{"", "secrets", "Secret", false, nil},
	{"", "serviceaccounts", "ServiceAccount", false, []string{"sa"}},
	{"", "services", "Service", false, []string{"svc"}},
	{"apiregistration.k8s.io", "apiservices", "APIService", true, nil},
	{"apps", "controllerrevisions", "ControllerRevision", false, nil},
	{"apps", "daemonsets", "DaemonSet", false, []string{"ds"}},
	{"apps", "deployments", "Deployment", false, []string{"deploy"}},
	{"apps", "replicasets", "ReplicaSet", false, []string{"rs"}},
	{"apps", "statefulsets", "StatefulSet", false, []string{"sts"}},
	{"events.k8s.io", "events", "Event", false, []string{"ev"}},
	{"authentication.k8s.io", "selfsubjectreviews", "SelfSubjectReview", true, nil},
	{"authentication.k8s.io", "tokenreviews", "TokenReview", true, nil},
	{"authorization.k8s.io", "localsubjectaccessreviews", "LocalSubjectAccessReview", false, nil},
	{"authorization.k8s.io", "selfsubjectaccessreviews", "SelfSubjectAccessReview", true, nil},
	{"authorization.k8s.io", "selfsubjectrulesreviews", "SelfSubjectRulesReview", true, nil},
	{"authorization.k8s.io", "subjectaccessreviews", "SubjectAccessReview", true, nil},
	{"autoscaling", "horizontalpodautoscalers", "HorizontalPodAutoscaler", false, []string{"hpa"}},
	{"batch", "cronjobs", "CronJob", false, []string{"cj"}},
	{"batch", "jobs", "Job", false, nil},
	{"certificates.k8s.io", "certificatesigningrequests", "CertificateSigningRequest", true, []string{"csr"}},
	{"certificates.k8s.io", "clustertrustbundles", "ClusterTrustBundle", true, nil},
	{"certificates.k8s.io", "podcertificaterequests", "PodCertificateRequest", false, nil},
	{"networking.k8s.io", "ingressclasses", "IngressClass", true, nil},
	{"networking.k8s.io", "ingresses", "Ingress", false, []string{"ing"}},
	{"networking.k8s.io", "ipaddresses", "IPAddress", true, []string{"ip"}},
	{"networking.k8s.io", "networkpolicies", "NetworkPolicy", false, []string{"netpol"}},
	{"networking.k8s.io", "servicecidrs", "ServiceCIDR", true, nil},
	{"policy", "poddisruptionbudgets", "PodDisruptionBudget", false, []string{"pdb"}},
	{"rbac.authorization.k8s.io", "clusterrolebindings", "ClusterRoleBinding", true, nil},
	{"rbac.authorization.k8s.io", "clusterroles", "ClusterRole", true, nil},
	{"rbac.authorization.k8s.io", "rolebindings", "RoleBinding", false, nil},
	{"rbac.authorization.k8s.io", "roles", "Role", false, nil},
	{"storage.k8s.io", "csidrivers", "CSIDriver", true, nil},
	{"storage.k8s.io", "csinodes", "CSINode", true, nil},
	{"storage.k8s.io", "csistoragecapacities", "CSIStorageCapacity", false, nil},
	{"storage.k8s.io", "storageclasses", "StorageClass", true, []string{"sc"}},
	{"storage.k8s.io", "volumeattachments", "VolumeAttachment", true, nil},
	{"storage.k8s.io", "volumeattributesclasses", "VolumeAttributesClass", true, []string{"vac"}},
	{"admissionregistration.k8s.io", "mutatingadmissionpolicies", "MutatingAdmissionPolicy", true, nil},
	{"admissionregistration.k8s.io", "mutatingadmissionpolicybindings", "MutatingAdmissionPolicyBinding", true, nil},
	{"admissionregistration.k8s.io", "mutatingwebhookconfigurations", "MutatingWebhookConfiguration", true, nil},
	{"admissionregistration.k8s.io", "validatingadmissionpolicies", "ValidatingAdmissionPolicy", true, nil},
	{"admissionregistration.k8s.io", "validatingadmissionpolicybindings", "ValidatingAdmissionPolicyBinding", true, nil},
	{"admissionregistration.k8s.io", "validatingwebhookconfigurations", "ValidatingWebhookConfiguration", true, nil},
	{"apiextensions.k8s.io", "customresourcedefinitions", "CustomResourceDefinition", true, []string{"crd", "crds"}},
	{"scheduling.k8s.io", "priorityclasses", "PriorityClass", true, []string{"pc"}},
	{"coordination.k8s.io", "leasecandidates", "LeaseCandidate", false, nil},
	{"coordination.k8s.io", "leases", "Lease", false, nil},
	{"node.k8s.io", "runtimeclasses", "RuntimeClass", true, nil},
	{"discovery.k8s.io", "endpointslices", "EndpointSlice", false, nil},
	{"flowcontrol.apiserver.k8s.io", "flowschemas", "FlowSchema", true, nil},
	{"flowcontrol.apiserver.k8s.io", "prioritylevelconfigurations", "PriorityLevelConfiguration", true, nil},
	{"resource.k8s.io", "deviceclasses", "DeviceClass", true, nil},
	{"resource.k8s.io", "resourceclaims", "ResourceClaim", false, nil},
	{"resource.k8s.io", "resourceclaimtemplates", "ResourceClaimTemplate", false, nil},
	{"resource.k8s.io", "resourceslices", "ResourceSlice", true, nil},
	{"storagemigration.k8s.io", "storageversionmigrations", "StorageVersionMigration", true, nil},
}

// builtinVersions are the versions of the groups client-go's scheme does
// not hold.
var builtinVersions = map[string]string{
	"apiextensions.k8s.io":   "v1",
	"apiregistration.k8s.io": "v1",
}
