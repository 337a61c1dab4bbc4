package index

import (
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"
)

// fullPodSpec names one object through every kind of field References reads.
func fullPodSpec() corev1.PodSpec {
	str := func(s string) *string { return &s }
	cm := func(name string) corev1.LocalObjectReference { return corev1.LocalObjectReference{Name: name} }
	sec := func(name string) *corev1.LocalObjectReference { return &corev1.LocalObjectReference{Name: name} }
	return corev1.PodSpec{
		InitContainers: []corev1.Container{{Name: "init", EnvFrom: []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: cm("init-envfrom")}}}}},
		Containers: []corev1.Container{{
			Name: "app",
			EnvFrom: []corev1.EnvFromSource{
				{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: cm("app-envfrom")}},
				{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: cm("secret-envfrom")}},
			},
			Env: []corev1.EnvVar{
				{Name: "A", Value: "plain"},
				{Name: "B", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: cm("app-env"), Key: "k"}}},
				{Name: "C", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: cm("secret-env"), Key: "k"}}},
				{Name: "D", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
			},
		}},
		EphemeralContainers: []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "debug",
			Env: []corev1.EnvVar{{Name: "E", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: cm("debug-env")}}}}}}},
		Volumes: []corev1.Volume{
			{Name: "cm", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: cm("vol-cm")}}},
			{Name: "sec", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "vol-secret"}}},
			{Name: "proj", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
				{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token"}},
				{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: cm("kube-root-ca.crt")}},
				{Secret: &corev1.SecretProjection{LocalObjectReference: cm("proj-secret")}},
			}}}},
			{Name: "claim", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}},
			{Name: "scratch", VolumeSource: corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{}}},
			{Name: "csi", VolumeSource: corev1.VolumeSource{CSI: &corev1.CSIVolumeSource{Driver: "d", NodePublishSecretRef: sec("csi-secret")}}},
			{Name: "azure", VolumeSource: corev1.VolumeSource{AzureFile: &corev1.AzureFileVolumeSource{SecretName: "azure-secret"}}},
			{Name: "ceph", VolumeSource: corev1.VolumeSource{CephFS: &corev1.CephFSVolumeSource{SecretRef: sec("ceph-secret")}}},
			{Name: "flex", VolumeSource: corev1.VolumeSource{FlexVolume: &corev1.FlexVolumeSource{SecretRef: sec("flex-secret")}}},
			{Name: "rbd", VolumeSource: corev1.VolumeSource{RBD: &corev1.RBDVolumeSource{SecretRef: sec("rbd-secret")}}},
			{Name: "iscsi", VolumeSource: corev1.VolumeSource{ISCSI: &corev1.ISCSIVolumeSource{SecretRef: sec("iscsi-secret")}}},
			{Name: "empty", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
		},
		ImagePullSecrets:  []corev1.LocalObjectReference{cm("pull"), cm("")},
		PriorityClassName: "high",
		RuntimeClassName:  str("gvisor"),
	}
}

// fullPodValues are the uses values of a pod "web" of fullPodSpec, without related caches.
var fullPodValues = []string{
	"ConfigMap/init-envfrom", "ConfigMap/app-envfrom", "Secret/secret-envfrom", "ConfigMap/app-env", "Secret/secret-env",
	"Secret/debug-env",
	"ConfigMap/vol-cm", "Secret/vol-secret", "ConfigMap/kube-root-ca.crt", "Secret/proj-secret",
	"PersistentVolumeClaim/data", "PersistentVolumeClaim/web-scratch",
	"Secret/csi-secret", "Secret/azure-secret", "Secret/ceph-secret", "Secret/flex-secret", "Secret/rbd-secret", "Secret/iscsi-secret",
	"Secret/pull", "ServiceAccount/default", "PriorityClass/high", "RuntimeClass/gvisor",
}

