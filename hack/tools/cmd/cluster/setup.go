package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// The namespace and RBAC objects up creates for the viewer user.
const (
	viewerNamespace   = "team-a"
	viewerRole        = "pod-reader"
	viewerRoleBinding = "viewer-pod-reader"
)

// auditPolicy logs every request at Metadata level.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: Metadata
`

// writeKubeconfig writes a kubeconfig for user at server, embedding the CA
// and the user's client certificate and key so the file stands alone.
func writeKubeconfig(path, server string, p pkiFiles, user string) error {
	ca, err := os.ReadFile(p.CACert())
	if err != nil {
		return fmt.Errorf("reading the CA: %w", err)
	}
	cert, err := os.ReadFile(p.ClientCert(user))
	if err != nil {
		return fmt.Errorf("reading the client certificate: %w", err)
	}
	key, err := os.ReadFile(p.ClientKey(user))
	if err != nil {
		return fmt.Errorf("reading the client key: %w", err)
	}
	const clusterName = "kubectl-informer"
	contextName := user + "@" + clusterName
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[clusterName] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: ca}
	cfg.AuthInfos[user] = &clientcmdapi.AuthInfo{ClientCertificateData: cert, ClientKeyData: key}
	cfg.Contexts[contextName] = &clientcmdapi.Context{Cluster: clusterName, AuthInfo: user}
	cfg.CurrentContext = contextName
	data, err := clientcmd.Write(*cfg)
	if err != nil {
		return fmt.Errorf("encoding kubeconfig %s: %w", path, err)
	}
	return writeFileAtomic(path, data, 0o600)
}

// adminTLS is the TLS configuration of the admin user, for readiness probes.
func adminTLS(p pkiFiles) (*tls.Config, error) {
	ca, err := os.ReadFile(p.CACert())
	if err != nil {
		return nil, fmt.Errorf("reading the CA: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		return nil, fmt.Errorf("no certificate in %s", p.CACert())
	}
	pair, err := tls.LoadX509KeyPair(p.ClientCert(adminUser), p.ClientKey(adminUser))
	if err != nil {
		return nil, fmt.Errorf("loading the admin client certificate: %w", err)
	}
	return &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}, nil
}

// waitHTTP polls url until it answers 200 with a body containing want, c
// exits, or timeout passes. The error names the log to read.
func waitHTTP(what, url, want string, tlsConfig *tls.Config, c *child, logPath string, timeout time.Duration) error {
	client := &http.Client{
		Timeout:   2 * time.Second,
		Transport: &http.Transport{TLSClientConfig: tlsConfig, DisableKeepAlives: true},
	}
	deadline := time.Now().Add(timeout)
	var lastErr error
	for {
		select {
		case <-c.exited:
			if bindFailed(logPath) {
				return fmt.Errorf("%s exited before it was ready (%v): %w; see %s:\n%s", what, c.err, errPortTaken, logPath, tail(logPath, 20))
			}
			return fmt.Errorf("%s exited before it was ready (%v); see %s:\n%s", what, c.err, logPath, tail(logPath, 20))
		default:
		}
		resp, err := client.Get(url)
		if err == nil {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK && strings.Contains(string(body), want) {
				return nil
			}
			lastErr = fmt.Errorf("%s: %s: %s", url, resp.Status, lastLines(string(body), 8))
		} else {
			lastErr = err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not ready after %s: %v; see %s:\n%s", what, timeout, lastErr, logPath, tail(logPath, 20))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// setupObjects creates what a cluster without a controller-manager lacks for
// the tests: the team-a namespace, the default ServiceAccounts (the
// ServiceAccount admission plugin rejects pods without one), and the Role and
// RoleBinding that let viewer get, list and watch pods in team-a.
func setupObjects(ctx context.Context, kubeconfig string) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return fmt.Errorf("loading %s: %w", kubeconfig, err)
	}
	cfg.UserAgent = "hack/cluster"
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("creating a client: %w", err)
	}
	create := func(what string, f func() error) error {
		// The default namespace appears shortly after /readyz; retry
		// NotFound for a little while.
		return wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			err := f()
			switch {
			case err == nil, apierrors.IsAlreadyExists(err):
				return true, nil
			case apierrors.IsNotFound(err):
				return false, nil
			default:
				return false, fmt.Errorf("creating %s: %w", what, err)
			}
		})
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: viewerNamespace}}
	if err := create("namespace "+viewerNamespace, func() error {
		_, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{})
		return err
	}); err != nil {
		return err
	}
	for _, namespace := range []string{metav1.NamespaceDefault, viewerNamespace} {
		sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: namespace}}
		if err := create("serviceaccount "+namespace+"/default", func() error {
			_, err := cs.CoreV1().ServiceAccounts(namespace).Create(ctx, sa, metav1.CreateOptions{})
			return err
		}); err != nil {
			return err
		}
	}
	role := &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: viewerRole, Namespace: viewerNamespace},
		Rules: []rbacv1.PolicyRule{{
			APIGroups: []string{""},
			Resources: []string{"pods"},
			Verbs:     []string{"get", "list", "watch"},
		}},
	}
	if err := create("role "+viewerRole, func() error {
		_, err := cs.RbacV1().Roles(viewerNamespace).Create(ctx, role, metav1.CreateOptions{})
		return err
	}); err != nil {
		return err
	}
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: viewerRoleBinding, Namespace: viewerNamespace},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: viewerUser}},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: viewerRole},
	}
	return create("rolebinding "+viewerRoleBinding, func() error {
		_, err := cs.RbacV1().RoleBindings(viewerNamespace).Create(ctx, binding, metav1.CreateOptions{})
		return err
	})
}
