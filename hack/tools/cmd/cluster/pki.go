package main

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// The users the cluster's kubeconfigs authenticate as, by client certificate.
const (
	adminUser  = "admin"
	adminGroup = "system:masters"
	viewerUser = "viewer"
	// frontProxyUser is the identity kube-apiserver proxies requests to
	// aggregated API servers (metrics-server) with; they trust the user
	// named in its request headers, so no other certificate may claim it
	// (--requestheader-allowed-names).
	frontProxyUser = "front-proxy-client"
)

// pkiFiles names the files under DIR/pki.
type pkiFiles struct {
	dir string
}

func (p pkiFiles) path(name string) string { return filepath.Join(p.dir, name) }

func (p pkiFiles) CACert() string             { return p.path("ca.crt") }
func (p pkiFiles) ServingCert() string        { return p.path("apiserver.crt") }
func (p pkiFiles) ServingKey() string         { return p.path("apiserver.key") }
func (p pkiFiles) ClientCert(u string) string { return p.path(u + ".crt") }
func (p pkiFiles) ClientKey(u string) string  { return p.path(u + ".key") }
func (p pkiFiles) SAKey() string              { return p.path("sa.key") }
func (p pkiFiles) SAPub() string              { return p.path("sa.pub") }

// MetricsServingCert and MetricsServingKey are metrics-server's serving
// certificate, for the name the aggregator checks
// (metrics-server.kube-system.svc) and 127.0.0.1.
func (p pkiFiles) MetricsServingCert() string { return p.path("metrics-server-serving.crt") }
func (p pkiFiles) MetricsServingKey() string  { return p.path("metrics-server-serving.key") }

// clientIdentities are the client certificates ensurePKI makes, by the name
// of their files (and of the kubeconfig user that holds them). The
// controller-manager and scheduler are the users Kubernetes' default RBAC
// binds their roles to; kwok, a simulator of kubelets, is an admin;
// metrics-server gets the roles its own manifests give it (setupMetrics).
var clientIdentities = map[string]pkix.Name{
	adminUser:            {CommonName: adminUser, Organization: []string{adminGroup}},
	viewerUser:           {CommonName: viewerUser},
	controllerManagerBin: {CommonName: "system:kube-controller-manager"},
	schedulerBin:         {CommonName: "system:kube-scheduler"},
	kwokBin:              {CommonName: "kwok", Organization: []string{adminGroup}},
	metricsServerBin:     {CommonName: metricsServerUser},
	frontProxyUser:       {CommonName: frontProxyUser},
}

func (p pkiFiles) all() []string {
	files := []string{p.CACert(), p.path("ca.key"), p.ServingCert(), p.ServingKey(), p.SAKey(), p.SAPub(),
		p.MetricsServingCert(), p.MetricsServingKey()}
	for u := range clientIdentities {
		files = append(files, p.ClientCert(u), p.ClientKey(u))
	}
	return files
}