// refUnstructured returns obj in its unstructured form with apiVersion and kind.
func refUnstructured(t *testing.T, obj runtime.Object, gvk schema.GroupVersionKind) *unstructured.Unstructured {
	t.Helper()
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{Object: content}
	u.SetGroupVersionKind(gvk)
	return u
}

func TestUsesIndexWalker(t *testing.T) {
	om := metav1.ObjectMeta{Namespace: "shop", Name: "web"}
	spec := fullPodSpec()
	tmpl := corev1.PodTemplateSpec{Spec: spec}
	// A template has no generic ephemeral volume claim: its pods' names are not known.
	templateValues := slices.DeleteFunc(slices.Clone(fullPodValues), func(v string) bool { return v == "PersistentVolumeClaim/web-scratch" })
	sc := "fast"
	sts := &appsv1.StatefulSet{ObjectMeta: om, Spec: appsv1.StatefulSetSpec{Template: tmpl,
		VolumeClaimTemplates: []corev1.PersistentVolumeClaim{{Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: &sc}}}}}
	named := corev1.PodSpec{ServiceAccountName: "builder", Containers: []corev1.Container{{Name: "c"}}}
	ing := &networkingv1.Ingress{ObjectMeta: om, Spec: networkingv1.IngressSpec{
		DefaultBackend: &networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "fallback"}},
		Rules: []networkingv1.IngressRule{{IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{
			{Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "web"}}},
			{Backend: networkingv1.IngressBackend{Resource: &corev1.TypedLocalObjectReference{Kind: "Bucket", Name: "assets"}}},
		}}}}},
		TLS: []networkingv1.IngressTLS{{SecretName: "web-tls"}},
	}}
	subjects := []rbacv1.Subject{
		{Kind: "ServiceAccount", Name: "deployer"},
		{Kind: "ServiceAccount", Namespace: "ci", Name: "runner"},
		{Kind: "User", Name: "alice"},
		{Kind: "Group", Name: "system:masters"},
	}
	rb := &rbacv1.RoleBinding{ObjectMeta: om, Subjects: subjects, RoleRef: rbacv1.RoleRef{Kind: "Role", Name: "edit-web"}}
	crb := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "admins"}, Subjects: subjects[1:], RoleRef: rbacv1.RoleRef{Kind: "ClusterRole", Name: "cluster-admin"}}
	pvc := &corev1.PersistentVolumeClaim{ObjectMeta: om, Spec: corev1.PersistentVolumeClaimSpec{VolumeName: "pv-1", StorageClassName: &sc}}
	sa := &corev1.ServiceAccount{ObjectMeta: om, ImagePullSecrets: []corev1.LocalObjectReference{{Name: "pull"}}, Secrets: []corev1.ObjectReference{{Name: "web-token"}}}
	tests := []struct {
		name string
		obj  interface{}
		want []string
	}{
		{"pod", &corev1.Pod{ObjectMeta: om, Spec: spec}, fullPodValues},
		{"pod with a named ServiceAccount", &corev1.Pod{ObjectMeta: om, Spec: named}, []string{"ServiceAccount/builder"}},
		{"pod with the deprecated serviceAccount", &corev1.Pod{ObjectMeta: om, Spec: corev1.PodSpec{DeprecatedServiceAccount: "old"}}, []string{"ServiceAccount/old"}},
		{"tombstone of a pod", cache.DeletedFinalStateUnknown{Obj: &corev1.Pod{ObjectMeta: om, Spec: named}}, []string{"ServiceAccount/builder"}},
		{"deployment", &appsv1.Deployment{ObjectMeta: om, Spec: appsv1.DeploymentSpec{Template: tmpl}}, templateValues},
		{"replicaset", &appsv1.ReplicaSet{ObjectMeta: om, Spec: appsv1.ReplicaSetSpec{Template: tmpl}}, templateValues},
		{"statefulset", sts, append(slices.Clone(templateValues), "StorageClass/fast")},
		{"daemonset", &appsv1.DaemonSet{ObjectMeta: om, Spec: appsv1.DaemonSetSpec{Template: tmpl}}, templateValues},
		{"job", &batchv1.Job{ObjectMeta: om, Spec: batchv1.JobSpec{Template: tmpl}}, templateValues},
		{"cronjob", &batchv1.CronJob{ObjectMeta: om, Spec: batchv1.CronJobSpec{JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: tmpl}}}}, templateValues},
		{"replicationcontroller", &corev1.ReplicationController{ObjectMeta: om, Spec: corev1.ReplicationControllerSpec{Template: &tmpl}}, templateValues},
		{"ingress", ing, []string{"Service/fallback", "Service/web", "Bucket/assets", "Secret/web-tls"}},
		{"rolebinding", rb, []string{"ServiceAccount/deployer", "ServiceAccount/ci/runner", "User/alice", "Group/system:masters", "Role/edit-web"}},
		{"clusterrolebinding", crb, []string{"ServiceAccount/ci/runner", "User/alice", "Group/system:masters", "ClusterRole/cluster-admin"}},
		{"claim", pvc, []string{"PersistentVolume/pv-1", "StorageClass/fast"}},
		{"volume", &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv-1"}, Spec: corev1.PersistentVolumeSpec{StorageClassName: "fast"}}, []string{"StorageClass/fast"}},
		{"serviceaccount", sa, []string{"Secret/pull", "Secret/web-token"}},
		{"configmap refers to nothing", &corev1.ConfigMap{ObjectMeta: om}, nil},
		{"metadata-only pod", &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: om}, nil},
	}
	gvks := map[string]schema.GroupVersionKind{
		"pod": {Version: "v1", Kind: "Pod"}, "deployment": {Group: "apps", Version: "v1", Kind: "Deployment"},
		"statefulset": {Group: "apps", Version: "v1", Kind: "StatefulSet"}, "cronjob": {Group: "batch", Version: "v1", Kind: "CronJob"},
		"ingress": {Group: "networking.k8s.io", Version: "v1", Kind: "Ingress"}, "rolebinding": {Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "RoleBinding"},
		"clusterrolebinding": {Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRoleBinding"},
		"claim":              {Version: "v1", Kind: "PersistentVolumeClaim"}, "serviceaccount": {Version: "v1", Kind: "ServiceAccount"},
		"replicationcontroller": {Version: "v1", Kind: "ReplicationController"},
	}
	def := UsesIndex(nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := def.Func(tt.obj)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("uses(%s) = %q, want %q", tt.name, got, tt.want)
			}
			gvk, ok := gvks[tt.name]
			if !ok {
				return
			}
			u := refUnstructured(t, tt.obj.(runtime.Object), gvk)
			got, err = def.Func(u)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("uses(unstructured %s) = %q, want %q", tt.name, got, tt.want)
			}
		})
	}
}

