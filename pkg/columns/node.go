package columns

import (
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
)

// Node role labels read by printers.go's findNodeRoles.
const (
	// labelNodeRolePrefix starts a label whose key names a role: node-role.kubernetes.io/<role>.
	labelNodeRolePrefix = "node-role.kubernetes.io/"
	// nodeLabelRole is the older label whose value names a role.
	nodeLabelRole = "kubernetes.io/role"
)

var nodeTable = Table{
	Columns: columnsOf([]string{"Name", "Status", "Roles", "Age", "Version",
		"Internal-IP", "External-IP", "OS-Image", "Kernel-Version", "Container-Runtime"},
		"Internal-IP", "External-IP", "OS-Image", "Kernel-Version", "Container-Runtime"),
	Row: typedRow(nodeRow),
}

// nodeRow is printers.go's printNode.
func nodeRow(node *corev1.Node, now time.Time) []string {
	// STATUS: Ready or NotReady from the last Ready condition, Unknown without one, then
	// SchedulingDisabled for a cordoned node.
	var status []string
	var ready *corev1.NodeCondition
	for i := range node.Status.Conditions {
		if node.Status.Conditions[i].Type == corev1.NodeReady {
			ready = &node.Status.Conditions[i]
		}
	}
	switch {
	case ready == nil:
		status = append(status, "Unknown")
	case ready.Status == corev1.ConditionTrue:
		status = append(status, string(corev1.NodeReady))
	default:
		status = append(status, "Not"+string(corev1.NodeReady))
	}
	if node.Spec.Unschedulable {
		status = append(status, "SchedulingDisabled")
	}

	roles := strings.Join(nodeRoles(node.Labels), ",")
	if roles == "" {
		roles = "<none>"
	}

	info := node.Status.NodeInfo
	kernel := orUnknown(info.KernelVersion)
	if info.Architecture != "" {
		kernel += " (" + info.Architecture + ")"
	}
	return []string{
		node.Name, strings.Join(status, ","), roles, age(node.CreationTimestamp, now), info.KubeletVersion,
		nodeAddress(node, corev1.NodeInternalIP), nodeAddress(node, corev1.NodeExternalIP),
		orUnknown(info.OSImage), kernel, orUnknown(info.ContainerRuntimeVersion),
	}
}

// nodeRoles is printers.go's findNodeRoles: the <role> of every node-role.kubernetes.io/<role>
// label, and the non-empty value of a kubernetes.io/role label, sorted, without duplicates.
func nodeRoles(nodeLabels map[string]string) []string {
	var roles []string
	for k, v := range nodeLabels {
		switch {
		case strings.HasPrefix(k, labelNodeRolePrefix):
			if role := strings.TrimPrefix(k, labelNodeRolePrefix); role != "" {
				roles = append(roles, role)
			}
		case k == nodeLabelRole && v != "":
			roles = append(roles, v)
		}
	}
	slices.Sort(roles)
	return slices.Compact(roles)
}

// nodeAddress is printers.go's getNodeInternalIP and getNodeExternalIP: the first address of
// type t, or "<none>".
func nodeAddress(node *corev1.Node, t corev1.NodeAddressType) string {
	for _, a := range node.Status.Addresses {
		if a.Type == t {
			return a.Address
		}
	}
	return "<none>"
}

// orUnknown returns s, or "<unknown>" when s is empty.
func orUnknown(s string) string {
	if s == "" {
		return "<unknown>"
	}
	return s
}

var runtimeClassTable = Table{
	Columns: columnsOf([]string{"Name", "Handler", "Age"}),
	Row: typedRow(func(rc *nodev1.RuntimeClass, now time.Time) []string {
		return []string{rc.Name, rc.Handler, age(rc.CreationTimestamp, now)}
	}),
}

// priorityClassTable's PREEMPTIONPOLICY is not wide: printers.go gives it priority 0.
var priorityClassTable = Table{
	Columns: columnsOf([]string{"Name", "Value", "Global-Default", "Age", "PreemptionPolicy"}),
	Row: typedRow(func(pc *schedulingv1.PriorityClass, now time.Time) []string {
		policy := ""
		if pc.PreemptionPolicy != nil {
			policy = string(*pc.PreemptionPolicy)
		}
		return []string{pc.Name, int64Cell(pc.Value), boolText(pc.GlobalDefault), age(pc.CreationTimestamp, now), policy}
	}),
}
