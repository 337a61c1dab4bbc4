package index

import (
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// This file holds the reference walker: which objects an object names in its spec (References),
// and how a reference is written as an index value (Reference.Value). The uses and used-by
// indexes (usesindex.go) are built on it.

// Reference is one object another object names: a ConfigMap a pod mounts, the Service an
// Ingress routes to, the subject of a RoleBinding.
type Reference struct {
	// Kind is the referenced object's kind: "ConfigMap", "ServiceAccount", … For RBAC subjects
	// that are not objects it is "User" or "Group".
	Kind string
	// Namespace is the referenced object's namespace; empty for cluster-scoped kinds and for
	// users and groups.
	Namespace string
	// Name is the referenced object's name.
	Name string
	// Field says where the reference is written, as the edges of `tree --refs` name it:
	// "envFrom", "env", "volume", "projected volume", "imagePullSecrets", "serviceAccountName",
	// "persistentVolumeClaim", "ephemeral volume", "priorityClassName", "runtimeClassName",
	// "volumeClaimTemplates", "backend", "defaultBackend", "tls", "subject", "roleRef",
	// "volumeName", "storageClassName", "secrets"; a reference found through another object
	// adds it, as "imagePullSecrets (ServiceAccount/builder)".
	Field string
}

// Value returns r as an index value seen from an object of namespace: KIND/NAME when r is
// cluster-scoped or in namespace, KIND/NAMESPACE/NAME otherwise (a RoleBinding's ServiceAccount
// subject of another namespace, any namespaced object named from a cluster-scoped one).
func (r Reference) Value(namespace string) string {
	if r.Namespace == "" || r.Namespace == namespace {
		return r.Kind + "/" + r.Name
	}
	return r.Kind + "/" + r.Namespace + "/" + r.Name
}

// Referrer kinds: the kinds whose objects References reads, with their groups.
var referrerGroups = map[string]string{
	"Pod": "", "ReplicationController": "", "ServiceAccount": "", "PersistentVolumeClaim": "", "PersistentVolume": "",
	"Deployment": "apps", "ReplicaSet": "apps", "StatefulSet": "apps", "DaemonSet": "apps",
	"Job": "batch", "CronJob": "batch",
	"Ingress":     "networking.k8s.io",
	"RoleBinding": "rbac.authorization.k8s.io", "ClusterRoleBinding": "rbac.authorization.k8s.io",
}

// References returns the objects obj names, in the order of its fields, without repeats, for a
// typed or unstructured object of these kinds (other objects, metadata-only ones included, name
// none):
//
//   - Pod, and the pod template of a Deployment, ReplicaSet, StatefulSet, DaemonSet, Job,
//     CronJob or ReplicationController: the ConfigMaps and Secrets every container (init,
//     regular and ephemeral) reads through envFrom and env.valueFrom; the ConfigMaps, Secrets
//     and PersistentVolumeClaims of its volumes, projected sources included (a pod's
//     service-account token volume names the kube-root-ca.crt ConfigMap), and the Secrets of
//     volume plugins (azureFile, cephfs, cinder, flexVolume, iscsi, rbd, scaleIO, storageos,
//     csi.nodePublishSecretRef), the Secrets kubelet's VisitPodSecretNames visits; the claim of
//     a pod's generic ephemeral volume (POD-VOLUME); imagePullSecrets; the ServiceAccount
//     (serviceAccountName, else the deprecated serviceAccount, else "default", as the API
//     server defaults it); the PriorityClass and RuntimeClass; and a StatefulSet's
//     volumeClaimTemplates' StorageClasses.
//   - ServiceAccount: its imagePullSecrets and its secrets.
//   - PersistentVolumeClaim: its PersistentVolume (spec.volumeName) and StorageClass.
//   - PersistentVolume: its StorageClass.
//   - Ingress: the Services (or resources) of its backends and default backend, its TLS Secrets.
//   - RoleBinding and ClusterRoleBinding: each subject (ServiceAccount in its namespace, the
//     binding's when it names none; User and Group by name) and the Role or ClusterRole.
//
// Namespaced references are in obj's namespace unless they name another (binding subjects).
func References(obj interface{}) []Reference {
	obj = Unwrap(obj)
	if u, ok := obj.(*unstructured.Unstructured); ok {
		typed, ok := typedReferrer(u)
		if !ok {
			return nil
		}
		obj = typed
	}
	w := &refWalker{}
	switch o := obj.(type) {
	case *corev1.Pod:
		w.ns = o.Namespace
		w.podSpec(&o.Spec, o.Name)
	case *corev1.ReplicationController:
		w.ns = o.Namespace
		if o.Spec.Template != nil {
			w.podSpec(&o.Spec.Template.Spec, "")
		}
	case *appsv1.Deployment:
		w.ns = o.Namespace
		w.podSpec(&o.Spec.Template.Spec, "")
	case *appsv1.ReplicaSet:
		w.ns = o.Namespace
		w.podSpec(&o.Spec.Template.Spec, "")
	case *appsv1.StatefulSet:
		w.ns = o.Namespace
		w.podSpec(&o.Spec.Template.Spec, "")
		for _, c := range o.Spec.VolumeClaimTemplates {
			if c.Spec.StorageClassName != nil {
				w.cluster("StorageClass", *c.Spec.StorageClassName, "volumeClaimTemplates")
			}
		}
	case *appsv1.DaemonSet:
		w.ns = o.Namespace
		w.podSpec(&o.Spec.Template.Spec, "")
	case *batchv1.Job:
		w.ns = o.Namespace
		w.podSpec(&o.Spec.Template.Spec, "")
	case *batchv1.CronJob:
		w.ns = o.Namespace
		w.podSpec(&o.Spec.JobTemplate.Spec.Template.Spec, "")
	case *corev1.ServiceAccount:
		w.ns = o.Namespace
		for _, s := range o.ImagePullSecrets {
			w.local("Secret", s.Name, "imagePullSecrets")
		}
		for _, s := range o.Secrets {
			if s.Namespace == "" || s.Namespace == o.Namespace {
				w.local("Secret", s.Name, "secrets")
			}
		}
	case *corev1.PersistentVolumeClaim:
		w.ns = o.Namespace
		w.cluster("PersistentVolume", o.Spec.VolumeName, "volumeName")
		if o.Spec.StorageClassName != nil {
			w.cluster("StorageClass", *o.Spec.StorageClassName, "storageClassName")
		}
	case *corev1.PersistentVolume:
		w.cluster("StorageClass", o.Spec.StorageClassName, "storageClassName")
	case *networkingv1.Ingress:
		w.ns = o.Namespace
		if o.Spec.DefaultBackend != nil {
			w.backend(o.Spec.DefaultBackend, "defaultBackend")
		}
		for _, rule := range o.Spec.Rules {
			if rule.HTTP == nil {
				continue
			}
			for i := range rule.HTTP.Paths {
				w.backend(&rule.HTTP.Paths[i].Backend, "backend")
			}
		}
		for _, tls := range o.Spec.TLS {
			w.local("Secret", tls.SecretName, "tls")
		}
	case *rbacv1.RoleBinding:
		w.ns = o.Namespace
		w.subjects(o.Subjects)
		if o.RoleRef.Kind == "Role" {
			w.local("Role", o.RoleRef.Name, "roleRef")
		} else {
			w.cluster(o.RoleRef.Kind, o.RoleRef.Name, "roleRef")
		}
	case *rbacv1.ClusterRoleBinding:
		w.subjects(o.Subjects)
		w.cluster(o.RoleRef.Kind, o.RoleRef.Name, "roleRef")
	}
	return w.refs
}

// typedReferrer converts an unstructured object of a referrer kind to its Go type.
func typedReferrer(u *unstructured.Unstructured) (interface{}, bool) {
	gvk := u.GroupVersionKind()
	group, known := referrerGroups[gvk.Kind]
	if !known || group != gvk.Group {
		return nil, false
	}
	var typed runtime.Object
	switch gvk.Kind {
	case "Pod":
		typed = &corev1.Pod{}
	case "ReplicationController":
		typed = &corev1.ReplicationController{}
	case "ServiceAccount":
		typed = &corev1.ServiceAccount{}
	case "PersistentVolumeClaim":
		typed = &corev1.PersistentVolumeClaim{}
	case "PersistentVolume":
		typed = &corev1.PersistentVolume{}
	case "Deployment":
		typed = &appsv1.Deployment{}
	case "ReplicaSet":
		typed = &appsv1.ReplicaSet{}
	case "StatefulSet":
		typed = &appsv1.StatefulSet{}
	case "DaemonSet":
		typed = &appsv1.DaemonSet{}
	case "Job":
		typed = &batchv1.Job{}
	case "CronJob":
		typed = &batchv1.CronJob{}
	case "Ingress":
		typed = &networkingv1.Ingress{}
	case "RoleBinding":
		typed = &rbacv1.RoleBinding{}
	case "ClusterRoleBinding":
		typed = &rbacv1.ClusterRoleBinding{}
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, typed); err != nil {
		return nil, false
	}
	return typed, true
}

// IsReferrer reports whether References reads objects of kind (group and kind as the API
// names them).
func IsReferrer(group, kind string) bool {
	g, ok := referrerGroups[kind]
	return ok && g == group
}

// refWalker collects the references of one object, in order, without repeats.
type refWalker struct {
	ns   string
	refs []Reference
	seen map[Reference]bool
}

// add records ref unless its name is empty or it was recorded already.
func (w *refWalker) add(ref Reference) {
	if ref.Name == "" || ref.Kind == "" {
		return
	}
	if w.seen == nil {
		w.seen = map[Reference]bool{}
	}
	if w.seen[ref] {
		return
	}
	w.seen[ref] = true
	w.refs = append(w.refs, ref)
}

// local records a reference to an object of the walked object's namespace.
func (w *refWalker) local(kind, name, field string) {
	w.add(Reference{Kind: kind, Namespace: w.ns, Name: name, Field: field})
}

// cluster records a reference to a cluster-scoped object.
func (w *refWalker) cluster(kind, name, field string) {
	w.add(Reference{Kind: kind, Name: name, Field: field})
}

// podSpec records the references of a pod spec; podName is the pod's name, empty for a
// template (whose generic ephemeral volumes' claims are named after pods not made yet).
func (w *refWalker) podSpec(spec *corev1.PodSpec, podName string) {
	for i := range spec.InitContainers {
		w.container(spec.InitContainers[i].EnvFrom, spec.InitContainers[i].Env)
	}
	for i := range spec.Containers {
		w.container(spec.Containers[i].EnvFrom, spec.Containers[i].Env)
	}
	for i := range spec.EphemeralContainers {
		w.container(spec.EphemeralContainers[i].EnvFrom, spec.EphemeralContainers[i].Env)
	}
	for i := range spec.Volumes {
		w.volume(&spec.Volumes[i], podName)
	}
	for _, s := range spec.ImagePullSecrets {
		w.local("Secret", s.Name, "imagePullSecrets")
	}
	w.local("ServiceAccount", ServiceAccountOf(spec), "serviceAccountName")
	w.cluster("PriorityClass", spec.PriorityClassName, "priorityClassName")
	if spec.RuntimeClassName != nil {
		w.cluster("RuntimeClass", *spec.RuntimeClassName, "runtimeClassName")
	}
}

// ServiceAccountOf returns the ServiceAccount a pod spec runs as: serviceAccountName, else the
// deprecated serviceAccount, else "default", as the API server defaults it.
func ServiceAccountOf(spec *corev1.PodSpec) string {
	switch {
	case spec.ServiceAccountName != "":
		return spec.ServiceAccountName
	case spec.DeprecatedServiceAccount != "":
		return spec.DeprecatedServiceAccount
	}
	return "default"
}

// container records the ConfigMaps and Secrets a container reads through envFrom and env.
func (w *refWalker) container(envFrom []corev1.EnvFromSource, env []corev1.EnvVar) {
	for _, e := range envFrom {
		if e.ConfigMapRef != nil {
			w.local("ConfigMap", e.ConfigMapRef.Name, "envFrom")
		}
		if e.SecretRef != nil {
			w.local("Secret", e.SecretRef.Name, "envFrom")
		}
	}
	for _, e := range env {
		if e.ValueFrom == nil {
			continue
		}
		if e.ValueFrom.ConfigMapKeyRef != nil {
			w.local("ConfigMap", e.ValueFrom.ConfigMapKeyRef.Name, "env")
		}
		if e.ValueFrom.SecretKeyRef != nil {
			w.local("Secret", e.ValueFrom.SecretKeyRef.Name, "env")
		}
	}
}

// volume records the objects a volume names.
func (w *refWalker) volume(v *corev1.Volume, podName string) {
	s := &v.VolumeSource
	secret := func(ref *corev1.LocalObjectReference) {
		if ref != nil {
			w.local("Secret", ref.Name, "volume")
		}
	}
	switch {
	case s.ConfigMap != nil:
		w.local("ConfigMap", s.ConfigMap.Name, "volume")
	case s.Secret != nil:
		w.local("Secret", s.Secret.SecretName, "volume")
	case s.Projected != nil:
		for _, p := range s.Projected.Sources {
			if p.ConfigMap != nil {
				w.local("ConfigMap", p.ConfigMap.Name, "projected volume")
			}
			if p.Secret != nil {
				w.local("Secret", p.Secret.Name, "projected volume")
			}
		}
	case s.PersistentVolumeClaim != nil:
		w.local("PersistentVolumeClaim", s.PersistentVolumeClaim.ClaimName, "persistentVolumeClaim")
	case s.Ephemeral != nil:
		if podName != "" {
			w.local("PersistentVolumeClaim", podName+"-"+v.Name, "ephemeral volume")
		}
	case s.AzureFile != nil:
		w.local("Secret", s.AzureFile.SecretName, "volume")
	case s.CephFS != nil:
		secret(s.CephFS.SecretRef)
	case s.Cinder != nil:
		secret(s.Cinder.SecretRef)
	case s.FlexVolume != nil:
		secret(s.FlexVolume.SecretRef)
	case s.RBD != nil:
		secret(s.RBD.SecretRef)
	case s.ScaleIO != nil:
		secret(s.ScaleIO.SecretRef)
	case s.ISCSI != nil:
		secret(s.ISCSI.SecretRef)
	case s.StorageOS != nil:
		secret(s.StorageOS.SecretRef)
	case s.CSI != nil:
		secret(s.CSI.NodePublishSecretRef)
	}
}

// backend records the Service (or resource) of an Ingress backend.
func (w *refWalker) backend(b *networkingv1.IngressBackend, field string) {
	if b.Service != nil {
		w.local("Service", b.Service.Name, field)
	}
	if b.Resource != nil {
		w.local(b.Resource.Kind, b.Resource.Name, field)
	}
}

// subjects records the subjects of a role binding.
func (w *refWalker) subjects(subjects []rbacv1.Subject) {
	for _, s := range subjects {
		switch s.Kind {
		case rbacv1.ServiceAccountKind:
			ns := s.Namespace
			if ns == "" {
				ns = w.ns
			}
			w.add(Reference{Kind: s.Kind, Namespace: ns, Name: s.Name, Field: "subject"})
		case rbacv1.UserKind, rbacv1.GroupKind:
			w.cluster(s.Kind, s.Name, "subject")
		}
	}
}

// ReferenceKey names a referenced object: its kind, namespace (empty when cluster-scoped) and
// name.
type ReferenceKey struct {
	Kind, Namespace, Name string
}

// Key returns the ReferenceKey of r.
func (r Reference) Key() ReferenceKey {
	return ReferenceKey{Kind: r.Kind, Namespace: r.Namespace, Name: r.Name}
}

// kindOfObject returns obj's kind as its type meta says, or from its Go type for the typed
// kinds used-by answers; "" when unknown.
func kindOfObject(obj interface{}) string {
	if t, err := meta.TypeAccessor(obj); err == nil && t.GetKind() != "" {
		return t.GetKind()
	}
	switch obj.(type) {
	case *corev1.ConfigMap:
		return "ConfigMap"
	case *corev1.Secret:
		return "Secret"
	case *corev1.ServiceAccount:
		return "ServiceAccount"
	case *corev1.PersistentVolumeClaim:
		return "PersistentVolumeClaim"
	case *corev1.PersistentVolume:
		return "PersistentVolume"
	case *corev1.Service:
		return "Service"
	case *rbacv1.Role:
		return "Role"
	case *rbacv1.ClusterRole:
		return "ClusterRole"
	}
	return ""
}

// referrerKindOf returns the kind of a typed referrer whose type meta is empty, "" for others.
func referrerKindOf(obj interface{}) string {
	switch obj.(type) {
	case *corev1.Pod:
		return "Pod"
	case *corev1.ReplicationController:
		return "ReplicationController"
	case *appsv1.Deployment:
		return "Deployment"
	case *appsv1.ReplicaSet:
		return "ReplicaSet"
	case *appsv1.StatefulSet:
		return "StatefulSet"
	case *appsv1.DaemonSet:
		return "DaemonSet"
	case *batchv1.Job:
		return "Job"
	case *batchv1.CronJob:
		return "CronJob"
	case *networkingv1.Ingress:
		return "Ingress"
	case *rbacv1.RoleBinding:
		return "RoleBinding"
	case *rbacv1.ClusterRoleBinding:
		return "ClusterRoleBinding"
	}
	return ""
}