func TestReferenceFields(t *testing.T) {
	refs := References(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}, Spec: fullPodSpec()})
	fields := map[string]string{}
	for _, r := range refs {
		fields[r.Kind+"/"+r.Name] = r.Field
	}
	want := map[string]string{
		"ConfigMap/init-envfrom": "envFrom", "Secret/secret-env": "env", "ConfigMap/vol-cm": "volume",
		"ConfigMap/kube-root-ca.crt": "projected volume", "PersistentVolumeClaim/data": "persistentVolumeClaim",
		"PersistentVolumeClaim/web-scratch": "ephemeral volume", "Secret/pull": "imagePullSecrets",
		"ServiceAccount/default": "serviceAccountName", "PriorityClass/high": "priorityClassName", "RuntimeClass/gvisor": "runtimeClassName",
		"Secret/csi-secret": "volume",
	}
	for k, f := range want {
		if fields[k] != f {
			t.Errorf("field of %s = %q, want %q", k, fields[k], f)
		}
	}
}

// fakeReferenced is a Referenced over a map of "Kind/namespace/name".
type fakeReferenced map[string]interface{}

func (f fakeReferenced) Referenced(kind, namespace, name string) interface{} {
	return f[kind+"/"+namespace+"/"+name]
}

func TestUsesThroughRelated(t *testing.T) {
	sc := "fast"
	related := fakeReferenced{
		"ServiceAccount/shop/builder": &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "builder"},
			ImagePullSecrets: []corev1.LocalObjectReference{{Name: "registry"}}, Secrets: []corev1.ObjectReference{{Name: "token"}}},
		"PersistentVolumeClaim/shop/data": &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "data"},
			Spec: corev1.PersistentVolumeClaimSpec{VolumeName: "pv-1", StorageClassName: &sc}},
	}
	spec := corev1.PodSpec{ServiceAccountName: "builder", Volumes: []corev1.Volume{{Name: "d", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}}}}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}, Spec: spec}
	got := Uses(pod, related)
	var values, fields []string
	for _, r := range got {
		values = append(values, r.Value("shop"))
		fields = append(fields, r.Field)
	}
	wantValues := []string{"PersistentVolumeClaim/data", "ServiceAccount/builder", "PersistentVolume/pv-1", "StorageClass/fast", "Secret/registry"}
	wantFields := []string{"persistentVolumeClaim", "serviceAccountName", "volumeName (PersistentVolumeClaim/data)", "storageClassName (PersistentVolumeClaim/data)", "imagePullSecrets (ServiceAccount/builder)"}
	if !slices.Equal(values, wantValues) || !slices.Equal(fields, wantFields) {
		t.Errorf("Uses(pod) = %q %q, want %q %q", values, fields, wantValues, wantFields)
	}
}

