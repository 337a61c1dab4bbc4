package columns

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestServiceRow(t *testing.T) {
	svc := func(typ corev1.ServiceType, f func(*corev1.Service)) *corev1.Service {
		s := &corev1.Service{ObjectMeta: objMeta("web"), Spec: corev1.ServiceSpec{Type: typ,
			ClusterIP: "10.96.0.10", ClusterIPs: []string{"10.96.0.10", "fd00::a"},
			Ports:    []corev1.ServicePort{{Port: 80, Protocol: corev1.ProtocolTCP}},
			Selector: map[string]string{"app": "web"}}}
		if f != nil {
			f(s)
		}
		return s
	}
	runRows(t, schema.GroupResource{Resource: "services"}, []rowCase{
		{
			// ClusterIP: CLUSTER-IP is spec.clusterIPs[0]; EXTERNAL-IP "<none>"; PORT(S) port/protocol;
			// wide SELECTOR is FormatLabels(spec.selector).
			name: "cluster ip",
			obj:  svc(corev1.ServiceTypeClusterIP, nil),
			want: []string{"web", "ClusterIP", "10.96.0.10", "<none>", "80/TCP", "5m", "app=web"},
		},
		{
			// NodePort: port:nodePort/protocol; EXTERNAL-IP is spec.externalIPs when set.
			name: "node port with external IPs",
			obj: svc(corev1.ServiceTypeNodePort, func(s *corev1.Service) {
				s.Spec.Ports = []corev1.ServicePort{{Port: 80, NodePort: 30080, Protocol: corev1.ProtocolTCP}, {Port: 53, Protocol: corev1.ProtocolUDP}}
				s.Spec.ExternalIPs = []string{"192.0.2.1", "192.0.2.2"}
			}),
			want: []string{"web", "NodePort", "10.96.0.10", "192.0.2.1,192.0.2.2", "80:30080/TCP,53/UDP", "5m", "app=web"},
		},
		{
			// LoadBalancer with no ingress point yet: "<pending>".
			name: "load balancer pending",
			obj:  svc(corev1.ServiceTypeLoadBalancer, nil),
			want: []string{"web", "LoadBalancer", "10.96.0.10", "<pending>", "80/TCP", "5m", "app=web"},
		},
		{
			// LoadBalancer: IPs, or hostnames, sorted and deduplicated, then spec.externalIPs; the
			// server prints wide, so a value longer than 16 bytes is not clipped.
			name: "load balancer",
			obj: svc(corev1.ServiceTypeLoadBalancer, func(s *corev1.Service) {
				s.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{
					{Hostname: "lb.example.com"}, {IP: "203.0.113.9"}, {IP: "203.0.113.9"}, {IP: "203.0.113.1", Hostname: "ignored"}}
				s.Spec.ExternalIPs = []string{"192.0.2.1"}
			}),
			want: []string{"web", "LoadBalancer", "10.96.0.10", "203.0.113.1,203.0.113.9,lb.example.com,192.0.2.1", "80/TCP", "5m", "app=web"},
		},
		{
			// ExternalName: EXTERNAL-IP is spec.externalName; headless and portless services print
			// "None" and "<none>"; an empty selector prints "<none>".
			name: "external name",
			obj: &corev1.Service{ObjectMeta: objMeta("db"), Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName,
				ExternalName: "db.example.com"}},
			want: []string{"db", "ExternalName", "<none>", "db.example.com", "<none>", "5m", "<none>"},
		},
		{
			name: "headless",
			obj: &corev1.Service{ObjectMeta: objMeta("db"), Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP,
				ClusterIP: "None", ClusterIPs: []string{"None"}}},
			want: []string{"db", "ClusterIP", "None", "<none>", "<none>", "5m", "<none>"},
		},
	})
}

func TestIngressRow(t *testing.T) {
	rules := func(hosts ...string) []networkingv1.IngressRule {
		var r []networkingv1.IngressRule
		for _, h := range hosts {
			r = append(r, networkingv1.IngressRule{Host: h})
		}
		return r
	}
	runRows(t, schema.GroupResource{Group: "networking.k8s.io", Resource: "ingresses"}, []rowCase{
		{
			// CLASS spec.ingressClassName; HOSTS joined; ADDRESS IPs or hostnames, sorted, never
			// clipped; PORTS "80, 443" with TLS.
			name: "tls",
			obj: &networkingv1.Ingress{ObjectMeta: objMeta("web"),
				Spec: networkingv1.IngressSpec{IngressClassName: ptr("nginx"), Rules: rules("a.example.com", "b.example.com"),
					TLS: []networkingv1.IngressTLS{{Hosts: []string{"a.example.com"}}}},
				Status: networkingv1.IngressStatus{LoadBalancer: networkingv1.IngressLoadBalancerStatus{Ingress: []networkingv1.IngressLoadBalancerIngress{
					{IP: "203.0.113.10"}, {Hostname: "lb-123456.elb.example.com"}}}}},
			want: []string{"web", "nginx", "a.example.com,b.example.com", "203.0.113.10,lb-123456.elb.example.com", "80, 443", "5m"},
		},
		{
			// No class: "<none>"; no host in any rule: "*"; no address: empty; no TLS: "80".
			name: "default backend",
			obj:  &networkingv1.Ingress{ObjectMeta: objMeta("web"), Spec: networkingv1.IngressSpec{Rules: rules("")}},
			want: []string{"web", "<none>", "*", "", "80", "5m"},
		},
		{
			// formatHosts: three hosts, then "+ N more..." counting every further rule.
			name: "many hosts",
			obj:  &networkingv1.Ingress{ObjectMeta: objMeta("web"), Spec: networkingv1.IngressSpec{Rules: rules("a", "", "b", "c", "", "d")}},
			want: []string{"web", "<none>", "a,b,c + 3 more...", "", "80", "5m"},
		},
	})
}
