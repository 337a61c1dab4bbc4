package columns

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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

func TestEndpointSliceRow(t *testing.T) {
	endpoints := func(ips ...string) []discoveryv1.Endpoint {
		var e []discoveryv1.Endpoint
		for _, ip := range ips {
			e = append(e, discoveryv1.Endpoint{Addresses: []string{ip}})
		}
		return e
	}
	runRows(t, schema.GroupResource{Group: "discovery.k8s.io", Resource: "endpointslices"}, []rowCase{
		{
			// PORTS: number, else name, else "*"; ENDPOINTS: addresses; three, then "+ N more...".
			name: "ports and endpoints",
			obj: &discoveryv1.EndpointSlice{ObjectMeta: objMeta("web-abc"), AddressType: discoveryv1.AddressTypeIPv4,
				Ports:     []discoveryv1.EndpointPort{{Port: ptr[int32](80)}, {Name: ptr("metrics")}, {}, {Port: ptr[int32](53)}},
				Endpoints: endpoints("10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4", "10.0.0.5")},
			want: []string{"web-abc", "IPv4", "80,metrics,* + 1 more...", "10.0.0.1,10.0.0.2,10.0.0.3 + 2 more...", "5m"},
		},
		{
			// Nothing: "<unset>".
			name: "empty",
			obj:  &discoveryv1.EndpointSlice{ObjectMeta: objMeta("web-abc"), AddressType: discoveryv1.AddressTypeIPv6},
			want: []string{"web-abc", "IPv6", "<unset>", "<unset>", "5m"},
		},
	})
}

func TestIngressClassRow(t *testing.T) {
	meta := objMeta("nginx")
	meta.Annotations = map[string]string{networkingv1.AnnotationIsDefaultIngressClass: "true"}
	runRows(t, schema.GroupResource{Group: "networking.k8s.io", Resource: "ingressclasses"}, []rowCase{
		{
			// The default class: NAME ends in " (default)"; PARAMETERS kind.apiGroup/name.
			name: "default with parameters",
			obj: &networkingv1.IngressClass{ObjectMeta: meta, Spec: networkingv1.IngressClassSpec{Controller: "example.com/ingress",
				Parameters: &networkingv1.IngressClassParametersReference{APIGroup: ptr("example.com"), Kind: "Params", Name: "p"}}},
			want: []string{"nginx (default)", "example.com/ingress", "Params.example.com/p", "5m"},
		},
		{
			name: "core parameters",
			obj: &networkingv1.IngressClass{ObjectMeta: objMeta("nginx"), Spec: networkingv1.IngressClassSpec{Controller: "example.com/ingress",
				Parameters: &networkingv1.IngressClassParametersReference{Kind: "ConfigMap", Name: "p"}}},
			want: []string{"nginx", "example.com/ingress", "ConfigMap/p", "5m"},
		},
		{
			name: "no parameters",
			obj:  &networkingv1.IngressClass{ObjectMeta: objMeta("nginx"), Spec: networkingv1.IngressClassSpec{Controller: "c"}},
			want: []string{"nginx", "c", "<none>", "5m"},
		},
	})
}

func TestNetworkRows(t *testing.T) {
	runRows(t, schema.GroupResource{Group: "networking.k8s.io", Resource: "networkpolicies"}, []rowCase{
		{name: "selector", obj: &networkingv1.NetworkPolicy{ObjectMeta: objMeta("web"),
			Spec: networkingv1.NetworkPolicySpec{PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}},
			want: []string{"web", "app=web", "5m"}},
		// An empty selector selects every pod: "<none>".
		{name: "every pod", obj: &networkingv1.NetworkPolicy{ObjectMeta: objMeta("deny")}, want: []string{"deny", "<none>", "5m"}},
	})
	runRows(t, schema.GroupResource{Group: "networking.k8s.io", Resource: "servicecidrs"}, []rowCase{
		{name: "dual stack", obj: &networkingv1.ServiceCIDR{ObjectMeta: objMeta("kubernetes"),
			Spec: networkingv1.ServiceCIDRSpec{CIDRs: []string{"10.0.0.0/24", "fd00::/108"}}},
			want: []string{"kubernetes", "10.0.0.0/24,fd00::/108", "5m"}},
	})
	runRows(t, schema.GroupResource{Group: "networking.k8s.io", Resource: "ipaddresses"}, []rowCase{
		{
			// PARENTREF resource[.group][/namespace]/name; no AGE column.
			name: "service",
			obj: &networkingv1.IPAddress{ObjectMeta: objMeta("10.0.0.1"), Spec: networkingv1.IPAddressSpec{
				ParentRef: &networkingv1.ParentReference{Resource: "services", Namespace: "default", Name: "kubernetes"}}},
			want: []string{"10.0.0.1", "services/default/kubernetes"},
		},
		{
			name: "grouped cluster-scoped",
			obj: &networkingv1.IPAddress{ObjectMeta: objMeta("10.0.0.2"), Spec: networkingv1.IPAddressSpec{
				ParentRef: &networkingv1.ParentReference{Group: "Example.com", Resource: "Gateways", Name: "GW"}}},
			want: []string{"10.0.0.2", "gateways.example.com/GW"},
		},
		{name: "no parent", obj: &networkingv1.IPAddress{ObjectMeta: objMeta("10.0.0.3")}, want: []string{"10.0.0.3", "<none>"}},
	})
}
