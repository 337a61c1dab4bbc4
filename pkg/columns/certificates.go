package columns

import (
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/duration"
)

var certificateSigningRequestTable = Table{
	Columns: columnsOf([]string{"Name", "Age", "SignerName", "Requestor", "RequestedDuration", "Condition"}),
	Row:     typedRow(certificateSigningRequestRow),
}

// certificateSigningRequestRow is printers.go's printCertificateSigningRequest.
func certificateSigningRequestRow(csr *certificatesv1.CertificateSigningRequest, now time.Time) []string {
	requested := "<none>"
	if s := csr.Spec.ExpirationSeconds; s != nil {
		requested = duration.HumanDuration(time.Duration(*s) * time.Second)
	}
	return []string{
		csr.Name, age(csr.CreationTimestamp, now), orNone(csr.Spec.SignerName), csr.Spec.Username, requested,
		csrCondition(csr),
	}
}

// csrCondition is printers.go's extractCSRStatus: Denied, else Approved, else Pending, by the
// types of the conditions present (whatever their status), then ",Failed" and ",Issued".
func csrCondition(csr *certificatesv1.CertificateSigningRequest) string {
	var approved, denied, failed bool
	for _, c := range csr.Status.Conditions {
		switch c.Type {
		case certificatesv1.CertificateApproved:
			approved = true
		case certificatesv1.CertificateDenied:
			denied = true
		case certificatesv1.CertificateFailed:
			failed = true
		}
	}
	status := "Pending"
	if denied {
		status = "Denied"
	} else if approved {
		status = "Approved"
	}
	if failed {
		status += ",Failed"
	}
	if len(csr.Status.Certificate) > 0 {
		status += ",Issued"
	}
	return status
}

// clusterTrustBundleTable has no AGE column: printers.go prints none for ClusterTrustBundles.
var clusterTrustBundleTable = Table{
	Columns: columnsOf([]string{"Name", "SignerName"}),
	Row: typedRow(func(b *certificatesv1.ClusterTrustBundle, _ time.Time) []string {
		return []string{b.Name, orNone(b.Spec.SignerName)}
	}),
}

var podCertificateRequestTable = Table{
	Columns: columnsOf([]string{"Name", "PodName", "ServiceAccountName", "NodeName", "SignerName", "State",
		"UnverifiedUserAnnotations"}),
	Row: typedRow(podCertificateRequestRow),
}

// podCertificateRequestRow is printers.go's printPodCertificateRequest: STATE is the type of the
// last Issued, Denied or Failed condition, else Pending.
func podCertificateRequestRow(r *certificatesv1.PodCertificateRequest, _ time.Time) []string {
	state := "Pending"
	for _, c := range r.Status.Conditions {
		switch c.Type {
		case certificatesv1.PodCertificateRequestConditionTypeIssued,
			certificatesv1.PodCertificateRequestConditionTypeDenied,
			certificatesv1.PodCertificateRequestConditionTypeFailed:
			state = c.Type
		}
	}
	return []string{
		r.Name, r.Spec.PodName, r.Spec.ServiceAccountName, string(r.Spec.NodeName), r.Spec.SignerName, state,
		labels.FormatLabels(r.Spec.UnverifiedUserAnnotations),
	}
}
