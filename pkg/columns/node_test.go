package columns

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestNodeRow(t *testing.T) {
	readyTrue := []corev1.NodeCondition{
		{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse},
		{Type: corev1.NodeReady, Status: corev1.ConditionTrue},
	}
	info := corev1.NodeSystemInfo{KubeletVersion: "v1.37.2", OSImage: "Debian GNU/Linux 13 (trixie)",
		KernelVersion: "6.12.0", Architecture: "amd64", ContainerRuntimeVersion: "containerd://2.1.0"}
	node := func(name string, f func(*corev1.Node)) *corev1.Node {
		n := &corev1.Node{ObjectMeta: objMeta(name)}
		n.Namespace = ""
		f(n)
		return n
	}
	runRows(t, schema.GroupResource{Resource: "nodes"}, []rowCase{
		{
			// STATUS from the Ready condition; ROLES from node-role.kubernetes.io/* keys and the
			// kubernetes.io/role value, sorted and deduplicated; wide: first InternalIP and
			// ExternalIP, KERNEL-VERSION with "(arch)".
			name: "control plane",
			obj: node("cp-1", func(n *corev1.Node) {
				n.Labels = map[string]string{"node-role.kubernetes.io/control-plane": "", "node-role.kubernetes.io/etcd": "true",
					"kubernetes.io/role": "control-plane", "node-role.kubernetes.io/": "", "app": "x"}
				n.Status.Conditions = readyTrue
				n.Status.NodeInfo = info
				n.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeHostName, Address: "cp-1"},
					{Type: corev1.NodeInternalIP, Address: "10.0.0.1"}, {Type: corev1.NodeInternalIP, Address: "10.0.0.2"},
					{Type: corev1.NodeExternalIP, Address: "203.0.113.1"}}
			}),
			want: []string{"cp-1", "Ready", "control-plane,etcd", "5m", "v1.37.2",
				"10.0.0.1", "203.0.113.1", "Debian GNU/Linux 13 (trixie)", "6.12.0 (amd64)", "containerd://2.1.0"},
		},
		{
			// A cordoned node adds SchedulingDisabled; a kubernetes.io/role value is a role; an
			// empty kubernetes.io/role is not.
			name: "cordoned",
			obj: node("w-1", func(n *corev1.Node) {
				n.Labels = map[string]string{"kubernetes.io/role": "worker"}
				n.Spec.Unschedulable = true
				n.Status.Conditions = readyTrue
				n.Status.NodeInfo = info
			}),
			want: []string{"w-1", "Ready,SchedulingDisabled", "worker", "5m", "v1.37.2",
				"<none>", "<none>", "Debian GNU/Linux 13 (trixie)", "6.12.0 (amd64)", "containerd://2.1.0"},
		},
		{
			// Ready False or Unknown prints NotReady.
			name: "not ready",
			obj: node("w-2", func(n *corev1.Node) {
				n.Labels = map[string]string{"kubernetes.io/role": ""}
				n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionUnknown}}
			}),
			want: []string{"w-2", "NotReady", "<none>", "5m", "", "<none>", "<none>", "<unknown>", "<unknown>", "<unknown>"},
		},
		{
			// No Ready condition: Unknown, still followed by SchedulingDisabled; the last Ready
			// condition wins when there are several.
			name: "no ready condition, cordoned",
			obj: node("w-3", func(n *corev1.Node) {
				n.Spec.Unschedulable = true
			}),
			want: []string{"w-3", "Unknown,SchedulingDisabled", "<none>", "5m", "", "<none>", "<none>", "<unknown>", "<unknown>", "<unknown>"},
		},
		{
			name: "last ready condition wins",
			obj: node("w-4", func(n *corev1.Node) {
				n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue},
					{Type: corev1.NodeReady, Status: corev1.ConditionFalse}}
			}),
			want: []string{"w-4", "NotReady", "<none>", "5m", "", "<none>", "<none>", "<unknown>", "<unknown>", "<unknown>"},
		},
	})
}

func TestRuntimeClassRow(t *testing.T) {
	runRows(t, schema.GroupResource{Group: "node.k8s.io", Resource: "runtimeclasses"}, []rowCase{
		{name: "handler", obj: &nodev1.RuntimeClass{ObjectMeta: objMeta("gvisor"), Handler: "runsc"}, want: []string{"gvisor", "runsc", "5m"}},
	})
}

func TestPriorityClassRow(t *testing.T) {
	never := corev1.PreemptNever
	runRows(t, schema.GroupResource{Group: "scheduling.k8s.io", Resource: "priorityclasses"}, []rowCase{
		{
			// GLOBAL-DEFAULT a JSON boolean; PREEMPTIONPOLICY printed without -o wide.
			name: "never",
			obj:  &schedulingv1.PriorityClass{ObjectMeta: objMeta("batch"), Value: -10, PreemptionPolicy: &never},
			want: []string{"batch", "-10", "false", "5m", "Never"},
		},
		{
			name: "global default",
			obj:  &schedulingv1.PriorityClass{ObjectMeta: objMeta("default"), Value: 1000000000, GlobalDefault: true},
			want: []string{"default", "1000000000", "true", "5m", ""},
		},
	})
	table, _ := For(schema.GroupResource{Group: "scheduling.k8s.io", Resource: "priorityclasses"})
	if got, want := table.Headers(false), []string{"NAME", "VALUE", "GLOBAL-DEFAULT", "AGE", "PREEMPTIONPOLICY"}; !slices.Equal(got, want) {
		t.Errorf("priorityclasses Headers(false) = %q, want %q", got, want)
	}
}