func TestUsedByIndex(t *testing.T) {
	om := func(ns, name string) metav1.ObjectMeta { return metav1.ObjectMeta{Namespace: ns, Name: name} }
	sc := "fast"
	sa := &corev1.ServiceAccount{ObjectMeta: om("shop", "builder"), ImagePullSecrets: []corev1.LocalObjectReference{{Name: "registry"}}}
	pvc := &corev1.PersistentVolumeClaim{ObjectMeta: om("shop", "data"), Spec: corev1.PersistentVolumeClaimSpec{VolumeName: "pv-1", StorageClassName: &sc}}
	related := fakeReferenced{"ServiceAccount/shop/builder": sa, "PersistentVolumeClaim/shop/data": pvc}
	pod := &corev1.Pod{ObjectMeta: om("shop", "web-1"), Spec: corev1.PodSpec{ServiceAccountName: "builder",
		Containers: []corev1.Container{{EnvFrom: []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "app-config"}}}}}},
		Volumes:    []corev1.Volume{{Name: "d", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}}}}}
	deploy := refUnstructured(t, &appsv1.Deployment{ObjectMeta: om("shop", "web"), Spec: appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
		Volumes: []corev1.Volume{{Name: "c", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "app-config"}}}}}}}}},
		schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"})
	rb := &rbacv1.RoleBinding{ObjectMeta: om("ci", "deployers"), Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: "shop", Name: "builder"}}, RoleRef: rbacv1.RoleRef{Kind: "ClusterRole", Name: "edit"}}
	set := NewReferenceSet(related, []interface{}{pod, deploy, rb, sa, pvc, &corev1.ConfigMap{ObjectMeta: om("shop", "not-a-user")}})
	def := UsedByIndex(set)
	cmMeta := func(ns, name string) *metav1.PartialObjectMetadata {
		return &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: om(ns, name)}
	}
	tests := []struct {
		name string
		obj  interface{}
		want []string
	}{
		{"configmap used by a pod and a deployment", cmMeta("shop", "app-config"), []string{"Deployment/web", "Pod/web-1"}},
		{"unused configmap", cmMeta("shop", "stale"), nil},
		{"same name in another namespace", cmMeta("other", "app-config"), nil},
		{"secret through the ServiceAccount", &corev1.Secret{ObjectMeta: om("shop", "registry")}, []string{"Pod/web-1", "ServiceAccount/builder"}},
		{"serviceaccount used by a pod and a binding of another namespace", sa, []string{"Pod/web-1", "RoleBinding/ci/deployers"}},
		{"claim", pvc, []string{"Pod/web-1"}},
		{"cluster-scoped volume", &corev1.PersistentVolume{ObjectMeta: om("", "pv-1")}, []string{"PersistentVolumeClaim/shop/data", "Pod/shop/web-1"}},
		{"cluster role", &rbacv1.ClusterRole{ObjectMeta: om("", "edit")}, []string{"RoleBinding/ci/deployers"}},
		{"kind used-by does not answer", &corev1.Node{ObjectMeta: om("", "n1")}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := def.Func(tt.obj)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("used-by(%s) = %q, want %q", tt.name, got, tt.want)
			}
		})
	}

	// Changes: the pod drops the ConfigMap, the ServiceAccount drops its pull secret.
	pod2 := pod.DeepCopy()
	pod2.Spec.Containers = nil
	changed := set.Set(pod2)
	if !slices.Contains(changed, ReferenceKey{Kind: "ConfigMap", Namespace: "shop", Name: "app-config"}) {
		t.Errorf("Set(pod without envFrom) = %v, want the ConfigMap among them", changed)
	}
	if got, _ := def.Func(cmMeta("shop", "app-config")); !slices.Equal(got, []string{"Deployment/web"}) {
		t.Errorf("used-by after the pod's change = %q, want [Deployment/web]", got)
	}
	sa2 := sa.DeepCopy()
	sa2.ImagePullSecrets = nil
	related["ServiceAccount/shop/builder"] = sa2
	changed = set.Set(sa2)
	if !slices.Contains(changed, ReferenceKey{Kind: "Secret", Namespace: "shop", Name: "registry"}) {
		t.Errorf("Set(ServiceAccount without pull secrets) = %v, want the Secret among them", changed)
	}
	if got, _ := def.Func(&corev1.Secret{ObjectMeta: om("shop", "registry")}); got != nil {
		t.Errorf("used-by of the dropped pull secret = %q, want none", got)
	}
	set.Delete(deploy)
	if got, _ := def.Func(cmMeta("shop", "app-config")); got != nil {
		t.Errorf("used-by after the deployment's deletion = %q, want none", got)
	}
}

