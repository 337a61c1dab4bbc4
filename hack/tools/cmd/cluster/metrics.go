package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	aggregator "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset"
)

// How up --metrics runs metrics-server: as the user metricsServerUser, behind
// the Service metricsServerNamespace/metricsServerService, taking a sample
// every metricResolution (metrics-server's minimum).
const (
	metricsServerUser      = "system:metrics-server"
	metricsServerNamespace = "kube-system"
	metricsServerService   = "metrics-server"
	metricsAPIService      = "v1beta1.metrics.k8s.io"
	metricResolution       = 10 * time.Second
	// viewerMetricsRole lets viewer read pod metrics in team-a.
	viewerMetricsRole = "pod-metrics-reader"
)

// kwokMetricsFiles are kwok's configurations for metrics-server, from the kwok
// module: the kubelet's /metrics/resource endpoint of every node (a Metric
// served at /metrics/nodes/NODE/metrics/resource), and each container's usage
// read from its pod's annotations kwok.x-k8s.io/usage-cpu and
// kwok.x-k8s.io/usage-memory (a ClusterResourceUsage; 1m and 1Mi without
// them).
var kwokMetricsFiles = []string{
	"kustomize/metrics/resource/metrics-resource.yaml",
	"kustomize/metrics/usage/usage-from-annotation.yaml",
}

// aggregationFlags are kube-apiserver's flags for the aggregation layer: it
// proxies a request for metrics.k8s.io to metrics-server with the
// front-proxy-client certificate and the requesting user in headers, which
// metrics-server trusts from that certificate alone. It also publishes them
// (the extension-apiserver-authentication ConfigMap), where metrics-server
// reads them.
//
// There is no --enable-aggregator-routing: with it, the aggregator dials an
// address of the Service's EndpointSlices, and those may not hold a loopback
// address, which is all metrics-server has here. Without it, the aggregator
// dials an ExternalName Service's name (127.0.0.1), as kwokctl's clusters
// do, and checks metrics-server's certificate against the APIService's
// caBundle for the name metrics-server.kube-system.svc.
func aggregationFlags(p pkiFiles) []string {
	return []string{
		"--requestheader-client-ca-file=" + p.CACert(),
		"--requestheader-allowed-names=" + frontProxyUser,
		"--requestheader-username-headers=X-Remote-User",
		"--requestheader-group-headers=X-Remote-Group",
		"--requestheader-extra-headers-prefix=X-Remote-Extra-",
		"--proxy-client-cert-file=" + p.ClientCert(frontProxyUser),
		"--proxy-client-key-file=" + p.ClientKey(frontProxyUser),
	}
}

// writeKwokMetricsConfig writes kwokMetricsFiles, as hack/kwok requires the
// kwok module, into DIR/kwok-metrics.yaml, a second configuration for kwok,
// and returns its path.
func writeKwokMetricsConfig(dir string) (string, error) {
	mod, err := moduleDir("kwok")
	if err != nil {
		return "", err
	}
	src, err := moduleInfo(mod, "{{.Dir}}", kwokModule)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, f := range kwokMetricsFiles {
		data, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			return "", fmt.Errorf("reading kwok's %s: %w", f, err)
		}
		fmt.Fprintf(&b, "# %s@%s %s\n---\n%s\n", kwokModule, kwokVersion, f, strings.TrimRight(string(data), "\n"))
	}
	path := filepath.Join(dir, "kwok-metrics.yaml")
	return path, writeFileAtomic(path, []byte(b.String()), 0o644)
}

