package columns

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
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

var endpointSliceTable = Table{
	Columns: columnsOf([]string{"Name", "AddressType", "Ports", "Endpoints", "Age"}),
	Row:     typedRow(endpointSliceRow),
}

// endpointSliceRow is printers.go's printEndpointSlice: PORTS lists each port's number, else its
// name, else "*"; ENDPOINTS every address of every endpoint; both the first three, then
// " + N more...", or "<unset>" when empty.
func endpointSliceRow(s *discoveryv1.EndpointSlice, now time.Time) []string {
	ports := make([]string, 0, len(s.Ports))
	for _, p := range s.Ports {
		switch {
		case p.Port != nil:
			ports = append(ports, strconv.Itoa(int(*p.Port)))
		case p.Name != nil:
			ports = append(ports, *p.Name)
		default:
			ports = append(ports, "*")
		}
	}
	var addresses []string
	for _, e := range s.Endpoints {
		addresses = append(addresses, e.Addresses...)
	}
	return []string{s.Name, string(s.AddressType), listWithMore(ports, len(ports), 3),
		listWithMore(addresses, len(addresses), 3), age(s.CreationTimestamp, now)}
}

// ingressClassDefaultAnnotation marks the cluster's default IngressClass.
const ingressClassDefaultAnnotation = networkingv1.AnnotationIsDefaultIngressClass

var ingressClassTable = Table{
	Columns: columnsOf([]string{"Name", "Controller", "Parameters", "Age"}),
	Row:     typedRow(ingressClassRow),
}

// ingressClassRow is printers.go's printIngressClass: NAME ends in " (default)" for the default
// class; PARAMETERS is kind[.apiGroup]/name, or "<none>".
func ingressClassRow(ic *networkingv1.IngressClass, now time.Time) []string {
	name := ic.Name
	if ic.Annotations[ingressClassDefaultAnnotation] == "true" {
		name += " (default)"
	}
	parameters := "<none>"
	if p := ic.Spec.Parameters; p != nil {
		parameters = p.Kind
		if p.APIGroup != nil {
			parameters += "." + *p.APIGroup
		}
		parameters += "/" + p.Name
	}
	return []string{name, ic.Spec.Controller, parameters, age(ic.CreationTimestamp, now)}
}

var networkPolicyTable = Table{
	Columns: columnsOf([]string{"Name", "Pod-Selector", "Age"}),
	Row: typedRow(func(np *networkingv1.NetworkPolicy, now time.Time) []string {
		return []string{np.Name, metav1.FormatLabelSelector(&np.Spec.PodSelector), age(np.CreationTimestamp, now)}
	}),
}

var serviceCIDRTable = Table{
	Columns: columnsOf([]string{"Name", "CIDRs", "Age"}),
	Row: typedRow(func(c *networkingv1.ServiceCIDR, now time.Time) []string {
		return []string{c.Name, strings.Join(c.Spec.CIDRs, ","), age(c.CreationTimestamp, now)}
	}),
}

// ipAddressTable has no AGE column: printers.go declares none, and kubectl drops the age cell
// its printIPAddress adds beyond the columns.
var ipAddressTable = Table{
	Columns: columnsOf([]string{"Name", "ParentRef"}),
	Row:     typedRow(ipAddressRow),
}

// ipAddressRow is printers.go's printIPAddress: PARENTREF is resource[.group][/namespace]/name in
// lower case (the name as it is), or "<none>".
func ipAddressRow(ip *networkingv1.IPAddress, _ time.Time) []string {
	parent := "<none>"
	if ref := ip.Spec.ParentRef; ref != nil {
		gr := schema.GroupResource{Group: ref.Group, Resource: ref.Resource}
		parent = strings.ToLower(gr.String())
		if ref.Namespace != "" {
			parent += "/" + ref.Namespace
		}
		parent += "/" + ref.Name
	}
	return []string{ip.Name, parent}
}