// ensurePKI generates a CA, a serving certificate for 127.0.0.1 and
// localhost (and the in-cluster names of the kubernetes Service), the client
// certificates of clientIdentities, and the service-account
// signing key pair. It keeps existing files when all of them are there, so
// restarts reuse them.
func ensurePKI(p pkiFiles, serviceIP net.IP) error {
	complete := true
	for _, f := range p.all() {
		if _, err := os.Stat(f); err != nil {
			complete = false
			break
		}
	}
	if complete {
		return nil
	}
	if err := os.MkdirAll(p.dir, 0o700); err != nil {
		return fmt.Errorf("creating %s: %w", p.dir, err)
	}

	now := time.Now()
	caKey, err := newKey()
	if err != nil {
		return err
	}
	caTmpl := &x509.Certificate{
		Subject:               pkix.Name{CommonName: "kubectl-informer-test-ca"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.AddDate(10, 0, 0),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caCert, err := sign(caTmpl, caKey, nil, nil)
	if err != nil {
		return fmt.Errorf("creating the CA: %w", err)
	}
	if err := writeCertAndKey(p.CACert(), p.path("ca.key"), caCert, caKey); err != nil {
		return err
	}

	serving := &x509.Certificate{
		Subject:     pkix.Name{CommonName: "kube-apiserver"},
		NotBefore:   now.Add(-time.Hour),
		NotAfter:    now.AddDate(1, 0, 0),
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames: []string{
			"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc",
			"kubernetes.default.svc.cluster.local",
		},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1"), net.IPv6loopback, serviceIP},
	}
	if err := issue(p.ServingCert(), p.ServingKey(), serving, caCert, caKey); err != nil {
		return fmt.Errorf("creating the serving certificate: %w", err)
	}

	metricsServing := &x509.Certificate{
		Subject:     pkix.Name{CommonName: metricsServerBin},
		NotBefore:   now.Add(-time.Hour),
		NotAfter:    now.AddDate(1, 0, 0),
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames: []string{
			"localhost", metricsServerService, metricsServerService + "." + metricsServerNamespace,
			metricsServerService + "." + metricsServerNamespace + ".svc",
		},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
	}
	if err := issue(p.MetricsServingCert(), p.MetricsServingKey(), metricsServing, caCert, caKey); err != nil {
		return fmt.Errorf("creating metrics-server's serving certificate: %w", err)
	}

	for u, subject := range clientIdentities {
		tmpl := &x509.Certificate{
			Subject:     subject,
			NotBefore:   now.Add(-time.Hour),
			NotAfter:    now.AddDate(1, 0, 0),
			KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
			ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
		}
		if err := issue(p.ClientCert(u), p.ClientKey(u), tmpl, caCert, caKey); err != nil {
			return fmt.Errorf("creating the client certificate for %s: %w", u, err)
		}
	}

	saKey, err := newKey()
	if err != nil {
		return err
	}
	if err := writeKey(p.SAKey(), saKey); err != nil {
		return err
	}
	pub, err := x509.MarshalPKIXPublicKey(saKey.Public())
	if err != nil {
		return fmt.Errorf("encoding the service-account public key: %w", err)
	}
	return writePEM(p.SAPub(), "PUBLIC KEY", pub, 0o644)
}

func newKey() (*ecdsa.PrivateKey, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generating a key: %w", err)
	}
	return key, nil
}

// sign creates a certificate from tmpl for key, signed by parent and
// parentKey, or self-signed when parent is nil.
func sign(tmpl *x509.Certificate, key *ecdsa.PrivateKey, parent *x509.Certificate, parentKey crypto.Signer) (*x509.Certificate, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, fmt.Errorf("generating a serial number: %w", err)
	}
	tmpl.SerialNumber = serial
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, key.Public(), parentKey)
	if err != nil {
		return nil, err
	}
	return x509.ParseCertificate(der)
}

func issue(certPath, keyPath string, tmpl, ca *x509.Certificate, caKey crypto.Signer) error {
	key, err := newKey()
	if err != nil {
		return err
	}
	cert, err := sign(tmpl, key, ca, caKey)
	if err != nil {
		return err
	}
	return writeCertAndKey(certPath, keyPath, cert, key)
}

func writeCertAndKey(certPath, keyPath string, cert *x509.Certificate, key *ecdsa.PrivateKey) error {
	if err := writePEM(certPath, "CERTIFICATE", cert.Raw, 0o644); err != nil {
		return err
	}
	return writeKey(keyPath, key)
}

func writeKey(path string, key *ecdsa.PrivateKey) error {
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return fmt.Errorf("encoding %s: %w", path, err)
	}
	return writePEM(path, "EC PRIVATE KEY", der, 0o600)
}

func writePEM(path, blockType string, der []byte, mode os.FileMode) error {
	data := pem.EncodeToMemory(&pem.Block{Type: blockType, Bytes: der})
	if err := os.WriteFile(path, data, mode); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
