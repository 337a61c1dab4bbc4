package engine

import (
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// stableBuiltin is a resource every kube-apiserver the plugin supports
// serves, at one version, as its discovery lists it: group, version,
// plural, singular, kind, scope and short names (those of the API server's
// registry).
type stableBuiltin struct {
	group, version, resource, kind string
	clusterScoped                  bool
	shortNames                     []string
}

// stableBuiltins are the built-in resources BuiltinsFirst maps without
// discovery, in discovery's order (the core group first, then the groups by
// priority), so that a name two groups share ("events") resolves as kubectl
// resolves it. Only generally available versions that have been served for
// years are listed: a type a server may not serve (a beta, a recent
// addition) is left to discovery, which knows whether it is served. So is
// the short name "ev", which both kinds of Event have: kubectl gives it to
// the one discovery's order of the server puts first.
var stableBuiltins = []stableBuiltin{
	{"", "v1", "configmaps", "ConfigMap", false, []string{"cm"}},
	{"", "v1", "endpoints", "Endpoints", false, []string{"ep"}},
	{"", "v1", "events", "Event", false, nil},
	{"", "v1", "limitranges", "LimitRange", false, []string{"limits"}},
	{"", "v1", "namespaces", "Namespace", true, []string{"ns"}},
	{"", "v1", "nodes", "Node", true, []string{"no"}},
	{"", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", false, []string{"pvc"}},
	{"", "v1", "persistentvolumes", "PersistentVolume", true, []string{"pv"}},
	{"", "v1", "pods", "Pod", false, []string{"po"}},
	{"", "v1", "podtemplates", "PodTemplate", false, nil},
	{"", "v1", "replicationcontrollers", "ReplicationController", false, []string{"rc"}},
	{"", "v1", "resourcequotas", "ResourceQuota", false, []string{"quota"}},
	{"", "v1", "secrets", "Secret", false, nil},
	{"", "v1", "serviceaccounts", "ServiceAccount", false, []string{"sa"}},
	{"", "v1", "services", "Service", false, []string{"svc"}},
	{"apps", "v1", "controllerrevisions", "ControllerRevision", false, nil},
	{"apps", "v1", "daemonsets", "DaemonSet", false, []string{"ds"}},
	{"apps", "v1", "deployments", "Deployment", false, []string{"deploy"}},
	{"apps", "v1", "replicasets", "ReplicaSet", false, []string{"rs"}},
	{"apps", "v1", "statefulsets", "StatefulSet", false, []string{"sts"}},
	{"events.k8s.io", "v1", "events", "Event", false, nil},
	{"autoscaling", "v2", "horizontalpodautoscalers", "HorizontalPodAutoscaler", false, []string{"hpa"}},
	{"batch", "v1", "cronjobs", "CronJob", false, []string{"cj"}},
	{"batch", "v1", "jobs", "Job", false, nil},
	{"certificates.k8s.io", "v1", "certificatesigningrequests", "CertificateSigningRequest", true, []string{"csr"}},
	{"networking.k8s.io", "v1", "ingressclasses", "IngressClass", true, nil},
	{"networking.k8s.io", "v1", "ingresses", "Ingress", false, []string{"ing"}},
	{"networking.k8s.io", "v1", "networkpolicies", "NetworkPolicy", false, []string{"netpol"}},
	{"policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget", false, []string{"pdb"}},
	{"rbac.authorization.k8s.io", "v1", "clusterrolebindings", "ClusterRoleBinding", true, nil},
	{"rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole", true, nil},
	{"rbac.authorization.k8s.io", "v1", "rolebindings", "RoleBinding", false, nil},
	{"rbac.authorization.k8s.io", "v1", "roles", "Role", false, nil},
	{"storage.k8s.io", "v1", "csidrivers", "CSIDriver", true, nil},
	{"storage.k8s.io", "v1", "csinodes", "CSINode", true, nil},
	{"storage.k8s.io", "v1", "storageclasses", "StorageClass", true, []string{"sc"}},
	{"storage.k8s.io", "v1", "volumeattachments", "VolumeAttachment", true, nil},
	{"admissionregistration.k8s.io", "v1", "mutatingwebhookconfigurations", "MutatingWebhookConfiguration", true, nil},
	{"admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations", "ValidatingWebhookConfiguration", true, nil},
	{"apiextensions.k8s.io", "v1", "customresourcedefinitions", "CustomResourceDefinition", true, []string{"crd", "crds"}},
	{"scheduling.k8s.io", "v1", "priorityclasses", "PriorityClass", true, []string{"pc"}},
	{"coordination.k8s.io", "v1", "leases", "Lease", false, nil},
	{"node.k8s.io", "v1", "runtimeclasses", "RuntimeClass", true, nil},
	{"discovery.k8s.io", "v1", "endpointslices", "EndpointSlice", false, nil},
}

// BuiltinsFirst returns a REST mapper that maps the stable built-in
// resources itself, by plural, singular and short name (optionally
// group-qualified, and at their version) and by kind, as kubectl's
// discovery-backed mapper maps them to their preferred version, and asks
// discovery for the rest: custom resources, aggregated APIs, other
// versions, names no built-in has, and every question of all the versions
// of a type (KindsFor, ResourcesFor, RESTMappings). A built-in's plural or
// singular is never a custom resource's short name to kubectl (full names
// win), nor is its short name (the core and built-in groups come first in
// discovery), so what is mapped here is what discovery would map. A type
// mapped here reaches the API server first with its list, which then says
// whether the server serves it and can be reached (see Feed.Server).
func BuiltinsFirst(discovery meta.RESTMapper) meta.RESTMapper {
	return builtinsFirst{discovery: discovery}
}

// builtinsFirst is BuiltinsFirst's mapper.
type builtinsFirst struct {
	discovery meta.RESTMapper
}

// builtinFor returns the stable built-in r names, if it names one.
func builtinFor(r schema.GroupVersionResource) (stableBuiltin, bool) {
	name := strings.ToLower(r.Resource)
	for _, b := range stableBuiltins {
		if (r.Group != "" && r.Group != b.group) || (r.Version != "" && r.Version != b.version) {
			continue
		}
		if name == b.resource || name == strings.ToLower(b.kind) {
			return b, true
		}
	}
	for _, b := range stableBuiltins {
		if (r.Group != "" && r.Group != b.group) || (r.Version != "" && r.Version != b.version) {
			continue
		}
		for _, short := range b.shortNames {
			if name == short {
				return b, true
			}
		}
	}
	return stableBuiltin{}, false
}

// builtinKind returns the stable built-in of kind gk at one of versions (any
// when none is given), if there is one.
func builtinKind(gk schema.GroupKind, versions []string) (stableBuiltin, bool) {
	for _, b := range stableBuiltins {
		if b.group != gk.Group || b.kind != gk.Kind {
			continue
		}
		if len(versions) == 0 {
			return b, true
		}
		for _, v := range versions {
			if v == b.version {
				return b, true
			}
		}
	}
	return stableBuiltin{}, false
}

func (b stableBuiltin) gvr() schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: b.group, Version: b.version, Resource: b.resource}
}

