package main

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestSimulatedNodeOptions(t *testing.T) {
	tests := []struct {
		name        string
		i           int
		o           nodeOptions
		gpus        int64
		metricsPath string
		kubeletHost bool
	}{
		{name: "plain", i: 1},
		{name: "odd node with GPUs", i: 3, o: nodeOptions{gpus: 4}, gpus: 4},
		{name: "even node without", i: 2, o: nodeOptions{gpus: 4}},
		{name: "metrics", i: 2, o: nodeOptions{metrics: true}, metricsPath: "/metrics/nodes/kwok-node-2/metrics/resource", kubeletHost: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := simulatedNode(tt.i, tt.o)
			allocatable, capacity := n.Status.Allocatable[gpuResource], n.Status.Capacity[gpuResource]
			if allocatable.Value() != tt.gpus || capacity.Value() != tt.gpus {
				t.Errorf("nvidia.com/gpu allocatable %s, capacity %s, want %d", allocatable.String(), capacity.String(), tt.gpus)
			}
			if _, labelled := n.Labels[gpuPresentLabel]; labelled != (tt.gpus > 0) {
				t.Errorf("label %s present = %v, want %v", gpuPresentLabel, labelled, tt.gpus > 0)
			}
			if got := n.Annotations[kwokMetricsPathAnnotation]; got != tt.metricsPath {
				t.Errorf("annotation %s = %q, want %q", kwokMetricsPathAnnotation, got, tt.metricsPath)
			}
			host := slices.Contains(n.Status.Addresses, corev1.NodeAddress{Type: corev1.NodeInternalDNS, Address: kubeletHost})
			if host != tt.kubeletHost {
				t.Errorf("InternalDNS address %s = %v, want %v", kubeletHost, host, tt.kubeletHost)
			}
		})
	}
}
