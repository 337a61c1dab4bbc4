package columns

import (
	"testing"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestCertificateSigningRequestRow(t *testing.T) {
	csr := func(expiration *int32, cert []byte, types ...certificatesv1.RequestConditionType) *certificatesv1.CertificateSigningRequest {
		c := &certificatesv1.CertificateSigningRequest{ObjectMeta: objMeta("csr-1"),
			Spec:   certificatesv1.CertificateSigningRequestSpec{SignerName: "example.com/signer", Username: "alice", ExpirationSeconds: expiration},
			Status: certificatesv1.CertificateSigningRequestStatus{Certificate: cert}}
		for _, typ := range types {
			// printers.go reads the condition's type only, not its status.
			c.Status.Conditions = append(c.Status.Conditions, certificatesv1.CertificateSigningRequestCondition{Type: typ, Status: corev1.ConditionFalse})
		}
		return c
	}
	runRows(t, schema.GroupResource{Group: "certificates.k8s.io", Resource: "certificatesigningrequests"}, []rowCase{
		{
			// No condition: Pending; REQUESTEDDURATION is expirationSeconds as a duration.
			name: "pending",
			obj:  csr(ptr[int32](3600), nil),
			want: []string{"csr-1", "5m", "example.com/signer", "alice", "60m", "Pending"},
		},
		{
			// Approved, then ",Issued" once a certificate is there; no expiration: "<none>".
			name: "approved and issued",
			obj:  csr(nil, []byte("cert"), certificatesv1.CertificateApproved),
			want: []string{"csr-1", "5m", "example.com/signer", "alice", "<none>", "Approved,Issued"},
		},
		{
			// Denied wins over Approved; ",Failed" follows.
			name: "denied and failed",
			obj:  csr(nil, nil, certificatesv1.CertificateApproved, certificatesv1.CertificateFailed, certificatesv1.CertificateDenied),
			want: []string{"csr-1", "5m", "example.com/signer", "alice", "<none>", "Denied,Failed"},
		},
	})
}

func TestClusterTrustBundleRow(t *testing.T) {
	runRows(t, schema.GroupResource{Group: "certificates.k8s.io", Resource: "clustertrustbundles"}, []rowCase{
		{name: "signer", obj: &certificatesv1.ClusterTrustBundle{ObjectMeta: objMeta("b"), Spec: certificatesv1.ClusterTrustBundleSpec{SignerName: "example.com/s"}},
			want: []string{"b", "example.com/s"}},
		{name: "no signer", obj: &certificatesv1.ClusterTrustBundle{ObjectMeta: objMeta("b")}, want: []string{"b", "<none>"}},
	})
}

func TestPodCertificateRequestRow(t *testing.T) {
	pcr := func(annotations map[string]string, types ...string) *certificatesv1.PodCertificateRequest {
		r := &certificatesv1.PodCertificateRequest{ObjectMeta: objMeta("pcr"), Spec: certificatesv1.PodCertificateRequestSpec{
			PodName: "web-1", ServiceAccountName: "default", NodeName: "node-1", SignerName: "example.com/s",
			UnverifiedUserAnnotations: annotations}}
		for _, typ := range types {
			r.Status.Conditions = append(r.Status.Conditions, metav1Condition(typ))
		}
		return r
	}
	runRows(t, schema.GroupResource{Group: "certificates.k8s.io", Resource: "podcertificaterequests"}, []rowCase{
		{name: "pending", obj: pcr(nil),
			want: []string{"pcr", "web-1", "default", "node-1", "example.com/s", "Pending", "<none>"}},
		{name: "issued", obj: pcr(map[string]string{"b": "2", "a": "1"}, "Other", certificatesv1.PodCertificateRequestConditionTypeIssued),
			want: []string{"pcr", "web-1", "default", "node-1", "example.com/s", "Issued", "a=1,b=2"}},
	})
}