// startMetricsServer starts metrics-server against the primary apiserver,
// gives it the roles its own manifests give it, registers it as the
// APIService v1beta1.metrics.k8s.io and waits until that is Available.
// metrics-server scrapes each node's kubelet (kwok) at the node's InternalDNS
// address and the port of its daemonEndpoints; it has a CPU rate once it has
// two samples of a pod or node, so kubectl top answers from the second
// sample on.
func (st *clusterState) startMetricsServer(p pkiFiles, bins binaries, timeout time.Duration) error {
	ports, err := freePorts(1)
	if err != nil {
		return err
	}
	port := strconv.Itoa(ports[0])
	primary := st.APIServers[primaryName]
	c := &componentState{
		Name:       metricsServerBin,
		Binary:     bins[metricsServerBin],
		Kubeconfig: filepath.Join(st.Dir, metricsServerBin+".kubeconfig"),
		Log:        filepath.Join(st.Dir, metricsServerBin+".log"),
		HealthURL:  "https://127.0.0.1:" + port + "/livez",
	}
	if err := writeKubeconfig(c.Kubeconfig, primary.URL, p, metricsServerBin); err != nil {
		return err
	}
	c.Args = []string{
		"--bind-address=127.0.0.1",
		"--secure-port=" + port,
		"--tls-cert-file=" + p.MetricsServingCert(),
		"--tls-private-key-file=" + p.MetricsServingKey(),
		"--kubeconfig=" + c.Kubeconfig,
		"--authentication-kubeconfig=" + c.Kubeconfig,
		"--authorization-kubeconfig=" + c.Kubeconfig,
		"--kubelet-preferred-address-types=" + string(corev1.NodeInternalDNS),
		"--kubelet-use-node-status-port",
		// kwok serves its kubelets with a certificate of its own.
		"--kubelet-insecure-tls",
		"--metric-resolution=" + metricResolution.String(),
		// It must be shorter than the resolution; kwok answers at once.
		"--kubelet-request-timeout=5s",
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	// The roles first: metrics-server reads the request-header
	// configuration from kube-system as it starts.
	if err := setupMetricsRBAC(ctx, st.AdminKubeconfig); err != nil {
		return fmt.Errorf("setting up metrics-server's roles: %w", err)
	}
	if st.Components == nil {
		st.Components = map[string]*componentState{}
	}
	st.Components[metricsServerBin] = c
	if err := st.startComponent(c, timeout); err != nil {
		return err
	}
	ca, err := os.ReadFile(p.CACert())
	if err != nil {
		return fmt.Errorf("reading the CA: %w", err)
	}
	if err := registerMetricsAPI(ctx, st.AdminKubeconfig, int32(ports[0]), ca); err != nil {
		return fmt.Errorf("registering metrics-server: %w; see %s and %s", err, c.Log, primary.Log)
	}
	return nil
}

// setupMetricsRBAC creates the roles and bindings metrics-server's manifests
// (manifests/base/rbac.yaml) create, for the user metricsServerUser: read
// nodes, pods and the nodes' metrics; delegate authentication and
// authorization; read the request-header configuration in kube-system. And
// the role that aggregates reading metrics.k8s.io into view, edit and admin,
// and a role that lets viewer read the metrics of team-a's pods.
func setupMetricsRBAC(ctx context.Context, kubeconfig string) error {
	cs, err := adminClient(kubeconfig)
	if err != nil {
		return err
	}
	user := []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: metricsServerUser}}
	roles := []*rbacv1.ClusterRole{
		{
			ObjectMeta: metav1.ObjectMeta{Name: metricsServerUser},
			Rules: []rbacv1.PolicyRule{
				{APIGroups: []string{""}, Resources: []string{"nodes/metrics"}, Verbs: []string{"get"}},
				{APIGroups: []string{""}, Resources: []string{"pods", "nodes"}, Verbs: []string{"get", "list", "watch"}},
			},
		},
		{
			ObjectMeta: metav1.ObjectMeta{Name: "system:aggregated-metrics-reader", Labels: map[string]string{
				"rbac.authorization.k8s.io/aggregate-to-admin": "true",
				"rbac.authorization.k8s.io/aggregate-to-edit":  "true",
				"rbac.authorization.k8s.io/aggregate-to-view":  "true",
			}},
			Rules: []rbacv1.PolicyRule{
				{APIGroups: []string{"metrics.k8s.io"}, Resources: []string{"pods", "nodes"}, Verbs: []string{"get", "list", "watch"}},
			},
		},
	}
	for _, r := range roles {
		if _, err := cs.RbacV1().ClusterRoles().Create(ctx, r, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating clusterrole %s: %w", r.Name, err)
		}
	}
	clusterBindings := []*rbacv1.ClusterRoleBinding{
		{
			ObjectMeta: metav1.ObjectMeta{Name: metricsServerUser},
			Subjects:   user,
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: metricsServerUser},
		},
		{
			ObjectMeta: metav1.ObjectMeta{Name: "metrics-server:system:auth-delegator"},
			Subjects:   user,
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "system:auth-delegator"},
		},
	}
	for _, b := range clusterBindings {
		if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, b, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating clusterrolebinding %s: %w", b.Name, err)
		}
	}
	// viewer, who may read pods in team-a, may read their metrics too,
	// as the view role (aggregated above) would let it.
	viewerMetrics := &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: viewerMetricsRole, Namespace: viewerNamespace},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{"metrics.k8s.io"}, Resources: []string{"pods"}, Verbs: []string{"get", "list"}},
		},
	}
	if _, err := cs.RbacV1().Roles(viewerNamespace).Create(ctx, viewerMetrics, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating role %s: %w", viewerMetrics.Name, err)
	}
	viewerBinding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "viewer-" + viewerMetricsRole, Namespace: viewerNamespace},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: viewerUser}},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: viewerMetricsRole},
	}
	if _, err := cs.RbacV1().RoleBindings(viewerNamespace).Create(ctx, viewerBinding, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating rolebinding %s: %w", viewerBinding.Name, err)
	}
	authReader := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "metrics-server-auth-reader", Namespace: metricsServerNamespace},
		Subjects:   user,
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "extension-apiserver-authentication-reader"},
	}
	if _, err := cs.RbacV1().RoleBindings(metricsServerNamespace).Create(ctx, authReader, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating rolebinding %s: %w", authReader.Name, err)
	}
	return nil
}