func TestUserKinds(t *testing.T) {
	kinds := func(gks []schema.GroupKind) []string {
		var out []string
		for _, gk := range gks {
			out = append(out, gk.Kind)
		}
		return out
	}
	if got := kinds(UserKinds([]string{"Service"})); !slices.Equal(got, []string{"Ingress"}) {
		t.Errorf("UserKinds(Service) = %q, want [Ingress]", got)
	}
	got := kinds(UserKinds([]string{"ConfigMap"}))
	want := []string{"CronJob", "DaemonSet", "Deployment", "Job", "PersistentVolumeClaim", "Pod", "ReplicaSet", "ReplicationController", "ServiceAccount", "StatefulSet"}
	if !slices.Equal(got, want) {
		t.Errorf("UserKinds(ConfigMap) = %q, want %q", got, want)
	}
	if got := UserKinds([]string{"Node"}); len(got) != 0 {
		t.Errorf("UserKinds(Node) = %v, want none", got)
	}
	if got := kinds(UsesKinds([]string{"Ingress"})); got != nil {
		t.Errorf("UsesKinds(Ingress) = %q, want none", got)
	}
	if got := kinds(UsesKinds([]string{"Deployment"})); !slices.Equal(got, []string{"PersistentVolumeClaim", "ServiceAccount"}) {
		t.Errorf("UsesKinds(Deployment) = %q, want claims and ServiceAccounts", got)
	}
}