func (b stableBuiltin) gvk() schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: b.group, Version: b.version, Kind: b.kind}
}

func (b stableBuiltin) mapping() *meta.RESTMapping {
	scope := meta.RESTScopeNamespace
	if b.clusterScoped {
		scope = meta.RESTScopeRoot
	}
	return &meta.RESTMapping{Resource: b.gvr(), GroupVersionKind: b.gvk(), Scope: scope}
}

func (m builtinsFirst) KindFor(r schema.GroupVersionResource) (schema.GroupVersionKind, error) {
	if b, ok := builtinFor(r); ok {
		return b.gvk(), nil
	}
	return m.discovery.KindFor(r)
}

func (m builtinsFirst) KindsFor(r schema.GroupVersionResource) ([]schema.GroupVersionKind, error) {
	return m.discovery.KindsFor(r)
}

func (m builtinsFirst) ResourceFor(r schema.GroupVersionResource) (schema.GroupVersionResource, error) {
	if b, ok := builtinFor(r); ok {
		return b.gvr(), nil
	}
	return m.discovery.ResourceFor(r)
}

func (m builtinsFirst) ResourcesFor(r schema.GroupVersionResource) ([]schema.GroupVersionResource, error) {
	return m.discovery.ResourcesFor(r)
}

func (m builtinsFirst) RESTMapping(gk schema.GroupKind, versions ...string) (*meta.RESTMapping, error) {
	if b, ok := builtinKind(gk, versions); ok {
		return b.mapping(), nil
	}
	return m.discovery.RESTMapping(gk, versions...)
}

func (m builtinsFirst) RESTMappings(gk schema.GroupKind, versions ...string) ([]*meta.RESTMapping, error) {
	return m.discovery.RESTMappings(gk, versions...)
}

func (m builtinsFirst) ResourceSingularizer(resource string) (string, error) {
	return m.discovery.ResourceSingularizer(resource)
}

// Reset resets discovery's mapper, when it can be reset; the built-ins do
// not change.
func (m builtinsFirst) Reset() {
	if r, ok := m.discovery.(meta.ResettableRESTMapper); ok {
		r.Reset()
	}
}
