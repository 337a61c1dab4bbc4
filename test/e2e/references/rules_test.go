package references

import (
	"strings"
	"testing"
)

// This file is the test's own reading of the rules the README states for uses and used-by,
// applied to objects as `kubectl get -o json` shows them. It shares no code with the plugin.

// world is what the rules read besides the object: the ServiceAccounts and claims of the
// namespace, by name.
type world struct {
	serviceAccounts, claims map[string]obj
}

// readWorld reads the ServiceAccounts and claims of ns.
func readWorld(t *testing.T, ns string) world {
	t.Helper()
	w := world{serviceAccounts: map[string]obj{}, claims: map[string]obj{}}
	for _, o := range getList(t, "serviceaccounts", ns) {
		w.serviceAccounts[str(o, "metadata", "name")] = o
	}
	for _, o := range getList(t, "persistentvolumeclaims", ns) {
		w.claims[str(o, "metadata", "name")] = o
	}
	return w
}

// valueSet collects values in order, without repeats.
type valueSet struct {
	values []string
	seen   map[string]bool
}

func (s *valueSet) add(kind, ns, name, from string) {
	if name == "" {
		return
	}
	v := kind + "/" + name
	if ns != "" && ns != from {
		v = kind + "/" + ns + "/" + name
	}
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	if !s.seen[v] {
		s.seen[v] = true
		s.values = append(s.values, v)
	}
}

// uses returns the uses values of o, an object of kind, by the documented rule.
func (w world) uses(kind string, o obj) []string {
	ns := str(o, "metadata", "namespace")
	var s valueSet
	var spec interface{}
	podName := ""
	switch kind {
	case "Pod":
		spec, podName = field(o, "spec"), str(o, "metadata", "name")
	case "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job", "ReplicationController":
		spec = field(o, "spec", "template", "spec")
	case "CronJob":
		spec = field(o, "spec", "jobTemplate", "spec", "template", "spec")
	case "Ingress":
		if b := field(o, "spec", "defaultBackend"); b != nil {
			s.add("Service", ns, str(b, "service", "name"), ns)
		}
		for _, rule := range items(o, "spec", "rules") {
			for _, p := range items(rule, "http", "paths") {
				s.add("Service", ns, str(p, "backend", "service", "name"), ns)
			}
		}
		for _, tls := range items(o, "spec", "tls") {
			s.add("Secret", ns, str(tls, "secretName"), ns)
		}
	case "RoleBinding", "ClusterRoleBinding":
		for _, sub := range items(o, "subjects") {
			switch str(sub, "kind") {
			case "ServiceAccount":
				sns := str(sub, "namespace")
				if sns == "" {
					sns = ns
				}
				s.add("ServiceAccount", sns, str(sub, "name"), ns)
			case "User", "Group":
				s.add(str(sub, "kind"), "", str(sub, "name"), ns)
			}
		}
		roleNS := ""
		if str(o, "roleRef", "kind") == "Role" {
			roleNS = ns
		}
		s.add(str(o, "roleRef", "kind"), roleNS, str(o, "roleRef", "name"), ns)
	case "ServiceAccount":
		for _, p := range items(o, "imagePullSecrets") {
			s.add("Secret", ns, str(p, "name"), ns)
		}
		for _, p := range items(o, "secrets") {
			s.add("Secret", ns, str(p, "name"), ns)
		}
	case "PersistentVolumeClaim":
		s.add("PersistentVolume", "", str(o, "spec", "volumeName"), ns)
		s.add("StorageClass", "", str(o, "spec", "storageClassName"), ns)
	case "PersistentVolume":
		s.add("StorageClass", "", str(o, "spec", "storageClassName"), ns)
	}
	if spec == nil {
		return s.values
	}
	var containers []interface{}
	for _, list := range []string{"initContainers", "containers", "ephemeralContainers"} {
		containers = append(containers, items(spec, list)...)
	}
	for _, c := range containers {
		for _, e := range items(c, "envFrom") {
			s.add("ConfigMap", ns, str(e, "configMapRef", "name"), ns)
			s.add("Secret", ns, str(e, "secretRef", "name"), ns)
		}
		for _, e := range items(c, "env") {
			s.add("ConfigMap", ns, str(e, "valueFrom", "configMapKeyRef", "name"), ns)
			s.add("Secret", ns, str(e, "valueFrom", "secretKeyRef", "name"), ns)
		}
	}
	var claims []string
	for _, v := range items(spec, "volumes") {
		s.add("ConfigMap", ns, str(v, "configMap", "name"), ns)
		s.add("Secret", ns, str(v, "secret", "secretName"), ns)
		for _, src := range items(v, "projected", "sources") {
			s.add("ConfigMap", ns, str(src, "configMap", "name"), ns)
			s.add("Secret", ns, str(src, "secret", "name"), ns)
		}
		if c := str(v, "persistentVolumeClaim", "claimName"); c != "" {
			claims = append(claims, c)
		}
		if field(v, "ephemeral") != nil && podName != "" {
			claims = append(claims, podName+"-"+str(v, "name"))
		}
		for _, plugin := range []string{"cephfs", "cinder", "flexVolume", "rbd", "scaleIO", "iscsi", "storageos"} {
			s.add("Secret", ns, str(v, plugin, "secretRef", "name"), ns)
		}
		s.add("Secret", ns, str(v, "azureFile", "secretName"), ns)
		s.add("Secret", ns, str(v, "csi", "nodePublishSecretRef", "name"), ns)
	}
	for _, c := range claims {
		s.add("PersistentVolumeClaim", ns, c, ns)
	}
	for _, p := range items(spec, "imagePullSecrets") {
		s.add("Secret", ns, str(p, "name"), ns)
	}
	sa := str(spec, "serviceAccountName")
	if sa == "" {
		sa = str(spec, "serviceAccount")
	}
	if sa == "" {
		sa = "default"
	}
	s.add("ServiceAccount", ns, sa, ns)
	s.add("PriorityClass", "", str(spec, "priorityClassName"), ns)
	s.add("RuntimeClass", "", str(spec, "runtimeClassName"), ns)
	if kind == "StatefulSet" {
		for _, ct := range items(o, "spec", "volumeClaimTemplates") {
			s.add("StorageClass", "", str(ct, "spec", "storageClassName"), ns)
		}
	}
	// Through the ServiceAccount and the claims.
	for _, p := range items(w.serviceAccounts[sa], "imagePullSecrets") {
		s.add("Secret", ns, str(p, "name"), ns)
	}
	for _, c := range claims {
		claim := w.claims[c]
		s.add("PersistentVolume", "", str(claim, "spec", "volumeName"), ns)
		s.add("StorageClass", "", str(claim, "spec", "storageClassName"), ns)
	}
	return s.values
}

