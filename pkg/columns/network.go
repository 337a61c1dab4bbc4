package columns

import (
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/labels"
)

var serviceTable = Table{
	Columns: columnsOf([]string{"Name", "Type", "Cluster-IP", "External-IP", "Port(s)", "Age", "Selector"}, "Selector"),
	Row:     typedRow(serviceRow),
}

// serviceRow is printers.go's printService, in the wide mode the API server prints with.
func serviceRow(svc *corev1.Service, now time.Time) []string {
	clusterIP := "<none>"
	if len(svc.Spec.ClusterIPs) > 0 {
		clusterIP = svc.Spec.ClusterIPs[0]
	}
	ports := servicePorts(svc.Spec.Ports)
	if ports == "" {
		ports = "<none>"
	}
	return []string{
		svc.Name, string(svc.Spec.Type), clusterIP, serviceExternalIP(svc), ports, age(svc.CreationTimestamp, now),
		labels.FormatLabels(svc.Spec.Selector),
	}
}

// serviceExternalIP is printers.go's getServiceExternalIP with wide set: the load balancer's
// addresses are not clipped to 16 bytes.
func serviceExternalIP(svc *corev1.Service) string {
	switch svc.Spec.Type {
	case corev1.ServiceTypeClusterIP, corev1.ServiceTypeNodePort:
		if len(svc.Spec.ExternalIPs) > 0 {
			return strings.Join(svc.Spec.ExternalIPs, ",")
		}
		return "<none>"
	case corev1.ServiceTypeLoadBalancer:
		addresses := loadBalancerAddresses(svc.Status.LoadBalancer.Ingress, serviceIngressAddress)
		if len(svc.Spec.ExternalIPs) > 0 {
			return strings.Join(append(addresses, svc.Spec.ExternalIPs...), ",")
		}
		if len(addresses) > 0 {
			return strings.Join(addresses, ",")
		}
		return "<pending>"
	case corev1.ServiceTypeExternalName:
		return svc.Spec.ExternalName
	}
	return "<unknown>"
}

// loadBalancerAddresses is printers.go's loadBalancerStatusStringer before the join, for a
// Service's or an Ingress's load-balancer status: the IP, or else the hostname, of each ingress
// point (ipHost reads them), sorted and without duplicates.
func loadBalancerAddresses[T any](ingress []T, ipHost func(T) (ip, hostname string)) []string {
	var addresses []string
	for _, in := range ingress {
		ip, hostname := ipHost(in)
		switch {
		case ip != "":
			addresses = append(addresses, ip)
		case hostname != "":
			addresses = append(addresses, hostname)
		}
	}
	slices.Sort(addresses)
	return slices.Compact(addresses)
}

func serviceIngressAddress(in corev1.LoadBalancerIngress) (string, string) { return in.IP, in.Hostname }

func ingressAddress(in networkingv1.IngressLoadBalancerIngress) (string, string) {
	return in.IP, in.Hostname
}

// servicePorts is printers.go's makePortString: port/protocol, or port:nodePort/protocol.
func servicePorts(ports []corev1.ServicePort) string {
	pieces := make([]string, len(ports))
	for i, p := range ports {
		if p.NodePort > 0 {
			pieces[i] = fmt.Sprintf("%d:%d/%s", p.Port, p.NodePort, p.Protocol)
		} else {
			pieces[i] = fmt.Sprintf("%d/%s", p.Port, p.Protocol)
		}
	}
	return strings.Join(pieces, ",")
}

var ingressTable = Table{
	Columns: columnsOf([]string{"Name", "Class", "Hosts", "Address", "Ports", "Age"}),
	Row:     typedRow(ingressRow),
}

// ingressRow is printers.go's printIngress, in the wide mode the API server prints with: the
// ADDRESS is not clipped.
func ingressRow(ing *networkingv1.Ingress, now time.Time) []string {
	class := "<none>"
	if ing.Spec.IngressClassName != nil {
		class = *ing.Spec.IngressClassName
	}
	addresses := loadBalancerAddresses(ing.Status.LoadBalancer.Ingress, ingressAddress)
	ports := "80"
	if len(ing.Spec.TLS) != 0 {
		ports = "80, 443"
	}
	return []string{
		ing.Name, class, ingressHosts(ing.Spec.Rules), strings.Join(addresses, ","), ports,
		age(ing.CreationTimestamp, now),
	}
}

// ingressHosts is printers.go's formatHosts: the hosts of the first three rules that have one,
// "+ N more..." when there are more than three rules, "*" when no rule names a host.
func ingressHosts(rules []networkingv1.IngressRule) string {
	const max = 3
	var list []string
	more := false
	for _, rule := range rules {
		if len(list) == max {
			more = true
		}
		if !more && rule.Host != "" {
			list = append(list, rule.Host)
		}
	}
	if len(list) == 0 {
		return "*"
	}
	hosts := strings.Join(list, ",")
	if more {
		return fmt.Sprintf("%s + %d more...", hosts, len(rules)-max)
	}
	return hosts
}
