//lint:file-ignore SA1019 kubectl still lists the deprecated core/v1 Endpoints, and prints them so.

package columns

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestEndpointsRow(t *testing.T) {
	addrs := func(ips ...string) []corev1.EndpointAddress {
		var a []corev1.EndpointAddress
		for _, ip := range ips {
			a = append(a, corev1.EndpointAddress{IP: ip})
		}
		return a
	}
	ep := func(subsets ...corev1.EndpointSubset) *corev1.Endpoints {
		return &corev1.Endpoints{ObjectMeta: objMeta("web"), Subsets: subsets}
	}
	runRows(t, schema.GroupResource{Resource: "endpoints"}, []rowCase{
		{name: "no subsets", obj: ep(), want: []string{"web", "<none>", "5m"}},
		{
			// host:port for each port of each address, IPv6 in brackets.
			name: "ports",
			obj:  ep(corev1.EndpointSubset{Addresses: addrs("10.0.0.1", "fd00::1"), Ports: []corev1.EndpointPort{{Port: 80}}}),
			want: []string{"web", "10.0.0.1:80,[fd00::1]:80", "5m"},
		},
		{
			// The first three, then " + N more..." counting every address of every port;
			// a subset without ports lists its addresses alone.
			name: "more",
			obj: ep(corev1.EndpointSubset{Addresses: addrs("10.0.0.1", "10.0.0.2"), Ports: []corev1.EndpointPort{{Port: 80}, {Port: 9090}}},
				corev1.EndpointSubset{Addresses: addrs("10.0.0.3")}),
			want: []string{"web", "10.0.0.1:80,10.0.0.2:80,10.0.0.1:9090 + 2 more...", "5m"},
		},
		{
			name: "headless without ports",
			obj:  ep(corev1.EndpointSubset{Addresses: addrs("10.0.0.3")}),
			want: []string{"web", "10.0.0.3", "5m"},
		},
		{
			// Subsets without addresses print an empty cell.
			name: "not ready only",
			obj:  ep(corev1.EndpointSubset{NotReadyAddresses: addrs("10.0.0.4"), Ports: []corev1.EndpointPort{{Port: 80}}}),
			want: []string{"web", "", "5m"},
		},
	})
}