// kindOfType is the kind of the types the tests query.
var kindOfType = map[string]string{
	"pods": "Pod", "deployments.apps": "Deployment", "replicasets.apps": "ReplicaSet", "statefulsets.apps": "StatefulSet",
	"daemonsets.apps": "DaemonSet", "jobs.batch": "Job", "cronjobs.batch": "CronJob", "ingresses.networking.k8s.io": "Ingress",
	"rolebindings.rbac.authorization.k8s.io": "RoleBinding", "clusterrolebindings.rbac.authorization.k8s.io": "ClusterRoleBinding",
	"serviceaccounts": "ServiceAccount", "persistentvolumeclaims": "PersistentVolumeClaim", "persistentvolumes": "PersistentVolume",
}

// userTypes are the types whose objects count as users for used-by, by the documented rule.
var userTypes = []string{
	"pods", "replicationcontrollers", "deployments.apps", "replicasets.apps", "statefulsets.apps", "daemonsets.apps",
	"jobs.batch", "cronjobs.batch", "ingresses.networking.k8s.io", "rolebindings.rbac.authorization.k8s.io",
	"serviceaccounts", "persistentvolumeclaims",
}

// usedIn returns the referenced objects of ns ("Kind/name") that some user of ns, or a
// ClusterRoleBinding, refers to, by the documented rule.
func usedIn(t *testing.T, ns string) map[string]bool {
	t.Helper()
	w := readWorld(t, ns)
	used := map[string]bool{}
	add := func(kind string, o obj) {
		for _, v := range w.uses(kind, o) {
			// Values naming another namespace have three parts: not an object of ns.
			if strings.Count(v, "/") == 1 {
				used[v] = true
			}
		}
	}
	kinds := map[string]string{"replicationcontrollers": "ReplicationController"}
	for typ, kind := range kindOfType {
		kinds[typ] = kind
	}
	for _, typ := range userTypes {
		for _, o := range getList(t, typ, ns) {
			add(kinds[typ], o)
		}
	}
	for _, o := range getList(t, "clusterrolebindings", "") {
		for _, v := range w.uses("ClusterRoleBinding", o) {
			if rest, ok := strings.CutPrefix(v, "ServiceAccount/"+ns+"/"); ok {
				used["ServiceAccount/"+rest] = true
			}
		}
	}
	return used
}

// lineageConfigMapPods returns the pods of ns that kube-lineage relates to ConfigMap name
// (tohjustin/kube-lineage, internal/graph/kubernetes.go, getPodRelationships): init and
// regular containers' envFrom and env, configMap volumes and projected configMap sources.
func lineageConfigMapPods(pods []obj, name string) []string {
	var out []string
	for _, p := range pods {
		match := false
		var containers []interface{}
		containers = append(containers, items(p, "spec", "initContainers")...)
		containers = append(containers, items(p, "spec", "containers")...)
		for _, c := range containers {
			for _, e := range items(c, "envFrom") {
				match = match || str(e, "configMapRef", "name") == name
			}
			for _, e := range items(c, "env") {
				match = match || str(e, "valueFrom", "configMapKeyRef", "name") == name
			}
		}
		for _, v := range items(p, "spec", "volumes") {
			match = match || str(v, "configMap", "name") == name
			for _, src := range items(v, "projected", "sources") {
				match = match || str(src, "configMap", "name") == name
			}
		}
		if match {
			out = append(out, str(p, "metadata", "name"))
		}
	}
	return out
}