// registerMetricsAPI creates the ExternalName Service that names
// metrics-server's address and the APIService v1beta1.metrics.k8s.io behind
// it, and waits until the aggregator reports the APIService Available.
func registerMetricsAPI(ctx context.Context, kubeconfig string, port int32, caBundle []byte) error {
	cs, err := adminClient(kubeconfig)
	if err != nil {
		return err
	}
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: metricsServerService, Namespace: metricsServerNamespace},
		Spec: corev1.ServiceSpec{
			Type:         corev1.ServiceTypeExternalName,
			ExternalName: "127.0.0.1",
			Ports:        []corev1.ServicePort{{Name: "https", Port: port}},
		},
	}
	if _, err := cs.CoreV1().Services(metricsServerNamespace).Create(ctx, svc, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating service %s/%s: %w", metricsServerNamespace, metricsServerService, err)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return fmt.Errorf("loading %s: %w", kubeconfig, err)
	}
	cfg.UserAgent = "hack/cluster"
	ac, err := aggregator.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("creating an aggregator client: %w", err)
	}
	apiService := &apiregistrationv1.APIService{
		ObjectMeta: metav1.ObjectMeta{Name: metricsAPIService, Labels: map[string]string{"k8s-app": "metrics-server"}},
		Spec: apiregistrationv1.APIServiceSpec{
			Group:                "metrics.k8s.io",
			Version:              "v1beta1",
			GroupPriorityMinimum: 100,
			VersionPriority:      100,
			Service:              &apiregistrationv1.ServiceReference{Namespace: metricsServerNamespace, Name: metricsServerService, Port: &port},
			CABundle:             caBundle,
		},
	}
	if _, err := ac.ApiregistrationV1().APIServices().Create(ctx, apiService, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating apiservice %s: %w", metricsAPIService, err)
	}
	var last string
	err = wait.PollUntilContextCancel(ctx, 200*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		got, err := ac.ApiregistrationV1().APIServices().Get(ctx, metricsAPIService, metav1.GetOptions{})
		if err != nil {
			last = err.Error()
			return false, nil
		}
		for _, c := range got.Status.Conditions {
			if c.Type == apiregistrationv1.Available {
				last = fmt.Sprintf("Available=%s (%s: %s)", c.Status, c.Reason, c.Message)
				return c.Status == apiregistrationv1.ConditionTrue, nil
			}
		}
		return false, nil
	})
	if err != nil {
		return fmt.Errorf("apiservice %s not Available: %s", metricsAPIService, last)
	}
	return nil
}

// adminClient is a client for the admin kubeconfig.
func adminClient(kubeconfig string) (kubernetes.Interface, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", kubeconfig, err)
	}
	cfg.UserAgent = "hack/cluster"
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("creating a client: %w", err)
	}
	return cs, nil
}
